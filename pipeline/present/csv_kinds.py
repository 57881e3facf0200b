"""Which columns the compiled CSV writer writes, and how (csv_text.py writes, csv_kernel.py
formats): a module of its own, read by both, so neither imports the other to know a kind."""

from __future__ import annotations

import pyarrow as pa

# how a column's cells are written (csv_kernel's kinds)
INT, UINT, BOOL, TEXT, LIST, ULIST = 0, 1, 2, 3, 4, 5


def _list_value(t: pa.DataType) -> pa.DataType | None:
    """The value type of a list-like type, None for any other type."""
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t) \
            or pa.types.is_large_list_view(t):
        return t.value_type
    return None


def _text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)


def kind(t: pa.DataType) -> int | None:
    """How a column of Arrow type `t` is written, None when this writer does not write it."""
    if pa.types.is_boolean(t):
        return BOOL
    if pa.types.is_integer(t):
        return UINT if t == pa.uint64() else INT
    if _text(t) or (pa.types.is_dictionary(t) and _text(t.value_type)):
        return TEXT
    value = _list_value(t)
    if value is not None and pa.types.is_integer(value):
        return ULIST if value == pa.uint64() else LIST
    return None


def supported(schema: pa.Schema) -> bool:
    """Whether this writer writes every column of `schema` (else pyarrow's writer must)."""
    return all(kind(f.type) is not None for f in schema)
