"""Printing or saving a query result as a table, CSV, JSON, JSON Lines or Parquet.

Every format streams: Arrow record batches go from DuckDB straight to the writer, so memory
stays flat whatever the result's size. A file given as `output` is written under a hidden
temporary name and renamed into place only when complete.
"""

from __future__ import annotations

import math
import os
import shutil
import sys
import textwrap
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

import numpy as np
import pyarrow as pa

from ..errors import QueryError
from ..storage.files import atomic_file
from ..jobs.query import Result, parquet_refusal
from ..model.plural import plural

FORMATS = ("table", "csv", "json", "jsonl", "parquet")
TABLE_ROWS = 40  # rows a table shows unless told otherwise, as the duckdb shell
CELL_WIDTH = 40  # a longer cell is cut, marked with …
PAGE_ROWS = 1000  # `all` rows: column widths come from the first page
UNCUT = 1 << 30  # the width of a table written to a file: no column cut
AHEAD_ROWS = 10_000  # a table of at most a page reads this many rows in its one pass: a result this long is told whole
SHOWN_CHARS = 4 * CELL_WIDTH  # of a text, the characters a table carries out of DuckDB


# ---------------------------------------------------------------- files


@contextmanager
def _sink(output: Path | None) -> Iterator[BinaryIO]:
    """stdout, or a file that appears under its name only once complete."""
    if output is None:
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    output = Path(output)
    if output.is_dir():
        raise QueryError(f"{str(output)!r} is a folder; give a file name", params=("output",))
    with atomic_file(output) as f:
        yield f


def _text_bytes(array: pa.Array) -> memoryview:
    """The bytes of a fresh string array's values, back to back (no Python string per row)."""
    if len(array) == 0:
        return memoryview(b"")
    offsets = np.frombuffer(array.buffers()[1], np.int64 if pa.types.is_large_string(array.type) else np.int32)
    start, end = int(offsets[array.offset]), int(offsets[array.offset + len(array)])
    return memoryview(array.buffers()[2])[start:end]


def csv_chunks(batches) -> Iterator[bytes]:
    """CSV text, a header then each batch (of `Result.csv_batches`), as it comes. By pyarrow's
    writer: a server that streams a result keeps its memory (numba and the compiled writer
    would add some 140 MB to it)."""
    import pyarrow.csv as pacsv

    first = True
    for batch in batches:
        sink = pa.BufferOutputStream()
        pacsv.write_csv(pa.Table.from_batches([batch]), sink,
                        pacsv.WriteOptions(include_header=first))
        first = False
        yield sink.getvalue().to_pybytes()
    if first:  # no batch: the header alone
        sink = pa.BufferOutputStream()
        pacsv.write_csv(batches.schema.empty_table(), sink)
        yield sink.getvalue().to_pybytes()


class _Counted:
    """A result's batches, each counted (`progress(rows)`) as it is handed on."""

    def __init__(self, batches, progress: Callable[[int], None] | None):
        self.batches, self.progress, self.schema = batches, progress, batches.schema

    def __iter__(self):
        for batch in self.batches:
            yield batch
            if self.progress is not None:
                self.progress(batch.num_rows)


def write_csv(result: Result, sink: BinaryIO, limit: int | None, progress=None) -> None:
    """By csv_text's compiled writer when every column is of a type it writes (its lists of
    integers straight from Arrow, not as DuckDB's JSON text), else by pyarrow's: the same bytes.
    The events view's columns as they are (copy_scan) are read from its copies by the writer's
    threads, without DuckDB."""
    from . import csv_text
    from ..jobs.query import copy_scan

    native = result.csv_native()
    if native and limit is None and csv_text.compiled():
        scan = copy_scan.scan_of(result)  # the events view as it is: read from its copies, not DuckDB
        if scan is not None and scan.rows() > csv_text.SMALL_ROWS:
            csv_text.write_parts(scan.names, scan.parts(), sink, progress)
            return
    batches = result.csv_batches(limit, native=native)
    if csv_text.supported(batches.schema):
        csv_text.write(batches, sink, progress)
        return
    import pyarrow.csv as pacsv

    reader = _Counted(batches, progress)
    with pacsv.CSVWriter(sink, reader.schema) as writer:
        for batch in reader:
            writer.write_batch(batch)


