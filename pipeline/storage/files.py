"""Parquet files of a dataset: Arrow schemas derived from the models, atomic writes, checksums.

Every write goes to a hidden temporary name in the target folder and is renamed into place,
so a reader never sees half a file (DuckDB and pyarrow skip names starting with `.`). On remote
storage the same functions take a location.StorePath, which puts a file whole its own way.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from contextlib import contextmanager
from typing import BinaryIO, Iterable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import DatasetError, storage_error
from .location import is_remote, temporary_name

ROW_GROUP_ROWS = 1 << 20  # a default shard's events fit in one row group


def _open_read(path):
    return path.open_stream() if is_remote(path) else open(path, "rb")


def sha256_file(path) -> str:
    h = hashlib.sha256()
    with _open_read(path) as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@contextmanager
def atomic_file(path) -> Iterator[BinaryIO]:
    """A local file to write that appears under its name only once whole: written under a hidden
    temporary name, fsynced, then renamed; on any failure (Ctrl-C too) the temporary file is
    removed and nothing appears."""
    tmp = temporary_name(path)
    try:
        with open(tmp, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise


def atomic_write_bytes(path, data) -> str:
    """Write a whole file under its name, never a part of it (atomic_file; StorePath.put for a
    URI). Returns the SHA-256 of `data`."""
    if path.is_dir():
        raise DatasetError(f"{str(path)!r} is a folder; give a file name")
    digest = hashlib.sha256(data).hexdigest()
    if is_remote(path):
        path.put(data)
        return digest
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_file(path) as f:
            f.write(data)
    except OSError as err:
        raise storage_error(err, path) from None
    return digest


def remove_tree(path) -> None:
    if is_remote(path):
        path.remove_tree()
    else:
        shutil.rmtree(path, ignore_errors=True)


# Encodings that beat dictionary + zstd on our columns: steady deltas for the row numbers, and
# byte stream split for card codes and orders, whose one significant byte zstd then entropy-codes.
ENCODINGS = {"seq": "DELTA_BINARY_PACKED", "battle": "DELTA_BINARY_PACKED",
             "cards.list.element": "BYTE_STREAM_SPLIT", "order.list.element": "BYTE_STREAM_SPLIT"}


def _leaf(field: pa.Field) -> str:
    return f"{field.name}.list.element" if pa.types.is_list(field.type) else field.name


def write_parquet(table: pa.Table, path, sort_key: Iterable[str] = ()) -> str:
    """Write zstd Parquet atomically; return its SHA-256. The file is built in memory (a shard's
    is a few MB), so its checksum comes from the bytes written, not from reading them back."""
    leaves = [_leaf(f) for f in table.schema]
    buf = pa.BufferOutputStream()
    pq.write_table(
        table, buf, compression="zstd", compression_level=6,
        row_group_size=ROW_GROUP_ROWS, write_statistics=True,
        use_dictionary=[leaf for leaf in leaves if leaf not in ENCODINGS],
        column_encoding={leaf: ENCODINGS[leaf] for leaf in leaves if leaf in ENCODINGS} or None,
        sorting_columns=[pq.SortingColumn(table.schema.get_field_index(k)) for k in sort_key] or None,
    )
    return atomic_write_bytes(path, buf.getvalue())


def read_parquet(path, filters=None, columns=None) -> pa.Table:
    try:
        if is_remote(path):
            return pq.read_table(path.path, filesystem=path.fs, filters=filters, columns=columns)
        return pq.read_table(path, filters=filters, columns=columns)
    except FileNotFoundError:
        raise DatasetError(f"missing data file {str(path)!r}") from None
    except (pa.ArrowInvalid, OSError) as err:
        raise DatasetError(f"cannot read {str(path)!r}: {err}") from None


def parquet_file(path) -> pq.ParquetFile:
    """A Parquet file's metadata and schema without reading its data."""
    return pq.ParquetFile(path.open_input() if is_remote(path) else path)
