"""The `events` view's columnar copy: each events file of a dataset decoded once into one row per
event, every column native (kind, seat, cards, ...), kept in war's per-user cache and read by
DuckDB with no Python on the query path.

The log on disk stays one row per battle (pipeline/log/codec.py): that is what keeps generation
fast and a game in about 850 bytes. Decoding it in SQL costs an UNNEST of every battle's steps
per query; a copy costs that once. A copy is named by what it is made from (the events file's
SHA-256 as the manifest records it, checked against the bytes read) and by what decodes it
(events.sql, this module and the event kinds of the installed families), so a dataset that is
appended to, or a war that decodes otherwise, makes new copies and never reads a stale one. The
decoding is events.sql's own (its `event_steps` table: what each step of a shape reads of its
row's cards), expanded to events with numpy; tests hold the copy to the SQL view row for row.
docs/decisions.md ("Event SQL") gives the measurements.

A rule set of more than PACK_FILES events files has its copies packed: one copy (its three files)
holds the events of several files in a row, in the log's order, named by all of their SHA-256s
(pack_sizes). DuckDB opens every file of a view to read its footer before it can skip it, about
0.4 ms a file: a query of one game of a million games in 500 files spent 0.2 s of CPU on that,
twice its own work, where 32 copies cost a fortieth of it. Their row groups are written as a
copy of one file writes them, so readers of row groups (copy_scan) see the same groups.
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ...errors import QueryError
from ...log.tables import kinds_table
from ...places import contents_digest, user_cache
from ...storage.files import atomic_write_bytes
from ...storage.location import sweep_temporaries
from .log_views import events_sql

COPY_VERSION = "5"  # part of every copy's name: a change of its columns or of how _write writes it makes new ones
# (4: a copy may hold the events of several files, its footer naming them all; 5: its lists of cards and
# seats dictionary-coded)
PACK_FILES = 32  # a rule set of more events files than this has its copies packed, into about this many
PACK_GAMES = 100_000  # the games a packed copy holds at most (but one file's, however many)
KEY = b"war.event_copy"  # the footer key that holds the copy's name, checked when it is read

def folder() -> Path:
    """Where the copies are kept: `$WAR_EVENT_CACHE`, else `events/` in war's per-user cache
    (`$WAR_CACHE_DIR`, else ~/.cache/war). Anything in it may be deleted at any time."""
    chosen = os.environ.get("WAR_EVENT_CACHE")
    return Path(chosen).expanduser() if chosen else user_cache() / "events"


_decoder: list[str] = []


def decoder_digest() -> str:
    """What decodes a copy: events.sql, event_decode.py, the copy's version (COPY_VERSION: how
    this module writes it) and the event kinds of the families installed (a plugin's kind that
    lays or takes cards decodes its rows). Not this module's code: how copies are kept and found
    changes no copy."""
    if not _decoder:
        decoder = Path(__file__).resolve().with_name("event_decode.py")
        digest = contents_digest(decoder.parent, [decoder])
        digest.update(events_sql().encode())
        digest.update(COPY_VERSION.encode())
        digest.update(kinds_table().to_pylist().__repr__().encode())
        _decoder.append(digest.hexdigest()[:20])
    return _decoder[0]


def copy_path(sha256: str) -> Path:
    """The copy of the events file whose SHA-256 is `sha256`."""
    return folder() / f"{sha256[:40]}-{decoder_digest()}.parquet"


def pack_path(sha256s: list[str]) -> Path:
    """The copy of the events files whose SHA-256s are `sha256s`, in the log's order: copy_path
    of one file's."""
    if len(sha256s) == 1:
        return copy_path(sha256s[0])
    return copy_path(hashlib.sha256(",".join(sha256s).encode()).hexdigest())


