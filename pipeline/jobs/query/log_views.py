"""The views of the event log, in the log's order: `event_rows` (the rows of the `events/` files),
`events` (one row per event, decoded by pipeline/log/events.sql) and `battles` (one row per
battle). Read without ORDER BY, each gives its rows by game_id, then seq (or battle), whatever
the number of files, threads and rows, streamed in flat memory: no sort.

What keeps the order is DuckDB's: a scan of one table function (read_parquet over a list of
files) and the operators that keep the insertion order (SELECT, WHERE, UNNEST, a scalar
function) give the rows in the files' order, and the part files, read in the manifest's game
order, are each sorted by (game_id, seq). A join keeps no order (DuckDB's documentation says so,
and a hash join's probe does reorder rows across files), so each row's decoded steps are not
joined from the table of shapes (events.sql's `shape_steps`) but looked up by a function of the
row's shape: its code in an ENUM of the dataset's shapes, whose steps a Python function hands
back for a chunk of rows at a time, the few distinct shapes of the chunk as an Arrow dictionary.
`battles` needs no Python: what it reads of a shape is written in the view itself
(`battle_columns`). docs/decisions.md ("Log order") says what else was tried.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
from pyarrow import fs

from ...errors import QueryError
from ...model.names import rule_set_names
from ...model.schema import GAME_ID_STRIDE
from ...storage.location import glob_literal
from .session import sql_literal  # noqa: F401  (said from here too)

SHAPE_TYPE = "war_shape"  # the ENUM of the dataset's shapes, in the order of shape_steps' rows


def by_ordinal(entries, value) -> str:
    """The SQL of `value(entry)` for a row's rule set, found from the ordinal in its game_id: a CASE
    of constants, so a view needs no join for it (and keeps its order)."""
    cases = " ".join(f"WHEN {e.ordinal} THEN {sql_literal(value(e))}" for e in entries)
    return f"CASE game_id // {GAME_ID_STRIDE} {cases} END" if cases else "CAST(NULL AS VARCHAR)"


def in_log_order(files: list) -> list:
    """A table's files in the log's order: by rule set, then by first game."""
    return sorted(files, key=lambda f: (f.rule_set, f.first_game))


def local_scan(table: str, paths: list[str], entries) -> str:
    """The SQL that reads a table's files on local disk, in the order given: each path as a glob
    pattern that matches only itself (DuckDB reads every path as a pattern, so a dataset in a
    folder named `**` or `star*x` would read other folders' files), no `key=value` folder read as
    a column (a folder `variant=x` above the dataset would be), and for events the `variant`
    column from the manifest's rule set of each row."""
    scan = (f"read_parquet([{', '.join(sql_literal(glob_literal(p)) for p in paths)}], hive_partitioning = false)")
    if table != "events":
        return f"SELECT * FROM {scan}"
    return f"SELECT *, {by_ordinal(entries, lambda e: e.rules.variant)} AS variant FROM {scan}"


def remote_view(con, root, view: str, table: str, files: list, entries) -> None:
    """A view over files on remote storage, read through pyarrow's file system (DuckDB scans the
    Arrow dataset, pushing down columns and filters), so no DuckDB extension is needed."""
    for f, info in zip(files, root.fs.get_file_info([f.path for f in files])):
        if info.type != fs.FileType.File:
            raise QueryError(f"dataset file {str(f)!r} is missing (`war validate` says more)")
    import pyarrow.dataset as pads  # pandas comes with it: only for a remote dataset

    data = pads.dataset([f.path for f in files], filesystem=root.fs, format="parquet")
    con.register(f"_{view}_files", data)
    variant = f", {by_ordinal(entries, lambda e: e.rules.variant)} AS variant" if table == "events" else ""
    con.execute(f"CREATE VIEW {view} AS SELECT *{variant} FROM _{view}_files")


def events_sql() -> str:
    """The SQL that decodes `event_rows` into the `events` view (also for DuckDB used directly)."""
    return (Path(__file__).resolve().parents[2] / "log" / "events.sql").read_text(encoding="utf-8")


def event_views(con, entries) -> None:
    """The decoded views over `event_rows`: events.sql's, then `event_row_steps` again as a
    lookup that keeps the rows' order (so `events` keeps it), and `battles`."""
    con.execute(events_sql())
    bad = con.execute("SELECT shape FROM event_steps WHERE NOT well_formed LIMIT 1").fetchone()
    if bad:
        raise QueryError(f"the dataset's events do not decode: shape {bad[0]!r} "
                         "(`war validate` says more)")
    con.execute(f"CREATE TYPE {SHAPE_TYPE} AS ENUM (SELECT shape FROM shape_steps ORDER BY shape)")
    _lookup(con, "war_shape_steps", "SELECT steps FROM shape_steps ORDER BY shape")
    code = f"CAST(enum_code(CAST(shape AS {SHAPE_TYPE})) AS INTEGER)"
    con.execute(f"CREATE OR REPLACE VIEW event_row_steps AS SELECT *, war_shape_steps({code}) AS steps FROM event_rows")
    shape = battle_columns(con)
    battles_view(con, entries, f"(SELECT *, {shape['at']} AS shape_at FROM event_rows)", shape,
                 f"battle > 0 AND {shape['fights']}")
    con.execute(f"CREATE OR REPLACE VIEW deals AS {deals_sql()}")


def deals_sql() -> str:
    """The `deals` view decoded in SQL: events.sql's `events` over the rows of battle 0 alone,
    each joined to its shape's steps (`event_steps`, one row a step) rather than unnested from a
    lookup of them (DuckDB runs that lookup for every row of the log, filtered or not), then put
    back in the log's order, which the join does not keep: a sort of one row a seat a game."""
    sql = events_sql()
    start = sql.index(EVENTS_VIEW) + len(EVENTS_VIEW)
    select = sql[start:sql.index(";", start)]
    unnested = "FROM (SELECT game_id, seq, battle, cards, variant, unnest(steps) AS s FROM event_row_steps)"
    if select.count(unnested) != 1:
        raise AssertionError("events.sql's events view no longer unnests event_row_steps as deals_sql reads it")
    joined = ("FROM (SELECT r.game_id, r.seq, r.battle, r.cards, r.variant, s FROM event_rows r "
              "JOIN event_steps s ON s.shape = r.shape WHERE r.battle = 0)")
    return select.replace(unnested, joined) + " ORDER BY game_id, seq"


EVENTS_VIEW = "CREATE OR REPLACE VIEW events AS"
# The events of the deal (battle 0) have a view of their own, `deals`, which the copies keep in a
# file of its own: a query of the deals reads no other event's cards.


def battles_view(con, entries, source: str, columns: dict[str, str], where: str = "true") -> None:
    """The `battles` view over `source` (rows with game_id, battle and variant): each column of
    BATTLE_COLUMNS but `fights` by its SQL in `columns`, then its rule set's id and name."""
    names = rule_set_names(entries)
    said = ", ".join(f"{columns[name]} AS {name}" for name in BATTLE_COLUMNS if name != "fights")
    con.execute(f"CREATE OR REPLACE VIEW battles AS SELECT game_id, battle, variant, {said}, "
                f"{by_ordinal(entries, lambda e: e.rules_id)} AS rules_id, "
                f"{by_ordinal(entries, lambda e: names[e.ordinal])} AS rule_set FROM {source} WHERE {where}")


def copy_views(con, entries, copies: list[str], fought: list[str], dealt: list[str]) -> None:
    """The `events`, `battles` and `deals` views over the columnar copies of the events files
    (event_copies.py: `copies`, one row an event, `fought`, one row a battle, and `dealt`, the
    events of battle 0, each in the log's order), with the variant of each row's rule set as the
    events files have it."""
    con.execute(f"CREATE OR REPLACE VIEW events AS {local_scan('events', copies, entries)}")
    con.execute(f"CREATE OR REPLACE VIEW deals AS {local_scan('events', dealt, entries)}")
    battles_view(con, entries, f"({local_scan('events', fought, entries)})", {name: name for name in BATTLE_COLUMNS})


# Up to this many shapes, a battle row's shape is found in a list of them written in the view,
# and its values in lists: DuckDB runs list_position and list_extract once per entry of a
# Parquet page's dictionary, not once per row. Beyond it, by a cast to the ENUM of shapes (a
# lookup per row, whatever their number), and its values cut out of strings: a list written in
# a view is made again for every chunk of 2,048 rows, and list_position searches it from its
# start, so their cost grows with the number of shapes.
LISTED_SHAPES = 512

BATTLE_COLUMNS = {"war_depth": "INTEGER", "winner": "TINYINT", "table_cards": "BIGINT", "set_aside": "BOOLEAN",
                  "fights": "BOOLEAN"}


def battle_columns(con) -> dict[str, str]:
    """The SQL of each column `battles` reads from a row's shape (BATTLE_COLUMNS, and `at`, the
    shape's place among the dataset's shapes, 0 first), each a native expression over values
    written in the view. No join (it would not keep the log's order), no Python function (it had
    every battle row cross into Python: 6 to 15 times the time of these)."""
    rows = con.execute("SELECT shape, coalesce(war_depth, 0), winner, table_cards, set_aside, fights "
                       "FROM battle_shapes ORDER BY shape").fetchall()
    listed = len(rows) <= LISTED_SHAPES
    if listed:
        shapes = "CAST([" + ", ".join(sql_literal(row[0]) for row in rows) + "] AS VARCHAR[])"
        columns = {"at": f"CAST(list_position({shapes}, shape) - 1 AS INTEGER)"}
    else:
        columns = {"at": f"CAST(enum_code(CAST(shape AS {SHAPE_TYPE})) AS INTEGER)"}
    for i, (name, kind) in enumerate(BATTLE_COLUMNS.items(), start=1):
        cells = ["" if row[i] is None else str(int(row[i])) for row in rows]
        if listed:
            values = ", ".join(cell or "NULL" for cell in cells)
            columns[name] = f"CAST([{values}] AS {kind}[])[shape_at + 1]"
            continue
        width = max([len(c) for c in cells] + [1])
        packed = sql_literal("".join(c.rjust(width) for c in cells))
        cell = f"trim(substr({packed}, shape_at * {width} + 1, {width}))"
        columns[name] = f"({cell} = '1')" if kind == "BOOLEAN" else f"CAST(nullif({cell}, '') AS {kind})"
    return columns


def _lookup(con, name: str, sql: str) -> None:
    """A function from a shape's code (in the ENUM of shapes) to the one value of `sql`'s row of
    that code (a list of steps), for a chunk of rows at a time: the dictionary of an Arrow
    dictionary array, the chunk's few distinct codes' values, so DuckDB converts each once a
    chunk."""
    relation = con.sql(sql)
    returns = str(relation.types[0])
    values = relation.to_arrow_table().column(0).combine_chunks()

    def look_up(codes: pa.Array) -> pa.Array:
        if isinstance(codes, pa.ChunkedArray):
            codes = codes.combine_chunks()
        distinct, which = np.unique(codes.to_numpy(zero_copy_only=False), return_inverse=True)
        return pa.DictionaryArray.from_arrays(pa.array(which.astype(np.int32)), values.take(pa.array(distinct)))

    con.create_function(name, look_up, ["INTEGER"], returns, type="arrow", side_effects=False)
