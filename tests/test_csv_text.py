"""The compiled CSV writer (present/csv_text.py, csv_kernel.py) writes the bytes today's path
writes: DuckDB's JSON text of every list, then pyarrow's CSV writer (`today` below).

Checked on generated tables (integers of every width with nulls, booleans, strings with quotes,
commas, newlines and any Unicode, dictionary strings, lists of integers empty, null and with
null items; no rows, one row; batches of any size, sliced), by the kernel on one and two
threads and by the small results' pyarrow path; and on real queries of a generated dataset
(events, battles, games, a named query) through `war query`, to stdout and to a file, with its
progress counted per batch and `| head` ending it quietly.
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import Result, open_query
from pipeline.model.rules import build_rules
from pipeline.present import csv_text
from pipeline.present.output import write_result

INTS = {pa.int8(): 8, pa.int16(): 16, pa.int32(): 32, pa.int64(): 64}
UINTS = {pa.uint8(): 8, pa.uint16(): 16, pa.uint32(): 32, pa.uint64(): 64}
TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12) | \
    st.sampled_from(['"', '""', ",", "\n", "a,\"b\"\r\nc", "", "é ✓ 𝄞"])


def today(result: Result) -> bytes:
    """Today's CSV of a result: its lists as DuckDB's JSON text, written by pyarrow."""
    sink = io.BytesIO()
    with result:
        batches = result.csv_batches()
        with pacsv.CSVWriter(sink, batches.schema) as writer:
            for batch in batches:
                writer.write_batch(batch)
    return sink.getvalue()


class Batches:
    """A reader of a table's batches of at most `size` rows each (slices: their arrays start
    inside their buffers)."""

    def __init__(self, table: pa.Table, size: int) -> None:
        self.schema = table.schema
        self.table, self.size = table, size

    def __iter__(self):
        for start in range(0, self.table.num_rows, self.size):
            yield from self.table.slice(start, self.size).combine_chunks().to_batches()


def fast(table: pa.Table, size: int, workers: int, small_rows: int) -> bytes:
    sink = io.BytesIO()
    csv_text.write(Batches(table, size), sink, workers=workers, small_rows=small_rows)
    return sink.getvalue()


def integers(type_: pa.DataType, bits: int, signed: bool):
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    edges = st.sampled_from([low, high, 0, 1, -1 if signed else 2, 9, 10, 99, 100, 101, 999, 1000])
    return st.none() | st.integers(low, high) | edges.filter(lambda v: low <= v <= high)


@st.composite
def column(draw, rows: int):
    """(Arrow type, values) of a column of one of the types the writer takes."""
    choice = draw(st.sampled_from(["int", "uint", "bool", "text", "dict", "list", "ulist"]))
    if choice in ("int", "uint", "list", "ulist"):
        types = INTS if choice in ("int", "list") else UINTS
        type_ = draw(st.sampled_from(list(types)))
        cell = integers(type_, types[type_], choice in ("int", "list"))
        if choice in ("int", "uint"):
            return type_, pa.array(draw(st.lists(cell, min_size=rows, max_size=rows)), type_)
        lists = st.none() | st.lists(cell, max_size=5)
        return pa.list_(type_), pa.array(draw(st.lists(lists, min_size=rows, max_size=rows)), pa.list_(type_))
    if choice == "bool":
        values = draw(st.lists(st.none() | st.booleans(), min_size=rows, max_size=rows))
        return pa.bool_(), pa.array(values, pa.bool_())
    values = draw(st.lists(st.none() | TEXT, min_size=rows, max_size=rows))
    type_ = draw(st.sampled_from([pa.string(), pa.large_string()]))
    array = pa.array(values, type_)
    return (array.dictionary_encode() if choice == "dict" else array).type, \
        (array.dictionary_encode() if choice == "dict" else array)


@st.composite
def tables(draw):
    rows = draw(st.integers(0, 40) | st.sampled_from([0, 1]))
    width = draw(st.integers(1, 6))
    names = draw(st.lists(TEXT.filter(bool), min_size=width, max_size=width, unique_by=str.lower))
    arrays = [draw(column(rows))[1] for _ in range(width)]
    return pa.table(arrays, names=names)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), size=st.integers(1, 17), workers=st.sampled_from([1, 2]))
def test_generated_tables_as_today(table, size, workers):
    expected = today(Result.of_table(table))
    assert fast(table, size, workers, small_rows=0) == expected  # the compiled kernel
    assert fast(table, max(table.num_rows, 1), workers, small_rows=1 << 20) == expected  # pyarrow's
    # the DuckDB result's own batches (lists native, enums as dictionaries) through write_result
    sink = io.BytesIO()
    with Result.of_table(table) as result:
        assert result.csv_native()
        csv_text.write(result.csv_batches(native=True), sink, small_rows=0)
    assert sink.getvalue() == expected


def test_types_it_does_not_write_go_through_pyarrow():
    """A float, a date, a decimal, a struct or a list of texts: the result's every column is
    written by today's path (the same bytes), and csv_text says it does not take them."""
    table = pa.table({"n": pa.array([1, None], pa.int64()), "x": pa.array([0.5, None]),
                      "s": pa.array([{"a": 1}, None]), "l": pa.array([["a"], None])})
    with Result.of_table(table) as result:
        assert not result.csv_native()
    for t in (pa.float64(), pa.date32(), pa.decimal128(5, 2), pa.struct([("a", pa.int8())]), pa.list_(pa.string()),
              pa.list_(pa.list_(pa.int8())), pa.binary()):
        assert not csv_text.supported(pa.schema([("c", t)]))
    assert rendered(table) == today(Result.of_table(table))


