"""Events to CSV's fast paths give the bytes of the paths they stand for.

- copy_pages decodes a copy's row group from its pages into the arrays pyarrow's read would give
  (values, nulls, list items and their nulls, a dictionary's words), on files written as
  event_copies writes the copies (zstd, delta-packed integers, dictionary words) with every kind
  of null, many pages and row groups, and answers None (pyarrow then reads it) for a file in
  any other form: then csv_kernel.decoded_lines writes the lines `lines` writes from pyarrow's
  batch.
- a decoded row group's `variant` is variant_column's.
- `war query ... --format csv` of the events view with the decoder on and off: the same bytes.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import copy_pages, copy_scan, open_query
from pipeline.model.rules import build_rules
from pipeline.model.schema import GAME_ID_STRIDE
from pipeline.present import csv_text
from pipeline.present.csv_kernel import Room, decoded_lines, lines

pytestmark = pytest.mark.skipif(not copy_pages.enabled(), reason="libzstd is not on this machine: the decoder is off")


def write_copy(table: pa.Table, path: Path, rows: int, page_rows: int, compression: str = "zstd",
               version: str = "1.0", listed: bool = False) -> None:
    """A file written as event_copies._write writes a copy (its encodings), with row groups of
    `rows` rows and pages of at most `page_rows`; with `listed`, the items of its lists and its
    integers not delta-packed dictionary-coded too (as a copy's `cards`, `seats` and `seat`)."""
    words = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
    if listed:
        words += [f"{f.name}.list.element" for f in table.schema if pa.types.is_list(f.type)]
        words += [f.name for f in table.schema if pa.types.is_integer(f.type) and f.name.startswith("n")]
    delta = {f.name: "DELTA_BINARY_PACKED" for f in table.schema
             if pa.types.is_integer(f.type) and f.type.bit_width >= 32 and f.name.startswith("d")}
    pq.write_table(table, path, compression=compression, row_group_size=rows, use_dictionary=words,
                   column_encoding=delta or None, data_page_version=version, write_batch_size=page_rows,
                   data_page_size=1)


def decoded_as_arrow(group, names: list[str]) -> dict[str, list]:
    """A decoded group's columns as Python lists (None for a null), as pyarrow's to_pylist."""
    out = {}
    for name in names:
        col = group.columns[name]
        valid = group.valid[col.nulls] if col.nulls >= 0 else np.ones(group.rows, np.uint8)
        if col.form == copy_pages.FLAT:
            out[name] = [int(v) if ok else None for v, ok in zip(group.numbers[col.slot], valid)]
        elif col.form == copy_pages.WORDS:
            words = [bytes(col.text[col.offsets[i]:col.offsets[i + 1]]).decode() for i in range(len(col.offsets) - 1)]
            out[name] = [words[w - col.first] if ok else None for w, ok in zip(group.numbers[col.slot], valid)]
        else:
            rows = []
            for r in range(group.rows):
                if not valid[r]:
                    rows.append(None)
                    continue
                a, e = group.starts[col.slot][r], group.ends[col.slot][r]
                rows.append([int(group.items[i]) if group.item_valid[i] or not col.item_nulls else None
                             for i in range(a, e)])
            out[name] = rows
    return out


INTEGERS = [pa.int8(), pa.int16(), pa.int32(), pa.int64()]


@st.composite
def tables(draw):
    """Columns of the copies' kinds, each maybe with nulls: integers (delta-packed when named
    d...; negative and large too), dictionary words (quotes, commas, empty), lists of integers
    (null, empty, with null items)."""
    n = draw(st.integers(1, 300))
    columns = {}
    for i, type_ in enumerate(draw(st.lists(st.sampled_from(INTEGERS), min_size=1, max_size=3))):
        bound = 2 ** (type_.bit_width - 1)
        ints = st.integers(-bound, bound - 1) | st.integers(0, 60)
        nulls = draw(st.booleans())
        values = draw(st.lists(ints | st.none() if nulls else ints, min_size=n, max_size=n))
        columns[f"{'d' if type_.bit_width >= 32 and draw(st.booleans()) else 'n'}{i}"] = pa.array(values, type_)
    if draw(st.booleans()):
        text = st.sampled_from(["deal", "play", 'say "hi"', "a,b", "", "é"]) | st.none()
        columns["kind"] = pa.array(draw(st.lists(text, min_size=n, max_size=n)), pa.string()).dictionary_encode()
    for i in range(draw(st.integers(0, 2))):
        item = st.integers(-30000, 30000) | st.integers(0, 53) | st.none()
        lists = st.lists(item, max_size=6) | st.none() | st.just([])
        columns[f"l{i}"] = pa.array(draw(st.lists(lists, min_size=n, max_size=n)), pa.list_(pa.int16() if i else pa.int32()))
    return pa.table(columns), draw(st.integers(1, 120)), draw(st.integers(1, 50)), draw(st.booleans())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=tables())
