"""Parquet files of a dataset: Arrow schemas derived from the models, atomic writes, checksums.

Every write goes to a hidden temporary name in the target folder and is renamed into place,
so a reader never sees half a file (DuckDB and pyarrow skip names starting with `.`). On remote
storage the same functions take a location.StorePath, which puts a file whole its own way.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from typing import Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from .engine import EventTuple
from .errors import DatasetError
from .location import is_remote, temporary_name
from . import logcodec
from .schema import SCHEMA_VERSION, ENGINE_VERSION, GameRecord, LogRow, arrow_fields

ROW_GROUP_ROWS = 1 << 20  # a default shard's events fit in one row group


def _arrow_type(text: str) -> pa.DataType:
    if text.startswith("list<"):
        return pa.list_(_arrow_type(text[5:-1]))
    if text == "dictionary<string>":
        return pa.dictionary(pa.int32(), pa.string())
    return {"int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(), "int64": pa.int64(),
            "uint64": pa.uint64(), "bool": pa.bool_(), "string": pa.string()}[text]


def arrow_schema(model) -> pa.Schema:
    fields = [pa.field(name, _arrow_type(t), nullable=nullable) for name, t, nullable in arrow_fields(model)]
    return pa.schema(fields, metadata={"war.schema_version": str(SCHEMA_VERSION),
                                       "war.engine_version": ENGINE_VERSION,
                                       "war.table": model.__name__})


EVENT_SCHEMA = arrow_schema(LogRow)
GAME_SCHEMA = arrow_schema(GameRecord)


def _dictionary(values: list, schema_field: pa.Field) -> pa.Array:
    arr = pa.array(values, type=pa.string())
    return arr.dictionary_encode().cast(schema_field.type)


def events_table(game_ids: list[int], logs: list[list[EventTuple]]) -> pa.Table:
    """The rows of `events/` files for these games' logs (one row per battle), ordered by (game, seq)."""
    return rows_table(game_ids, (logcodec.encode(log) for log in logs))


def rows_table(game_ids: list[int], games_rows) -> pa.Table:
    """The `events/` table of games already encoded (logcodec.encode of each game's log)."""
    gid: list[int] = []
    seq: list[int] = []
    battle: list[int] = []
    shape: list[str] = []
    cards: list[list[int]] = []
    order: list[list[int]] = []
    for g, rows in zip(game_ids, games_rows):
        gid.extend([g] * len(rows))
        for r in rows:
            seq.append(r.seq)
            battle.append(r.battle)
            shape.append(r.shape)
            cards.append(r.cards)
            order.append(r.order)
    f = EVENT_SCHEMA
    arrays = [
        pa.array(gid, pa.int64()), pa.array(seq, pa.int32()), pa.array(battle, pa.int32()),
        _dictionary(shape, f.field("shape")),
        pa.array(cards, pa.list_(pa.int16())), pa.array(order, pa.list_(pa.int16())),
    ]
    return pa.Table.from_arrays(arrays, schema=EVENT_SCHEMA)


def games_table(records: list[dict]) -> pa.Table:
    columns = {name: [r[name] for r in records] for name in GAME_SCHEMA.names}
    arrays = []
    for field in GAME_SCHEMA:
        if pa.types.is_dictionary(field.type):
            arrays.append(_dictionary(columns[field.name], field))
        else:
            arrays.append(pa.array(columns[field.name], field.type))
    return pa.Table.from_arrays(arrays, schema=GAME_SCHEMA)


def _lists(column) -> list[tuple]:
    """A list<int> column as tuples, through flat values and offsets (far faster than to_pylist)."""
    arr = column.combine_chunks() if hasattr(column, "combine_chunks") else column
    values = arr.values.to_numpy(zero_copy_only=False).tolist()
    offsets = arr.offsets.to_numpy().tolist()
    return [tuple(values[a:b]) for a, b in zip(offsets, offsets[1:])]


def _plain(column) -> list:
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    return column.to_pylist()


def log_rows(table: pa.Table):
    return zip(_plain(table.column("game_id")), _plain(table.column("seq")), _plain(table.column("battle")),
               _plain(table.column("shape")), _lists(table.column("cards")), _lists(table.column("order")))


def rows_by_game(table: pa.Table) -> dict[int, list[tuple]]:
    """Each game's rows (seq, battle, shape, cards, order), still encoded. CodecError when a
    game's rows are not together, as the writer sorts them."""
    rows: dict[int, list] = {}
    last = None
    for gid, *row in log_rows(table):
        if gid != last:
            if gid in rows:
                raise logcodec.CodecError(f"rows not sorted by game: game {gid} appears again after game {last}",
                                          row[0], gid)
            rows[gid] = []
            last = gid
        rows[gid].append(row)
    return rows


def game_logs(table: pa.Table) -> dict[int, list[EventTuple]]:
    """Every game's events from rows of `events/` files (each game's rows in seq order).
    Raises logcodec.CodecError for a row that no log encodes to."""
    return {gid: logcodec.decode(r) for gid, r in rows_by_game(table).items()}


def event_tuples(table: pa.Table) -> list[EventTuple]:
    """The events of one game's rows, as the engine's tuples."""
    return logcodec.decode(row for _, *row in log_rows(table))


def _open_read(path):
    return path.open_stream() if is_remote(path) else open(path, "rb")


def sha256_file(path) -> str:
    h = hashlib.sha256()
    with _open_read(path) as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def atomic_write_bytes(path, data) -> str:
    """Write a whole file under its name, never a part of it: a hidden temporary name, fsynced,
    then renamed (StorePath.put for a URI). Returns the SHA-256 of `data`."""
    if path.is_dir():
        raise DatasetError(f"{str(path)!r} is a folder; give a file name")
    digest = hashlib.sha256(data).hexdigest()
    if is_remote(path):
        path.put(data)
        return digest
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_name(path)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
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