def rendered(table_or_root, sql: str | None = None, **kw) -> bytes:
    buf = io.BytesIO()

    class Out:
        buffer = buf

    saved, sys.stdout = sys.stdout, Out()
    try:
        write_result(table_or_root if sql is None else open_query(table_or_root, sql=sql), "csv", **kw)
    finally:
        sys.stdout = saved
    return buf.getvalue()


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """A few hundred games of three variants: events of several batches, decisions with options."""
    out = tmp_path_factory.mktemp("csv") / "ds"
    generate(out, [Plan(build_rules("classic"), 150), Plan(build_rules("jokers"), 60),
                   Plan(build_rules("steal"), 60, policies=("steal:always", "steal:never"))], seed=11)
    return out


QUERIES = {
    "events": "SELECT * FROM events",
    "battles": "SELECT * FROM battles",
    "games": "SELECT * FROM games",
    "enum and lists": "SELECT game_id, CAST(kind AS ENUM('deal', 'play', 'collect', 'war', 'steal', 'pickup')) "
                      "AS k, cards, options, seat > 0 AS later FROM events WHERE kind IN ('play', 'steal')",
}


@pytest.mark.parametrize("small", [False, True])
@pytest.mark.parametrize("query", sorted(QUERIES))
def test_queries_as_today(root, monkeypatch, query, small):
    """Each view's CSV by write_result (the kernel; with `small`, pyarrow's path as for a result
    of one small batch) equals today's; progress counts every row, once."""
    monkeypatch.setattr(csv_text, "SMALL_ROWS", 1 << 30 if small else 0)
    counted = []
    got = rendered(root, QUERIES[query], progress=counted.append)
    expected = today(open_query(root, sql=QUERIES[query]))
    assert got == expected
    assert sum(counted) == len(list(csv.reader(io.StringIO(expected.decode())))) - 1


def test_events_need_several_batches(root):
    """The events are more than one of DuckDB's batches, so the threads and their order are tested."""
    with open_query(root, sql="SELECT * FROM events") as result:
        assert sum(1 for _ in result.csv_batches(native=True)) > 1


def test_named_query_and_limit(root):
    buf = io.BytesIO()

    class Out:
        buffer = buf

    saved, sys.stdout = sys.stdout, Out()
    try:
        write_result(open_query(root, name="outcomes"), "csv")
    finally:
        sys.stdout = saved
    assert buf.getvalue() == today(open_query(root, name="outcomes"))
    for limit in (0, 1, 5):
        assert rendered(root, "SELECT * FROM events", limit=limit) == \
            today(open_query(root, sql=f"SELECT * FROM events LIMIT {limit}"))


def war(*args: str, pipe: str = "") -> subprocess.CompletedProcess:
    command = " ".join([sys.executable, "-m", "pipeline.cli", *[f"'{a}'" for a in args]]) + pipe
    return subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, timeout=300)


def test_command_to_stdout_file_and_head(root, tmp_path):
    sql = "SELECT * FROM events"
    expected = today(open_query(root, sql=sql))
    shown = war("query", str(root), "--sql", sql, "--format", "csv")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == expected
    saved = war("query", str(root), "--sql", sql, "--format", "csv", "--output", str(tmp_path / "e.csv"))
    assert saved.returncode == 0, saved.stderr
    assert (tmp_path / "e.csv").read_bytes() == expected
    head = war("query", str(root), "--sql", sql, "--format", "csv", pipe=" | head -3")
    assert head.stdout == b"".join(expected.splitlines(keepends=True)[:3])
    assert b"Traceback" not in head.stderr and b"Error" not in head.stderr, head.stderr


def test_long_words_of_a_dictionary_many_times():
    """A dictionary's words are written once a row that names them: the kernel's buffer is
    sized by the rows' words, not by the dictionary (a few words, many rows, quotes doubled)."""
    words = pa.array(['"' * 50 + "x" * 50, None, "é" * 30]).dictionary_encode()
    table = pa.table({"w": words.take(pa.array([i % 3 for i in range(20_000)]))})
    expected = today(Result.of_table(table))
    for workers in (1, 2):
        assert fast(table, 7_000, workers, small_rows=0) == expected


# ---------------------------------------------------------------- the events view read from its copies