def pack_sizes(files) -> list[int]:
    """How many events files (DataFile entries, in the log's order) each copy holds, in order:
    one each while a rule set has at most PACK_FILES files, else as many in a row as makes
    about PACK_FILES copies of it, each of at most PACK_GAMES games (of its longest file)."""
    sizes: list[int] = []
    i = 0
    while i < len(files):
        j = i
        while j < len(files) and files[j].rule_set == files[i].rule_set:
            j += 1
        n = j - i
        each = 1
        if n > PACK_FILES:
            most = max(f.games for f in files[i:j])
            each = max(1, min(math.ceil(n / PACK_FILES), PACK_GAMES // max(most, 1)))
        sizes += [each] * (n // each) + ([n % each] if n % each else [])
        i = j
    return sizes


def battles_path(copy: Path) -> Path:
    """The battles file beside the events copy `copy`."""
    return copy.with_name(copy.name.replace(".parquet", ".battles.parquet"))


def deals_path(copy: Path) -> Path:
    """The deals file beside the events copy `copy`: its rows of battle 0, the deal, apart (a
    query of the deal reads a few rows, not every event's cards)."""
    return copy.with_name(copy.name.replace(".parquet", ".deals.parquet"))


def _stamp(path: Path) -> bytes:
    """A file's size and modification and change times: what tells, without reading it, that it
    is the file a copy was made from (a file put back with its old time by `touch -r` has a new
    change time, which nothing but the clock sets)."""
    st = os.stat(path)
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}".encode()


def is_copy(path: Path, sha256: str, source: Path) -> bool:
    """Whether `path` and its battles and deals files are a whole copy of the file `sha256` by this decoder:
    their footers name them (a file is written whole or not at all, so a footer that reads is a
    whole file). A source whose size or time is not the one the copy was made from is hashed
    again, and refused when it is not the manifest's: an edited file is never answered for by
    the copy of what it was."""
    return is_pack(path, [(source, sha256)])


def is_pack(path: Path, members: list[tuple[Path, str]]) -> bool:
    """is_copy of a copy of the events files `members` ((source, SHA-256) each, in order)."""
    stamp = b",".join(_stamp(source) for source, _ in members)
    named = _pair(b"war.source", ",".join(sha for _, sha in members).encode())
    fresh = True
    for each in (path, battles_path(path), deals_path(path)):
        footer = _footer(each)
        if footer is None or _pair(KEY, each.name.encode()) not in footer or named not in footer:
            return False
        fresh = fresh and _pair(b"war.source_stamp", stamp) in footer
    if not fresh:
        for source, sha in members:
            _check(Path(source).read_bytes(), source, sha)
    return True


def _footer(path: Path) -> bytes | None:
    """A Parquet file's footer (its metadata, Thrift-encoded), or None when the file does not end
    as a Parquet file does. Read as bytes: a query of a million games checks a thousand copies,
    and pyarrow's parse of each footer cost four times this."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size < 12:
                return None
            f.seek(size - 8)
            end = f.read(8)
            length = int.from_bytes(end[:4], "little")
            if end[4:] != b"PAR1" or length > size - 12:
                return None
            f.seek(size - 8 - length)
            return f.read(length)
    except OSError:
        return None


def _pair(key: bytes, value: bytes) -> bytes:
    """A key and its value as a footer's key-value metadata holds them (Thrift's compact
    protocol: the key's bytes, the value's field header, its length as a varint, its bytes)."""
    n, length = len(value), b""
    while True:
        byte, n = n & 0x7F, n >> 7
        length += bytes([byte | (0x80 if n else 0)])
        if not n:
            break
    return key + b"\x18" + length + value


def _check(data: bytes, source: Path, sha256: str) -> None:
    if hashlib.sha256(data).hexdigest() != sha256:
        raise QueryError(f"dataset file {str(source)!r} does not match the checksum its manifest records "
                         "(`war validate` says more)")


# Told (done, total) after each copy made, when set: the command line shows a progress line.
on_progress: Callable[[int, int], None] | None = None


def enabled() -> bool:
    """Whether queries read the events through copies (`WAR_EVENT_COPIES=0` decodes them in SQL
    each time, as events.sql does: the reference the copies are tested against)."""
    return os.environ.get("WAR_EVENT_COPIES", "1") != "0"


def ensure(files: list[tuple[Path, str]], progress: Callable[[int, int], None] | None = None,
           workers: int | None = None, packs: list[int] | None = None) -> list[str]:
    """The copies of the events files `files` ((path, manifest SHA-256), in the log's order), in
    the same order, each holding the number of files `packs` says in a row (pack_sizes; one each
    when not given): those missing are made first, `workers` at a time (threads: numpy, Arrow
    and DuckDB work outside the GIL). `progress(done, total)` after each one made (on_progress
    when not given)."""
    progress = progress or on_progress
    groups = _groups(files, packs)
    paths = [pack_path([sha for _, sha in group]) for group in groups]
    with _making:  # a server's report and its SQL page wait for one another, not make twice
        missing = [(group, dst) for group, dst in zip(groups, paths) if not is_pack(dst, group)]
        made = {dst for _, dst in missing}
        _used([p for p in paths if p not in made])
        if missing:
            _make(missing, progress, workers)
    return [str(p) for p in paths]


def check_sources(files: list[tuple[Path, str]], packs: list[int] | None = None) -> None:
    """Refuse an events file of `files` ((path, manifest SHA-256), in the log's order) that is not
    the manifest's, for a query that reads the files themselves (`event_rows`, or every view with
    the copies turned off): one a kept copy vouches for (is_pack: the file's size and time as when
    the copy was made from it) is not read, any other is hashed. Without it a swapped file is
    answered from where `events` refuses it."""
    for group in _groups(files, packs):
        if not is_pack(pack_path([sha for _, sha in group]), group):
            for source, sha in group:
                _check(Path(source).read_bytes(), source, sha)


def _groups(files: list[tuple[Path, str]], packs: list[int] | None) -> list[list[tuple[Path, str]]]:
    """`files` in the runs of `packs` (pack_sizes; one each when not given): each copy's members."""
    groups, at = [], 0
    for size in packs or [1] * len(files):
        groups.append(list(files[at:at + size]))
        at += size
    if at != len(files):
        raise AssertionError("the packs do not add up to the files")
    return groups


_making = threading.Lock()


class _Stopped(Exception):
    """A pack's making given up between two of its files: another copy failed, or Ctrl-C."""


def _make(missing: list, progress, workers: int | None) -> None:
    """Make the copies `missing` ((members, target) each), `workers` at a time."""
    folder().mkdir(parents=True, exist_ok=True)
    _sweep()
    from .event_decode import Steps  # numba and the kernels only when a copy is made

    steps = Steps()
    stop = threading.Event()
    workers = workers or min(len(missing), os.cpu_count() or 1, 4)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="war-event-copies")
    try:
        made = [pool.submit(make_copy, *members[0], target, steps) if len(members) == 1 else
                pool.submit(make_pack, members, target, steps, stop) for members, target in missing]
        for done, future in enumerate(made, start=1):
            future.result()
            if progress is not None:
                progress(done, len(missing))
    finally:  # Ctrl-C or an error: the copies not begun are not made (each is whole or absent)
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)