@example(case=(pa.table({"n0": pa.array([0], pa.int8()),
                         "kind": pa.array([None], pa.string()).dictionary_encode()}), 1, 1, False))
@example(case=(pa.table({"l0": pa.array([[5], None, [], [None, 53], [7, 7, 7]] * 20, pa.list_(pa.int16()))}), 100, 9, True))
def test_decoded_as_pyarrow_reads_it(tmp_path_factory, case):
    """Every row group of a file written as the copies are: the decoder's values and nulls are
    pyarrow's, and its lines the lines of pyarrow's batch."""
    table, rows, page_rows, listed = case
    path = tmp_path_factory.mktemp("pages") / "c.parquet"
    write_copy(table, path, rows, page_rows, listed=listed)
    names = table.column_names
    room, other = Room(), Room()
    meta = pq.read_metadata(path)
    for g in range(meta.num_row_groups):
        group = copy_pages.read_group(str(path), g, names, room)
        assert group is not None
        # pyarrow's own read of a one-row group of dictionary-coded lists in pages of one value
        # fails (pyarrow 26: "expected length 1 but got length 0"; DuckDB reads it): the rows
        # written are the expectation then
        expected = pq.ParquetFile(path).read_row_group(g) if not listed else \
            table.slice(g * rows, rows).combine_chunks()
        got = decoded_as_arrow(group, names)
        for name in names:
            column = expected.column(name)
            want = column.cast(pa.string()).to_pylist() if pa.types.is_dictionary(column.type) else column.to_pylist()
            assert got[name] == want, name
        batch = pa.RecordBatch.from_arrays([expected.column(n).combine_chunks() for n in names], names=names)
        twice = names + names[:1]  # a column twice, as `SELECT *, game_id` asks
        assert bytes(decoded_lines(group, names, room)) == bytes(lines(batch, other))
        again = pa.RecordBatch.from_arrays([expected.column(n).combine_chunks() for n in twice], names=twice)
        assert bytes(decoded_lines(group, twice, room)) == bytes(lines(again, other))


@pytest.mark.parametrize("form", ["snappy", "version 2 pages", "unsigned", "plain words", "a struct"])
def test_other_forms_are_left_to_pyarrow(tmp_path, form):
    """A file in a form the decoder does not know: read_group answers None, never other values."""
    n = 50
    table = pa.table({"d0": pa.array(range(n), pa.int64()), "kind": pa.array(["a", "b"] * 25).dictionary_encode()})
    names = ["d0", "kind"]
    compression, version = "zstd", "1.0"
    if form == "snappy":
        compression = "snappy"
    elif form == "version 2 pages":
        version = "2.0"
    elif form == "unsigned":
        table = table.append_column("u", pa.array(range(n), pa.uint32()))
        names = ["u"]
    elif form == "plain words":
        table = table.append_column("s", pa.array(["x"] * n))
        names = ["s"]
    else:
        table = table.append_column("t", pa.array([{"a": 1}] * n))
        names = ["t"]
    path = tmp_path / "c.parquet"
    write_copy(table, path, n, 10, compression=compression, version=version)
    assert copy_pages.read_group(str(path), 0, names, Room()) is None


