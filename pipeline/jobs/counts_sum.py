"""The sum of shard tallies too many to hold in memory together (one suit of 13 ranks dealt 6 | 7:
372 shards, about a billion rows), done by DuckDB a slice at a time.

One GROUP BY over every row ran out of DuckDB's memory, so the sum is cut. A first pass counts the
rows of each (outcome, winner, first_of_class, battles), and consecutive battles of one (outcome,
winner, first_of_class) are gathered into slices of at most SLICE_ROWS rows. A second pass writes
each row into its slice's own files (DuckDB's partitioned COPY, one read of every tally). Then each
slice is grouped and ordered from its own files alone and written after the one before: the
slices follow the sum's order, so the file holds the rows, in the order, of one GROUP BY. (A slice
read from the tallies by a filter would read most of every file each time: a row group of a
shard's tally spans tens of battles.)
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa

SLICE_ROWS = 20_000_000  # tally rows grouped at once (a few GB of DuckDB's memory at most)

_HEAD = "list_position(?, outcome), coalesce(winner, -1), coalesce(first_of_class::INTEGER, -1)"  # the sum's order


def slices(histogram: list[tuple], most: int) -> list[tuple]:
    """(outcome, winner, first_of_class, first battles, last battles) for each slice, in the
    sum's order, from the rows counted by (outcome, winner, first_of_class, battles) in that
    order: each slice holds at most `most` rows unless one battles value alone holds more."""
    out: list[tuple] = []
    group, first, last, rows = None, None, None, 0
    for outcome, winner, first_of_class, battles, count in histogram:
        head = (outcome, winner, first_of_class)
        if head != group or rows + count > most:
            if group is not None:
                out.append((*group, first, last))
            group, first, rows = head, battles, 0
        last = battles
        rows += count
    if group is not None:
        out.append((*group, first, last))
    return out


def sum_tallies(con, paths: list[str], outcomes: list[str], schema: pa.Schema, write, group_rows: int,
                spill: Path) -> int:
    """Sum the tally files `paths` (grouped by every column but games and first_deal: games
    added, the least first deal kept) on DuckDB connection `con`, cutting them into slices in
    the folder `spill`; hand `write` tables of `schema` in the sum's order, each of `group_rows`
    rows but the last. The number of rows."""
    con.execute(f"CREATE TEMP VIEW tallies AS SELECT * FROM read_parquet({_list(paths)})")
    histogram = con.execute(
        "SELECT * FROM (SELECT outcome::VARCHAR AS outcome, winner, first_of_class, battles, count(*) AS n "
        f"FROM tallies GROUP BY ALL) ORDER BY {_HEAD}, battles", [outcomes]).fetchall()
    pieces = slices(histogram, SLICE_ROWS)
    con.execute("CREATE TEMP TABLE cut (outcome VARCHAR, winner INTEGER, first_of_class INTEGER, battles INTEGER, "
                "piece INTEGER)")
    rows_of_cut, at = [], 0
    for o, w, f, b, _ in histogram:  # the pieces cover the histogram's rows in its order
        while pieces[at][:3] != (o, w, f) or b > pieces[at][4]:
            at += 1
        rows_of_cut.append((o, -1 if w is None else w, -1 if f is None else int(f), b, at))
    if rows_of_cut:
        con.executemany("INSERT INTO cut VALUES (?, ?, ?, ?, ?)", rows_of_cut)
    folder = Path(spill) / "slices"
    shutil.rmtree(folder, ignore_errors=True)  # a stopped run's slices: the same rows, other files perhaps
    folder.parent.mkdir(parents=True, exist_ok=True)
    con.execute(
        "COPY (SELECT t.outcome::VARCHAR AS outcome, t.winner, t.first_of_class, t.battles, t.cards_laid, "
        "t.cycle_length, t.cycle_key, t.games, t.first_deal, c.piece FROM tallies t JOIN cut c "
        "ON t.outcome::VARCHAR = c.outcome AND coalesce(t.winner, -1) = c.winner "
        "AND coalesce(t.first_of_class::INTEGER, -1) = c.first_of_class AND t.battles = c.battles) "
        f"TO '{_quoted(folder)}' (FORMAT parquet, PARTITION_BY (piece), OVERWRITE_OR_IGNORE)")
    pending: list[pa.RecordBatch] = []
    held = rows = 0
    for i in range(len(pieces)):
        reader = con.sql(
            "SELECT * FROM (SELECT outcome, winner, first_of_class, battles, cards_laid, cycle_length, cycle_key, "
            "sum(games)::BIGINT AS games, min(first_deal) AS first_deal "
            f"FROM read_parquet('{_quoted(folder / f'piece={i}')}/*.parquet', hive_partitioning = false) "
            "GROUP BY ALL) ORDER BY battles, cards_laid, coalesce(cycle_length, -1), coalesce(cycle_key, 0)"
        ).to_arrow_reader(group_rows)
        for batch in reader:
            pending.append(batch)
            held += batch.num_rows
            while held >= group_rows:
                table = pa.Table.from_batches(pending)
                write(_typed(table.slice(0, group_rows), outcomes, schema))
                rest = table.slice(group_rows)
                pending, held = rest.to_batches(), rest.num_rows
                rows += group_rows
    if held:
        write(_typed(pa.Table.from_batches(pending), outcomes, schema))
        rows += held
    shutil.rmtree(folder, ignore_errors=True)
    return rows


def _quoted(path) -> str:
    return str(path).replace("'", "''")


def _list(paths: list[str]) -> str:
    return "[" + ", ".join(f"'{_quoted(p)}'" for p in paths) + "]"


def _typed(table: pa.Table, outcomes: list[str], schema: pa.Schema) -> pa.Table:
    """The sum's rows in the counts file's types: outcome a dictionary of every outcome."""
    import pyarrow.compute as pc

    outcome = pa.DictionaryArray.from_arrays(
        pc.index_in(table.column("outcome").combine_chunks(), value_set=pa.array(outcomes)).cast(pa.int32()),
        pa.array(outcomes))
    columns = [outcome] + [table.column(field.name).combine_chunks().cast(field.type) for field in schema][1:]
    return pa.Table.from_arrays(columns, schema=schema)
