"""Printing or saving a query result as a table, CSV, JSON or Parquet; files are written atomically."""

from __future__ import annotations

import io
import json
import math
import sys
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..storage.files import atomic_write_bytes


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4g}" if abs(value) < 1e6 else f"{value:.6g}"
    if isinstance(value, list):
        return "[" + " | ".join(_cell(v) for v in value) + "]"
    return str(value)


def _jsonable(value):
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    return str(value)


def render(table: pa.Table, fmt: str) -> bytes:
    if fmt == "csv":
        buf = io.BytesIO()
        pacsv.write_csv(table, buf)
        return buf.getvalue()
    if fmt == "json":
        rows = [_jsonable(r) for r in table.to_pylist()]
        return (json.dumps(rows, ensure_ascii=False, indent=1) + "\n").encode()
    if fmt == "parquet":
        buf = io.BytesIO()
        pq.write_table(table, buf, compression="zstd")
        return buf.getvalue()
    t = Table(show_edge=False, header_style="bold")
    for name in table.column_names:
        numeric = pa.types.is_integer(table.schema.field(name).type) or pa.types.is_floating(table.schema.field(name).type)
        t.add_column(name, justify="right" if numeric else "left")
    widths = [len(name) for name in table.column_names]
    for row in table.to_pylist():
        cells = [_cell(v) for v in row.values()]
        widths = [max(w, len(c)) for w, c in zip(widths, cells)]
        t.add_row(*(Text(c) for c in cells))
    buf = io.StringIO()
    Console(file=buf, width=max(80, sum(widths) + 3 * len(widths) + 2), color_system=None).print(t)
    return buf.getvalue().encode()


def write_result(table: pa.Table, fmt: str, output: Path | None) -> None:
    data = render(table, fmt)
    if output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    atomic_write_bytes(Path(output), data)
