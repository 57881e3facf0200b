"""Printing or saving a query result as a table, CSV, JSON, JSON Lines or Parquet.

Every format streams: Arrow record batches go from DuckDB straight to the writer, so memory
stays flat whatever the result's size. A file given as `output` is written under a hidden
temporary name and renamed into place only when complete.
"""

from __future__ import annotations

import math
import shutil
import sys
import textwrap
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import QueryError
from ..storage.files import atomic_file
from ..jobs.query import Result, parquet_refusal
from ..model.words import plural

FORMATS = ("table", "csv", "json", "jsonl", "parquet")
TABLE_ROWS = 40  # rows a table shows unless told otherwise, as the duckdb shell
CELL_WIDTH = 40  # a longer cell is cut, marked with …
PAGE_ROWS = 1000  # `all` rows: column widths come from the first page


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
    """CSV text, a header then each batch (of `Result.csv_batches`), as it comes."""
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
    import pyarrow.csv as pacsv

    reader = _Counted(result.csv_batches(limit), progress)
    with pacsv.CSVWriter(sink, reader.schema) as writer:
        for batch in reader:
            writer.write_batch(batch)


def json_chunks(batches, lines: bool) -> Iterator[bytes | memoryview]:
    """JSON Lines (one object a line) or JSON (an array, one object a line) from the batches of
    `Result.json_lines`, as they come."""
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
    return shutil.get_terminal_size((80, 24)).columns


def write_table(result: Result, sink: BinaryIO, limit: int | None, width: int | None = None) -> None:
    """The first `limit` rows (None: all of them) as a table fitted to `width` columns (cut
    columns are marked … and named below it), then how many rows the result has. The rows are
    printed as soon as they are in; the count comes after them."""
    width = width or terminal_width()
    reader = result.batches(limit) if result.explain else result.shown_batches(limit, 4 * CELL_WIDTH)
    schema = reader.schema
    batches = iter(reader)
    if result.explain:
        for batch in batches:
            for plan in batch.column(batch.num_columns - 1).to_pylist():
                sink.write((plan.rstrip("\n") + "\n").encode())
        return
    page = PAGE_ROWS if limit is None else min(limit, PAGE_ROWS)
    first: list[list[str]] = []
    total, layout, shown = 0, None, 0
    for batch in batches:
        total += batch.num_rows
        want = (limit - shown) if limit is not None else batch.num_rows
        if want <= 0:
            continue
        rows = batch.slice(0, want).to_pylist() if want < batch.num_rows else batch.to_pylist()
        shown += len(rows)
        cells = [[_cell(v) for v in r.values()] for r in rows]
        if layout is None:
            first.extend(cells)
            if len(first) < page:
                continue
            layout = _start(sink, schema, first, width)
            cells, first = first, []
        sink.write("".join(layout.line(c) + "\n" for c in cells).encode())
    if layout is None:
        layout = _start(sink, schema, first, width)
        sink.write("".join(layout.line(c) + "\n" for c in first).encode())
    sink.flush()
    if limit is not None and shown == limit:
        total = result.count()  # a second, lighter run: DuckDB reads no column it need not count
    rows = plural(total, "row")
    if shown < total:
        rows += f" ({shown:,} shown)"
    lines = [rows]
    if layout.hidden:
        lines += textwrap.wrap(f"… {len(layout.hidden)} more column{'s' if len(layout.hidden) > 1 else ''}: "
                               + ", ".join(layout.hidden), max(width, 40), subsequent_indent="  ")
    sink.write("".join(line + "\n" for line in lines).encode())


def _start(sink: BinaryIO, schema: pa.Schema, rows: list[list[str]], width: int) -> _Layout:
    layout = _Layout(schema, rows, width)
    header = layout.line(schema.names)
    rule = "  ".join("─" * w for w in layout.widths) + ("  …" if layout.hidden else "")
    sink.write((header + "\n" + rule + "\n").encode())
    return layout


# ---------------------------------------------------------------- any format


def write_result(result: "Result | pa.Table", fmt: str, output: Path | None = None,
                 limit: int | None = None, all_rows: bool = False, width: int | None = None,
                 progress: Callable[[int], None] | None = None) -> None:
    """Write `result` in `fmt` to `output` (None: stdout). `limit` caps the rows of any format; a
    table shows TABLE_ROWS unless `limit` is given or `all_rows`. `progress(rows)` is called as
    each batch of rows of a CSV, JSON or Parquet result is written."""
    if isinstance(result, pa.Table):
        result = Result.of_table(result)
    with result:
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
                write_table(result, sink, limit, width)