def json_chunks(batches, lines: bool) -> Iterator[bytes | memoryview]:
    """JSON Lines (one object a line) or JSON (an array, one object a line) from the batches of
    `Result.json_lines`, as they come."""
    import pyarrow.compute as pc  # here, not for every table: 0.05 s of a command's start

    first = True
    if not lines:
        yield b"["
    for batch in batches:
        if batch.num_rows == 0:
            continue
        rows = batch.column(0)
        if lines:
            yield _text_bytes(pc.binary_join_element_wise(rows, "", "\n"))
            continue
        text = _text_bytes(pc.binary_join_element_wise(",\n", rows, ""))
        yield b"\n" + bytes(text[2:]) if first else text
        first = False
    if not lines:
        yield b"]\n" if first else b"\n]\n"


def write_json(result: Result, sink: BinaryIO, limit: int | None, lines: bool, progress=None) -> None:
    """JSON Lines: one object a line. JSON: an array, one object a line."""
    for chunk in json_chunks(_Counted(result.json_lines(limit), progress), lines):
        sink.write(chunk)


def write_parquet(result: Result, sink: BinaryIO, limit: int | None, progress=None) -> None:
    import pyarrow.parquet as pq

    reader = _Counted(result.batches(limit), progress)
    refused = parquet_refusal(reader.schema, result.columns)
    if refused is not None:
        raise refused
    with pq.ParquetWriter(sink, reader.schema, compression="zstd") as writer:
        for batch in reader:
            writer.write_batch(batch)


# ---------------------------------------------------------------- the table


def _cell(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4g}" if abs(value) < 1e6 else f"{value:.6g}"
    if isinstance(value, list):
        return "[" + ", ".join(_cell(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_cell(v)}" for k, v in value.items()) + "}"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).replace("\n", "\\n").replace("\t", "\\t")


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(width - 1, 0)] + "…"


def _numeric(t: pa.DataType) -> bool:
    return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)


class _Layout:
    """Which columns fit the width, and how wide each is, from the header and the first rows."""

    columns: "_Columns | None" = None  # which of the result's columns, in which order

    def __init__(self, schema: pa.Schema, rows: list[list[str]], width: int) -> None:
        names = schema.names
        wanted = [min(CELL_WIDTH, max([len(n)] + [len(r[i]) for r in rows])) for i, n in enumerate(names)]
        self.right = [_numeric(f.type) for f in schema]
        self.shown, used = 0, 0
        for w in wanted:
            extra = w + (2 if self.shown else 0)
            if self.shown and used + extra + 3 > width and self.shown < len(names):
                break
            used += extra
            self.shown += 1
        if self.shown == len(names) - 1 and used + 2 + wanted[-1] <= width:
            self.shown = len(names)
        self.widths = wanted[:self.shown]
        if self.shown == 1 and self.widths[0] > width:
            self.widths[0] = max(width - (3 if len(names) > 1 else 0), 1)
        self.hidden = names[self.shown:]

    def line(self, cells: list[str]) -> str:
        parts = []
        for text, w, right in zip(cells, self.widths, self.right):
            text = _cut(text, w)
            parts.append(text.rjust(w) if right else text.ljust(w))
        if self.hidden:
            parts.append("…")
        return "  ".join(parts).rstrip()


def terminal_width() -> int:
    """The width a table on standard output is fit to: COLUMNS when set, else the terminal's;
    standard output that is no terminal (`war query ... > FILE`, a pipe) cuts no column, as a
    table written to `--output FILE` does."""
    if not os.environ.get("COLUMNS", "").strip().isdigit() and not _is_terminal(sys.stdout):
        return UNCUT
    return shutil.get_terminal_size((80, 24)).columns


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):  # no stream, or a closed one
        return False


LABELS = ("rule_set", "rules_name")  # a column that names a row's rule set, shown first
IDENTIFYING = ("rule_set", "rules_name", "variant", "rules_id", "policies")  # said by the label: shown after the answer


class _Columns:
    """Which of a result's columns a table shows, in which order, and which it leaves out as
    holding one value in every row (said in a note below the table).

    Chosen columns (`columns`) are shown as chosen. Otherwise a column with one value in every
    row of a result of two rows or more is left out (unless every column is), and where a
    column naming the rule set (`rule_set`, else `rules_name`) is left, it comes first, then
    the answer, then the columns that only identify the rule set further (`variant`,
    `rules_id`, `policies`)."""

    def __init__(self, names: list[str], order: list[int], same: dict[int, str]) -> None:
        self.order, self.same = order, same
        self.names = [names[i] for i in order]

    @classmethod
    def of(cls, names: list[str], same: dict[int, str], chosen: bool) -> "_Columns":
        if chosen:
            return cls(names, list(range(len(names))), {})
        kept = [i for i in range(len(names)) if i not in same]
        if not kept:
            kept, same = list(range(len(names))), {}
        label = next((i for n in LABELS for i in kept if names[i] == n), None)
        if label is None:
            return cls(names, kept, same)
        others = [i for i in kept if i != label]
        answer = [i for i in others if names[i] not in IDENTIFYING]
        return cls(names, [label] + answer + [i for i in others if names[i] in IDENTIFYING], same)

    def note(self, names: list[str]) -> str | None:
        if not self.same:
            return None
        return "same in every row: " + ", ".join(f"{names[i]} = {_cut(text, CELL_WIDTH)}"
                                                 for i, text in sorted(self.same.items()))