def test_a_column_of_nulls_and_an_empty_table(tmp_path):
    """Words that are all null (a dictionary of no words) and a list column of nulls alone."""
    table = pa.table({"kind": pa.array([None] * 30, pa.string()).dictionary_encode(),
                      "l": pa.array([None] * 30, pa.list_(pa.int16())), "d0": pa.array(range(30), pa.int64())})
    path = tmp_path / "c.parquet"
    write_copy(table, path, 30, 7)
    room = Room()
    group = copy_pages.read_group(str(path), 0, table.column_names, room)
    if group is not None:  # or pyarrow reads it: either way the same lines
        batch = pq.ParquetFile(path).read_row_group(0).to_batches()[0]
        assert bytes(decoded_lines(group, table.column_names, room)) == bytes(lines(batch, Room()))


def test_variant_of_a_decoded_group_is_variant_columns(tmp_path):
    """A row group of one rule set, of two, and of a rule set the manifest lacks, and game_ids
    with nulls: the decoded `variant` is variant_column's."""
    variants = {0: "classic", 1: "jokers"}
    cases = [[0, 1, 5], [3, GAME_ID_STRIDE + 1, 2 * GAME_ID_STRIDE, 7], [2 * GAME_ID_STRIDE] * 3, [None, 1, GAME_ID_STRIDE]]
    for i, ids in enumerate(cases):
        table = pa.table({"game_id": pa.array(ids, pa.int64())})
        path = tmp_path / f"v{i}.parquet"
        write_copy(table, path, len(ids), 2)
        room = Room()
        group = copy_pages.read_group(str(path), 0, ["game_id"], room, spare=1)
        copy_scan._decoded_variant(group, variants)
        got = decoded_as_arrow(group, ["variant"])["variant"]
        assert got == copy_scan.variant_column(table.column("game_id").combine_chunks(), variants).cast(pa.string()).to_pylist()


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """Games of two variants, a copy each, row groups of several pages."""
    out = tmp_path_factory.mktemp("fast") / "ds"
    generate(out, [Plan(build_rules("classic"), 120), Plan(build_rules("steal"), 40,
                                                          policies=("steal:always", "steal:never"))], seed=5)
    return out


def test_the_events_view_decoded_or_read_by_pyarrow(root, monkeypatch):
    """The events view's CSV with the decoder and without it (pyarrow reads every row group):
    the same bytes, and DuckDB's own (the fast path off entirely) too."""
    sqls = ["SELECT * FROM events", "SELECT variant, cards, kind, seq AS s, seq, note FROM events"]
    for sql in sqls:
        with open_query(root, sql=sql) as result:
            scan = copy_scan.scan_of(result)
            assert scan is not None
            parts = scan.parts()
            room = Room()
            assert all(read.decode(room) is not None for _, read in parts)  # the copies are the decoder's
            decoded = io.BytesIO()
            csv_text.write_parts(scan.names, parts, decoded, workers=2)
        monkeypatch.setattr(copy_pages, "read_group", lambda *a, **k: None)
        with open_query(root, sql=sql) as result:
            scan = copy_scan.scan_of(result)
            by_pyarrow = io.BytesIO()
            csv_text.write_parts(scan.names, scan.parts(), by_pyarrow, workers=1)
        monkeypatch.undo()
        assert decoded.getvalue() == by_pyarrow.getvalue()
    command = [sys.executable, "-m", "pipeline.cli", "query", str(root), "--sql", sqls[0], "--format", "csv"]
    fast = subprocess.run(command, capture_output=True, timeout=300)
    assert fast.returncode == 0, fast.stderr
    duck = subprocess.run(command[:-4] + ["--sql", sqls[0] + " LIMIT 100000000", "--format", "csv"],
                          capture_output=True, timeout=300)
    assert duck.returncode == 0, duck.stderr
    assert fast.stdout == duck.stdout
