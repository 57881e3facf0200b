"""Parquet files of a dataset: Arrow schemas derived from the models, atomic writes, checksums.

Every write goes to a hidden temporary name in the target folder and is renamed into place,
so a reader never sees half a file (DuckDB and pyarrow skip names starting with `.`). On remote
storage the same functions take a location.StorePath, which puts a file whole its own way.
"""

from __future__ import annotations

import ctypes
import glob
import hashlib
import os
import shutil
import stat
import sys
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import BinaryIO, Iterable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import DatasetError, storage_error
from ..model.inputs import not_regular
from .layout import inside_dataset, inside_refused
from .location import is_remote, real_path, sweep_temporaries, temporary_name

ROW_GROUP_ROWS = 1 << 20  # a default shard's events fit in one row group


def _open_read(path):
    if is_remote(path):
        return path.open_stream()
    regular(path)
    return open(path, "rb")


def regular(path) -> None:
    """Refuse (DatasetError) a local data file that is not a regular file: a FIFO in its place
    would block its reader forever, a device never end."""
    kind = not_regular(path)
    if kind is not None:
        raise DatasetError(f"{str(path)!r} is {kind}, not a file")


def sha256_file(path) -> str:
    h = hashlib.sha256()
    with _open_read(path) as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_output(path) -> None:
    """Refuse (DatasetError about `output`) a file to write inside a dataset's own files or
    journal (`DS/manifest.json`, `DS/games/...`, `DS/.war/...`): only war generate writes
    there, and a query's result over a manifest breaks the dataset. Elsewhere in a dataset's
    folder (`DS/report.html`) is the user's choice. So is a path through a loop of symbolic
    links or a link to nothing (location.real_path). Its missing folders are made when it is
    written (check_parents)."""
    found = inside_dataset(path, "output")
    if found is not None:
        raise DatasetError(inside_refused(path, "output", found, "file"), params=("output",))
    check_parents(path)


def check_parents(path, what: str = "output") -> None:
    """Every command makes the missing folders of an --output or --out when it writes it, as
    `mkdir -p` does; refused before any work (DatasetError about `what`) is only a path one of
    whose folders is a file, which no command could make."""
    if is_remote(path):
        return
    parent = Path(os.path.abspath(path)).parent
    while not parent.exists() and not parent.is_symlink() and parent != parent.parent:
        parent = parent.parent
    if parent.exists() and not parent.is_dir():
        raise DatasetError(f"`{what}` {str(path)!r} cannot be made: {str(parent)!r} is a file, not a folder",
                           params=(what,))


def make_parents(path) -> None:
    """Make the missing folders of the local `path` (check_parents), a failure said as one line."""
    if not is_remote(path):
        make_folder(Path(os.path.abspath(path)).parent)