UNUSED_DAYS = 30  # a copy not read for this long is removed when copies are next made
DAY = 86400


def _used(paths: list[Path]) -> None:
    """Mark copies read today (their modification time, at most once a day: access times are
    not kept on every file system), so that _sweep keeps them."""
    now = time.time()
    for path in paths:
        for each in (path, battles_path(path), deals_path(path)):
            try:
                if now - each.stat().st_mtime > DAY:
                    os.utime(each)
            except OSError:
                pass


def _sweep() -> None:
    """Remove the part-made copies of processes that are gone (killed mid-write: atomic_file's
    temporary names), and copies not read for UNUSED_DAYS: of a dataset since removed or
    changed, or made by another war."""
    now = time.time()
    sweep_temporaries(folder().glob(".*.parquet.*.tmp"))
    for path in folder().glob("*.parquet"):
        try:
            if now - path.stat().st_mtime > UNUSED_DAYS * DAY:
                path.unlink(missing_ok=True)
        except OSError:
            pass


def make_copy(source: Path, sha256: str, target: Path, steps) -> None:
    """Decode the events file `source` (whose manifest SHA-256 is `sha256`) into its copy at
    `target`, atomically: written beside it, then renamed."""
    make_pack([(source, sha256)], target, steps)


def make_pack(members: list[tuple[Path, str]], target: Path, steps, stop: threading.Event | None = None) -> None:
    """Decode the events files `members` ((source, manifest SHA-256) each, in the log's order)
    into one copy at `target`, a file after another, atomically: each of its three files written
    whole in memory, then beside its name, then renamed (battles and deals first: a copy whose
    events file is whole has them whole too). Given up between two files once `stop` is set."""
    stamp = b",".join(_stamp(source) for source, _ in members)
    named = ",".join(sha for _, sha in members)
    targets = (battles_path(target), deals_path(target), target)
    writers: list = []
    try:
        for source, sha256 in members:
            if stop is not None and stop.is_set():
                raise _Stopped()
            parts = _decoded(source, sha256, steps)
            if not writers:
                writers = [_writer(table.schema, path, named, stamp, stats, words)
                           for table, path, (stats, words) in zip(parts, targets, _FORMS)]
            for (sink, writer), table in zip(writers, parts):
                writer.write_table(table if table.schema.equals(writer.schema, check_metadata=False)
                                   else table.cast(writer.schema), row_group_size=ROW_GROUP)
        for (sink, writer), path in zip(writers, targets):
            writer.close()
            atomic_write_bytes(path, sink.getvalue(), durable=False)
    finally:
        for sink, writer in writers:
            if writer.is_open:
                writer.close()