AS_THE_VIEW = [  # the view's columns as they are: read from the copies (copy_scan), not DuckDB
    "SELECT * FROM events",
    "select kind, game_id AS g, e.cards, variant, Seat FROM events e",
    "SELECT * FROM main.events;",
    "SELECT events.*, game_id FROM events",
]
NOT_AS_THE_VIEW = [  # anything more: DuckDB answers, and the rows differ from the view's
    "SELECT * FROM events WHERE seat = 1",
    "SELECT * FROM events ORDER BY game_id DESC, seq",
    "SELECT * FROM events LIMIT 1000",
    "SELECT game_id + 1 AS g, kind FROM events",
    "SELECT DISTINCT kind, seat FROM events ORDER BY ALL",
    "SELECT * EXCLUDE (note) FROM events",
    "WITH events AS (SELECT 1 AS a) SELECT * FROM events",
    "SELECT * FROM events USING SAMPLE 10 ROWS (reservoir, 1)",
    "SELECT e.* FROM events e JOIN games g USING (game_id) WHERE g.winner = 0 ORDER BY e.game_id, e.seq",
    "SELECT * FROM battles",
]


def scanned(root, sql: str) -> bool:
    from pipeline.jobs.query import copy_scan

    with open_query(root, sql=sql) as result:
        return copy_scan.scan_of(result) is not None


@pytest.mark.parametrize("sql", AS_THE_VIEW + NOT_AS_THE_VIEW)
def test_the_view_as_it_is_read_from_its_copies(root, monkeypatch, sql):
    """A query that is the events view's columns as they are is read from the copies, any other
    by DuckDB; either way its CSV is today's, and progress counts every row once."""
    monkeypatch.setattr(csv_text, "SMALL_ROWS", 0)
    assert scanned(root, sql) == (sql in AS_THE_VIEW)
    counted = []
    got = rendered(root, sql, progress=counted.append)
    expected = today(open_query(root, sql=sql))
    assert got == expected
    assert sum(counted) == len(list(csv.reader(io.StringIO(expected.decode())))) - 1


def test_unordered_results_are_not_the_view(root):
    """DISTINCT rows (in no order, so not compared byte for byte) and a sample are DuckDB's."""
    for sql in ("SELECT DISTINCT * FROM events", "SELECT DISTINCT kind FROM events",
                "SELECT * FROM events TABLESAMPLE 10%", "SELECT * FROM events QUALIFY row_number() OVER (PARTITION BY game_id ORDER BY seq) = 1",
                "SELECT kind FROM events GROUP BY ALL"):
        assert not scanned(root, sql), sql


def test_a_time_limit_is_kept_by_duckdb(root):
    """A query given a time limit runs in DuckDB, which keeps it (the copies' reader does not)."""
    from pipeline.jobs.query import copy_scan

    with open_query(root, sql="SELECT * FROM events", limit=60) as result:
        assert copy_scan.scan_of(result) is None


def test_a_filtered_result_is_not_the_view(root, monkeypatch):
    """The filtered query's CSV is its own rows, not the view's (the fast path not taken)."""
    monkeypatch.setattr(csv_text, "SMALL_ROWS", 0)
    whole = rendered(root, "SELECT * FROM events")
    some = rendered(root, "SELECT * FROM events WHERE seat = 1")
    assert some != whole and len(some.splitlines()) < len(whole.splitlines())


def test_columns_chosen_and_threads(root, monkeypatch):
    """`columns` (a projection DuckDB makes of the relation) and one or two threads: today's bytes."""
    from pipeline.jobs.query import copy_scan

    monkeypatch.setattr(csv_text, "SMALL_ROWS", 0)
    assert rendered(root, "SELECT * FROM events", columns="cards,kind") == \
        today(open_query(root, sql="SELECT cards, kind FROM events"))
    expected = today(open_query(root, sql="SELECT * FROM events"))
    for workers in (1, 2):
        sink = io.BytesIO()
        with open_query(root, sql="SELECT * FROM events") as result:
            scan = copy_scan.scan_of(result)
            assert scan is not None and len(scan.parts()) >= 3  # a copy a rule set at least
            csv_text.write_parts(scan.names, scan.parts(), sink, workers=workers)
        assert sink.getvalue() == expected


def test_variant_by_the_game_ids_rule_set():
    """The view's `variant`: by the rule set in each game_id, null for one the manifest lacks."""
    from pipeline.jobs.query.copy_scan import variant_column
    from pipeline.model.schema import GAME_ID_STRIDE

    ids = pa.array([0, 5, GAME_ID_STRIDE + 1, 2 * GAME_ID_STRIDE, None, 3], pa.int64())
    got = variant_column(ids, {0: "classic", 1: "jokers"}).cast(pa.string()).to_pylist()
    assert got == ["classic", "classic", "jokers", None, None, "classic"]
    one = variant_column(pa.array([GAME_ID_STRIDE, GAME_ID_STRIDE + 9], pa.int64()), {1: "steal"})
    assert one.cast(pa.string()).to_pylist() == ["steal", "steal"]
    assert variant_column(pa.array([7], pa.int64()), {1: "steal"}).cast(pa.string()).to_pylist() == [None]