def is_stream(path) -> bool:
    """Whether the local `path` (links followed) is a named pipe or a character device
    (/dev/stdout on a terminal or a pipe, /dev/null, a FIFO): an output written straight into,
    never replaced, so it needs no `overwrite`."""
    if is_remote(path):
        return False
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def _user_output(path):
    """Where a user's output file goes: a symbolic link is followed, so the file it points to is
    replaced and the link stays (the same as `out` for a dataset's folder); a socket or a block
    device is refused."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        mode = None
    if mode is not None and (stat.S_ISSOCK(mode) or stat.S_ISBLK(mode)):
        kind = "a socket" if stat.S_ISSOCK(mode) else "a block device"
        raise DatasetError(f"`output` {str(path)!r} is {kind}; give a file name", params=("output",))
    if os.path.islink(path):
        return type(path)(real_path(path, "output"))
    return path


@contextmanager
def _stream(path) -> Iterator[BinaryIO]:
    try:
        with open(path, "wb") as f:
            yield f
    except OSError as err:
        if isinstance(err, DatasetError) or err.errno is None:
            raise
        raise storage_error(err, path) from None


@contextmanager
def atomic_file(path, durable: bool = True, dataset: bool = False) -> Iterator[BinaryIO]:
    """A local file to write that appears under its name only once whole: written under a hidden
    temporary name, fsynced, then renamed; on any failure (Ctrl-C too) the temporary file is
    removed and nothing appears. A failure of the file being written (a full disk, a write
    error) is said as a StorageError naming `path`: the hidden name means nothing to a user.
    Only a dataset's own writer (`dataset`) writes inside a dataset's own files (check_output).

    With `durable=False` the file is handed to the disk but not waited for (start_writeback):
    the caller makes it durable later, with others, by make_durable at its own commit point.

    A user's output (not `dataset`) that is a stream (is_stream: /dev/stdout, a FIFO) is written
    straight into, and one that is a symbolic link replaces the file the link points to."""
    if not dataset:
        check_output(path)
        if is_stream(path):
            with _stream(path) as f:
                yield f
            return
        path = _user_output(path)
        make_parents(path)
        _sweep_dead_temporaries(path)
    tmp = temporary_name(path)
    try:
        with open(tmp, "wb") as f:
            yield f
            f.flush()
            if durable:
                os.fsync(f.fileno())
            else:
                start_writeback(f.fileno())
        os.replace(tmp, path)
    except BaseException as err:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        # the file's own failure: its hidden name, or none (a write() that found the disk full);
        # an OSError without an errno is a reader's (pyarrow's), which says its own file
        if isinstance(err, OSError) and not isinstance(err, DatasetError) and err.errno is not None \
                and err.filename in (None, str(tmp)):
            raise storage_error(err, path) from None
        raise


def _sweep_dead_temporaries(path: Path) -> None:
    """Remove the hidden files killed writers of `path` left (sweep_temporaries): each later write
    beside them left them be (a 54 MB `.ev.csv.PID.tmp`)."""
    try:
        sweep_temporaries(path.parent.glob(f".{glob.escape(path.name)}.*.tmp"))
    except OSError:  # a folder that cannot be listed: nothing swept
        pass


def atomic_write_bytes(path, data, durable: bool = True, dataset: bool = False) -> str:
    """Write a whole file under its name, never a part of it (atomic_file; StorePath.put for a
    URI). Returns the SHA-256 of `data`. `dataset`: the write is war's own, of a dataset's
    file (atomic_file)."""
    if path.is_dir():
        raise DatasetError(f"{str(path)!r} is a folder; give a file name")
    digest = hashlib.sha256(data).hexdigest()
    if is_remote(path):
        path.put(data)
        return digest
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_file(path, durable, dataset) as f:
            f.write(data)
    except OSError as err:
        if isinstance(err, DatasetError):
            raise
        raise storage_error(err, path) from None
    return digest


SYNC_FILE_RANGE_WRITE = 2  # Linux's sync_file_range flag: start writing the dirty pages, do not wait


@cache
def _libc():
    """The C library's sync_file_range and syncfs, on Linux with glibc; None elsewhere."""
    if sys.platform != "linux":
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.sync_file_range.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
        libc.syncfs.argtypes = [ctypes.c_int]
    except (OSError, AttributeError):
        return None
    return libc


def start_writeback(fd: int) -> None:
    """Ask the kernel to start writing a file's pages to the disk now, without waiting for them
    (Linux's sync_file_range): make_durable at the end then finds them written. Elsewhere
    nothing: make_durable fsyncs each file."""
    libc = _libc()
    if libc is not None:
        libc.sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE)  # advice: a failure here loses nothing


def make_durable(root, paths: Iterable[str]) -> None:
    """Wait until the files at `paths` (relative to the folder `root`) and their names are on the
    disk: one syncfs of root's file system on Linux, an fsync of each file and folder elsewhere.
    A dataset's commit point calls it before its manifest is written, so that the manifest never
    names a file a power cut could still take back. Nothing to do on remote storage, whose puts
    are whole when they return."""
    if is_remote(root):
        return
    libc = _libc()
    try:
        if libc is not None:
            fd = os.open(root, os.O_RDONLY)
            try:
                if libc.syncfs(fd) != 0:
                    err = ctypes.get_errno()
                    raise OSError(err, os.strerror(err), str(root))
            finally:
                os.close(fd)
            return
        folders = set()
        for rel in paths:
            _fsync_path(root / rel)
            folders.add((root / rel).parent)
        for folder in folders:
            _fsync_path(folder, folder=True)
    except OSError as err:
        raise storage_error(err, root) from None


def _fsync_path(path, folder: bool = False) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        if not folder:  # some systems cannot open or fsync a folder (Windows); a file must not fail
            raise