def _one_value(columns: list[list], rows: int) -> list[int]:
    """The positions of the columns whose first `rows` values are all equal (a text as long as
    the table carries out of DuckDB, which may have been cut, is never said to be)."""
    return [i for i, values in enumerate(columns)
            if not (isinstance(values[0], str) and len(values[0]) >= SHOWN_CHARS)
            and all(v == values[0] and type(v) is type(values[0]) for v in values[1:rows])]


def _held(result: Result, positions: list[int], first: list[list], rest: list) -> set[int]:
    """Which of the columns at `positions`, of one value in `first`, hold it in every row of the
    batches `rest` too: Result.constant's answer from the rows in hand (a column of a type DuckDB
    does not order is never said to be one value; a null is a value as DuckDB's count tells it).
    Only those columns are turned into Python values."""
    from ..jobs.query.stream import ORDERED, _plain

    types = result.relation.types
    return {i for i in positions if _plain(types[i], ORDERED)
            and all(v == first[i][0] and type(v) is type(first[i][0])
                    for batch in rest for v in batch.column(i).to_pylist())}


def write_table(result: Result, sink: BinaryIO, limit: int | None, width: int | None = None,
                chosen: bool = False) -> None:
    """The first `limit` rows (None: all of them) as a table fitted to `width` columns (cut
    columns are marked … and named below it), then how many rows the result has, and which
    columns it left out as holding one value in every row (_Columns; none of `chosen` ones).
    The rows are printed as soon as the table knows its columns: after the first page of them,
    and, when the result has more rows than that page, one pass over it in DuckDB that tells
    whether the columns of one value in the page hold it in every row (and counts the rows).
    A table of at most a page (the 40 rows shown unless told) reads up to AHEAD_ROWS rows in the
    same pass: a result of no more is then told whole from them, without a second."""
    width = width or terminal_width()
    if limit is not None and limit <= PAGE_ROWS:
        fetch = max(AHEAD_ROWS, limit) + 1  # one more: whether the rows read are the whole result
    else:
        fetch = None if limit is None else limit + 1  # one more: whether the rows shown are the whole result
    reader = result.batches(limit) if result.explain else result.shown_batches(fetch, SHOWN_CHARS)
    schema = reader.schema
    batches = iter(reader)
    if result.explain:
        for batch in batches:
            for plan in batch.column(batch.num_columns - 1).to_pylist():
                sink.write((plan.rstrip("\n") + "\n").encode())
        return
    page = PAGE_ROWS if limit is None else min(limit, PAGE_ROWS)
    first: list[list] = [[] for _ in schema.names]  # the first page, column by column
    after: list = []  # the batches of rows read beyond `limit` (fetch), as they came
    total, layout, shown, counted = 0, None, 0, None
    for batch in batches:
        total += batch.num_rows
        want = (limit - shown) if limit is not None else batch.num_rows
        if want < batch.num_rows and fetch is not None and fetch > (limit or 0) + 1:
            after.append(batch.slice(want))
        if want <= 0:
            continue
        part = batch.slice(0, want) if want < batch.num_rows else batch
        shown += part.num_rows
        values = [column.to_pylist() for column in part.columns]
        if layout is None:
            for kept, more in zip(first, values):
                kept.extend(more)
            if len(first[0]) < page or (limit is not None and limit <= PAGE_ROWS):
                continue  # the page is not full yet, or the rows after it are at most one, read before the header
            counted, layout = _begin(sink, result, schema, first, width, chosen, whole=False, ended=False)
            values, first = first, None
        sink.write("".join(layout.line([_cell(c[r]) for c in (values[i] for i in layout.columns.order)]) + "\n"
                           for r in range(len(values[0]) if values else 0)).encode())
    if layout is None:
        whole = limit is None or total <= limit
        rest = after if not whole and total < fetch else None  # every row is in hand
        counted, layout = _begin(sink, result, schema, first, width, chosen, whole=whole, ended=True, rest=rest)
        sink.write("".join(layout.line([_cell(first[i][r]) for i in layout.columns.order]) + "\n"
                           for r in range(len(first[0]) if first else 0)).encode())
    sink.flush()
    if counted is not None:
        total = counted
    elif limit is not None and total > limit:
        total = result.count()  # a second, lighter run: DuckDB reads no column it need not count
    rows = plural(total, "row")
    if shown < total:
        rows += f" ({shown:,} shown)"
    lines = [rows]
    if layout.hidden:
        lines += textwrap.wrap(f"… {len(layout.hidden)} more column{'s' if len(layout.hidden) > 1 else ''}: "
                               + ", ".join(layout.hidden), max(width, 40), subsequent_indent="  ")
    note = layout.columns.note(schema.names)
    if note:
        lines += textwrap.wrap(note, max(width, 40), subsequent_indent="  ")
    sink.write("".join(line + "\n" for line in lines).encode())