ROW_GROUP = 1 << 20  # rows a row group of a copy holds at most: a file's events are one or two
# (statistics, dictionary-coded columns) of each of a copy's files: battles, deals, events. The items of
# `cards` and `seats` are at most 54 values: dictionary-coded they are 6 bits each, not 4 bytes (about 4x
# less to decompress, for DuckDB and for events to CSV's decoder alike)
_LISTED = ["cards.list.element", "seats.list.element"]
_FORMS = ((["game_id", "battle"], ["winner"]), (["game_id", "battle", "seq"], ["kind", "note", "seat"] + _LISTED),
          (["game_id", "battle", "seq"], ["kind", "note", "seat"] + _LISTED))


def _decoded(source: Path, sha256: str, steps) -> tuple[pa.Table, pa.Table, pa.Table]:
    """The battles, deals and events of the events file `source`, checked against `sha256`."""
    data = Path(source).read_bytes()
    _check(data, source, sha256)
    rows = pq.read_table(pa.BufferReader(data), columns=["game_id", "seq", "battle", "shape", "cards"])
    from .event_decode import battles, decode, shape_numbers

    codes = shape_numbers(rows, steps)
    events = decode(rows, steps, codes)
    dealt = np.flatnonzero(events.column("battle").to_numpy() == 0)
    return battles(rows, steps, codes), events.take(dealt), events


def _writer(schema: pa.Schema, target: Path, sources: str, stamp: bytes, stats: list[str], words: list[str]):
    """(buffer, ParquetWriter) of a copy's file, written in memory (a cache needs no fsync); its
    footer names it, and the files it was made from by checksum and stamp."""
    schema = schema.with_metadata({KEY: target.name.encode(), b"war.source": sources.encode(),
                                   b"war.source_stamp": stamp})
    delta = {name: "DELTA_BINARY_PACKED" for name in ("game_id", "seq", "battle") if name in schema.names}
    sink = pa.BufferOutputStream()
    return sink, pq.ParquetWriter(sink, schema, compression="zstd", compression_level=1, use_dictionary=words,
                                  write_statistics=stats, column_encoding=delta)


def sources(root: Path, files: Iterable) -> list[tuple[Path, str]]:
    """(path, SHA-256) of a dataset's events files (DataFile entries), in the order given."""
    return [(Path(root) / f.path, f.sha256) for f in files]