def make_folder(path, parents: bool = True, exist_ok: bool = True) -> None:
    """path.mkdir, its failure said as one line naming the folder (StorageError)."""
    try:
        path.mkdir(parents=parents, exist_ok=exist_ok)
    except OSError as err:
        raise storage_error(err, path, doing="create") from None


def remove_tree(path) -> None:
    if is_remote(path):
        path.remove_tree()
    else:
        shutil.rmtree(path, ignore_errors=True)


# How war writes its columns (any column not named: dictionary, zstd level 3, statistics).
# Encodings that beat dictionary + zstd on our columns: deltas for steady numbers (game numbers,
# battles and event counts a game), byte stream split for card codes (with the table positions
# of big takes after them), row numbers and battle numbers (whose few significant bytes zstd
# then entropy-codes), plain for random seeds (a dictionary of distinct values only adds its
# indices) and for game ids (zstd packs the events' runs of one id smaller than a dictionary's
# indices, in less time, and the games' ascending ids smaller than a dictionary too). Measured
# over 20,000 games of default Classic War and of winner_first (docs/decisions.md).
ENCODINGS = {"seq": "BYTE_STREAM_SPLIT", "battle": "BYTE_STREAM_SPLIT",
             "cards.list.element": "BYTE_STREAM_SPLIT",
             "game_id": "PLAIN", "game_index": "DELTA_BINARY_PACKED", "game_seed": "PLAIN",
             "battles": "DELTA_BINARY_PACKED", "events": "DELTA_BINARY_PACKED"}
# zstd level 3 compresses our columns within 1 % of level 6 in about half the time; row numbers
# too (level 5 packs them 25 % smaller, the files 1.9 % smaller, for 4 to 8 % more CPU in the
# events write). The card codes, split into byte streams, take level 1: the events table's write
# 6 % faster than at level 3, the files 0.3 % (default Classic War) to 0.5 % (winner_first) larger.
COMPRESSION_LEVEL = 3
COMPRESSION_LEVELS = {"cards.list.element": 1}
# Min/max statistics serve readers that skip row groups by key (a replay's game); over a list
# of card codes or a battle's shape they cost time and serve nobody.
NO_STATISTICS = {"shape", "cards.list.element"}


def _leaf(field: pa.Field) -> str:
    return f"{field.name}.list.element" if pa.types.is_list(field.type) else field.name


def parquet_options(schema: pa.Schema, sort_key: Iterable[str] = ()) -> dict:
    """pyarrow.parquet.write_table's options for a table of this schema, as war writes it. Pages
    end at the writer's 1 MB default only, not also at its 20,000 rows (docs/decisions.md)."""
    leaves = [_leaf(f) for f in schema]
    return dict(
        compression="zstd", compression_level={leaf: COMPRESSION_LEVELS.get(leaf, COMPRESSION_LEVEL) for leaf in leaves},
        row_group_size=ROW_GROUP_ROWS, max_rows_per_page=ROW_GROUP_ROWS,
        write_statistics=[leaf for leaf in leaves if leaf not in NO_STATISTICS],
        use_dictionary=[leaf for leaf in leaves if leaf not in ENCODINGS],
        column_encoding={leaf: ENCODINGS[leaf] for leaf in leaves if leaf in ENCODINGS} or None,
        sorting_columns=[pq.SortingColumn(schema.get_field_index(k)) for k in sort_key] or None,
    )


def write_parquet(table: pa.Table, path, sort_key: Iterable[str] = (), durable: bool = True) -> str:
    """Write zstd Parquet atomically; return its SHA-256. The file is built in memory (a shard's
    is a few MB), so its checksum comes from the bytes written, not from reading them back."""
    buf = pa.BufferOutputStream()
    pq.write_table(table, buf, **parquet_options(table.schema, sort_key))
    return atomic_write_bytes(path, buf.getvalue(), durable, dataset=True)


@contextmanager
def _reading(path):
    """A data file that cannot be read, said as a DatasetError naming it."""
    try:
        yield
    except FileNotFoundError:
        raise DatasetError(f"missing data file {str(path)!r}") from None
    except (pa.ArrowInvalid, OSError) as err:
        raise DatasetError(f"cannot read {str(path)!r}: {err}") from None