def _begin(sink: BinaryIO, result: Result, schema: pa.Schema, first: list[list], width: int, chosen: bool,
           whole: bool, ended: bool, rest: list | None = None) -> tuple[int | None, "_Layout"]:
    """The table's columns from its first page of rows (`first`, column by column; `whole`: the
    result's every row), its header written; and the result's row count when it took a pass
    over the result to tell its columns of one value (None when it did not). The pass needs the
    rows' stream `ended` (DuckDB runs one query at a time a connection): a table whose rows go on
    after its first page (`--all`, a `--limit` over PAGE_ROWS) leaves out no column. `rest`, the
    batches of the result's rows after `first` when every one was read: the pass is then made
    here (_held)."""
    rows = len(first[0]) if first else 0
    same, counted = [], None
    if not chosen and rows >= 2 and (whole or ended):
        same = _one_value(first, rows)
        if same and not whole:
            if rest is not None:
                counted, held = rows + sum(b.num_rows for b in rest), _held(result, same, first, rest)
            else:
                counted, held = result.constant(same)
            same = [i for i in same if i in held]
    if counted is None and rest is not None:
        counted = rows + sum(b.num_rows for b in rest)
    columns = _Columns.of(schema.names, {i: _cell(first[i][0]) for i in same}, chosen)
    shown = pa.schema([schema.field(i) for i in columns.order])
    layout = _Layout(shown, [[_cell(first[i][r]) for i in columns.order] for r in range(rows)], width)
    layout.columns = columns
    header = layout.line(shown.names)
    rule = "  ".join("─" * w for w in layout.widths) + ("  …" if layout.hidden else "")
    sink.write((header + "\n" + rule + "\n").encode())
    return counted, layout


# ---------------------------------------------------------------- any format


def write_result(result: "Result | pa.Table", fmt: str, output: Path | None = None,
                 limit: int | None = None, all_rows: bool = False, width: int | None = None,
                 progress: Callable[[int], None] | None = None, columns: "str | list[str] | None" = None) -> None:
    """Write `result` in `fmt` to `output` (None: stdout). `limit` caps the rows of any format; a
    table shows TABLE_ROWS unless `limit` is given or `all_rows`. `progress(rows)` is called as
    each batch of rows of a CSV, JSON or Parquet result is written. `columns` (names, or a text
    `a,b,c`) chooses the columns written and their order, in any format; without it a CSV, JSON
    or Parquet result has every column in the query's order, and a table shows the answer first
    and leaves out the columns of one value in every row, saying so (_Columns)."""
    if isinstance(result, pa.Table):
        result = Result.of_table(result)
    with result:
        if columns is not None:
            result.choose(columns)
        if fmt not in FORMATS:
            raise QueryError(f"unknown format {fmt!r} (formats: {', '.join(FORMATS)})")
        if fmt == "parquet" and output is None:
            raise QueryError("parquet needs `output` FILE", params=("output",))
        if limit is not None and limit < 0:
            raise QueryError(f"`limit` must be 0 or more, got {limit}", params=("limit",))
        if fmt == "table" and limit is None and not all_rows:
            limit = TABLE_ROWS
        with _sink(output) as sink:
            if fmt == "csv":
                write_csv(result, sink, limit, progress)
            elif fmt in ("json", "jsonl"):
                write_json(result, sink, limit, lines=fmt == "jsonl", progress=progress)
            elif fmt == "parquet":
                write_parquet(result, sink, limit, progress)
            else:
                # a table written to a file is cut to no terminal's width: every column is kept
                write_table(result, sink, limit, width or (UNCUT if output is not None else None),
                            chosen=columns is not None)