def read_rows_of(path, key: str, value: int, order: str | None = None) -> pa.Table:
    """The rows of a part file whose column `key` holds `value`, in the order of column `order`
    (file order when None), reading only the row groups whose statistics may hold it. Through a
    ParquetFile and numpy rather than pq.read_table's filters: those import pyarrow.dataset and
    pyarrow.compute, which took a replay 0.15 s, as long as reading the game."""
    with _reading(path):
        file = parquet_file(path)
        meta = file.metadata
        leaves = [meta.schema.column(i).path for i in range(meta.num_columns)]
        for column in (key, order):
            if column is not None and column not in leaves:
                raise DatasetError(f"{str(path)!r} has no column {column!r}")
        leaf = leaves.index(key)
        groups = [g for g in range(meta.num_row_groups) if _may_hold(meta.row_group(g).column(leaf), value)]
        if groups and all(_sorted_by(meta.row_group(g), leaf) for g in groups):
            table = _read_sorted(file, groups, key, value)
        else:
            table = file.read_row_groups(groups, use_threads=False) if groups else file.schema_arrow.empty_table()
    rows = np.flatnonzero(table.column(key).to_numpy() == value)
    if len(rows) == 0:
        return table.slice(0, 0)
    if rows[-1] - rows[0] + 1 == len(rows):
        table = table.slice(rows[0], len(rows))
    else:
        table = table.take(rows)
    if order is not None and len(rows) > 1:
        ranks = table.column(order).to_numpy()
        if not (ranks[1:] > ranks[:-1]).all():
            table = table.take(np.argsort(ranks, kind="stable"))
    return table


def _sorted_by(group, leaf: int) -> bool:
    """Whether a row group says its rows are sorted by the column `leaf`, ascending (war's part
    files say so: by game_id, then seq or nothing)."""
    order = getattr(group, "sorting_columns", None) or ()
    return bool(order) and order[0].column_index == leaf and not order[0].descending


SORTED_BATCH = 16_384  # rows decoded at a time when a sorted row group is read up to a key


def _read_sorted(file, groups: list[int], key: str, value: int) -> pa.Table:
    """The rows whose `key` is `value` of row groups sorted by `key`, decoded a batch at a time
    and no further than the batch past them: a game in a part file of 2,000 games is found
    decoding half the file on average, not all of it (a report's replay pages read dozens)."""
    found = []
    for g in groups:
        for batch in file.iter_batches(batch_size=SORTED_BATCH, row_groups=[g], use_threads=False):
            keys = batch.column(key).to_numpy()
            if keys[0] > value:
                break
            hit = np.flatnonzero(keys == value)
            if len(hit):
                found.append(batch.slice(hit[0], hit[-1] - hit[0] + 1))
            if keys[-1] > value:
                break
    return pa.Table.from_batches(found, schema=file.schema_arrow) if found else file.schema_arrow.empty_table()


def _may_hold(column, value) -> bool:
    """Whether a row group's column may hold `value`, by its min/max statistics."""
    stats = column.statistics
    if stats is None or not stats.has_min_max:
        return True
    return stats.min <= value <= stats.max


def read_whole_parquet(path, data: bytes | None = None) -> pa.Table:
    """A whole part file's rows, from its bytes when they were read already (`data`), on one
    thread and through a ParquetFile: pq.read_table goes through pyarrow.dataset, whose import
    costs a process about 0.1 s, and a validation worker is one core (the others are the other
    workers'), where pyarrow's thread pool cost more CPU than it saved (reading an Arneson's
    War shard took less wall time without it, a Classic War shard 3 % more)."""
    with _reading(path):
        return parquet_file(path, data).read(use_threads=False)


def read_parquet_batches(path, data: bytes | None = None, rows: int = 1 << 16):
    """A part file's rows a batch of `rows` at a time, from its bytes when they were read already
    (`data`), on one thread: what validation compares with the regenerated rows. Decoding a
    batch at a time keeps it in the processor's cache: 30 % less CPU than reading the whole
    file on an Arneson's War shard."""
    with _reading(path):
        yield from parquet_file(path, data).iter_batches(batch_size=rows, use_threads=False)


def parquet_file(path, data: bytes | None = None) -> pq.ParquetFile:
    """A Parquet file's metadata and schema without reading its data; from its bytes when they
    were read already (`data`)."""
    if data is not None:
        return pq.ParquetFile(pa.BufferReader(data))
    if not is_remote(path):
        regular(path)
    return pq.ParquetFile(path.open_input() if is_remote(path) else path)
