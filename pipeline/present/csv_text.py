"""CSV text made from Arrow record batches by a compiled kernel, batches formatted in parallel.

pyarrow's CSV writer runs on one thread at about 180 MB/s, and the lists it cannot write had
to become JSON text in DuckDB first (to_json, a string per row): events to CSV spent most of its
time there. This writer formats the columns war's views produce straight from their Arrow
buffers: integers of every width, booleans, strings and dictionary strings, lists of integers.
Its bytes are pyarrow's writer's for the same rows with the lists as DuckDB's JSON text: a
header of quoted names, strings always quoted with their quotes doubled, a null as nothing,
booleans `true`/`false`, a list as `"[1,null,-3]"`, `\\n` after each row. A result with a column
of any other type is not for this writer (`supported`): it goes through pyarrow's, as before.

The kernel releases the GIL (nogil), so batches are formatted on a thread a core while DuckDB
reads the next ones, and each thread writes the batch it formatted once the one before it is
written: the output is in the result's order, its writing (as long as the formatting, to a
file) overlaps the reading, and at most a batch a thread and one more are in flight (memory
stays bounded whatever the result's size). A small result (one batch) is written by pyarrow,
lists made JSON text by Arrow's compute functions: loading numba would take longer.

The events view's columns as they are (`SELECT * FROM events`: jobs/query/copy_scan.py) come
as parts to read (`write_parts`): each thread reads a row group of the copies itself, formats
it and writes it in turn, so the reading is shared by the cores too and DuckDB's hand-off of
the rows to Arrow (twice pyarrow's reading of the same copies) is skipped.
"""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator

import pyarrow as pa

from .csv_kinds import LIST, ULIST, kind, supported  # noqa: F401 (supported: what output.py asks)
from .direct_file import DirectFile, open_direct

DIRECT = True  # write_parts writes a regular file around the page cache (direct_file); False: through it


def compiled() -> bool:
    """Whether numba is installed (without it, pyarrow writes every result)."""
    import importlib.util

    return importlib.util.find_spec("numba") is not None


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover (not Linux)
        return max(1, os.cpu_count() or 1)


def header(names: list[str]) -> bytes:
    """The header line as pyarrow writes it: every name quoted, its quotes doubled."""
    return (",".join('"' + n.replace('"', '""') + '"' for n in names) + "\n").encode()


def json_lists(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The batch with each list of integers as DuckDB's JSON text of it (`[1,null,-3]`), by
    Arrow's compute functions: what pyarrow's writer needs to write a small result alike."""
    import pyarrow.compute as pc

    columns = []
    for col in batch.columns:
        if kind(col.type) in (LIST, ULIST):
            if not (pa.types.is_list(col.type) or pa.types.is_large_list(col.type)):
                col = col.cast(pa.large_list(col.type.value_type))
            words = col.cast(pa.large_list(pa.large_string()))
            items = pc.fill_null(words.values, "null")
            words = pa.LargeListArray.from_arrays(words.offsets.cast(pa.int64()), items, mask=col.is_null())
            text = [pa.scalar(c, pa.large_string()) for c in "[,]"]
            col = pc.binary_join_element_wise(text[0], pc.binary_join(words, text[1]), text[2],
                                              pa.scalar("", pa.large_string()))
        columns.append(col)
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


def _pyarrow_lines(batch: pa.RecordBatch) -> bytes:
    import pyarrow.csv as pacsv

    sink = pa.BufferOutputStream()
    pacsv.write_csv(pa.Table.from_batches([json_lists(batch)]), sink, pacsv.WriteOptions(include_header=False))
    return sink.getvalue().to_pybytes()


# ---------------------------------------------------------------- a stream of batches

SMALL_ROWS = 1 << 16  # a result of one batch of at most this many rows: written by pyarrow (no numba to load)
_UNREAD = object()
WRITE_BYTES = 1 << 20  # a batch's lines written a MiB at a time (4.9 GB to a file in 7 MB writes: 6-12 s of kernel time here, in 1 MiB writes 3-4.5 s)


def write(batches, sink, progress: Callable[[int], None] | None = None, workers: int | None = None,
          small_rows: int | None = None) -> None:
    """Every batch of `batches` (a reader with a `schema`) to `sink` as CSV, `progress(rows)`
    called as each batch is written. Batches formatted on threads are written by them, in
    order, so that writing (as long as formatting, to a file) overlaps DuckDB's reading."""
    for rows, data in _lines(batches, workers, small_rows, sink):
        if data is not None:
            _put(sink, data)
        if rows is not None and progress is not None:
            progress(rows)


def _put(sink, data) -> None:
    if isinstance(sink, DirectFile):
        sink.write(data)
        return
    for at in range(0, len(data), WRITE_BYTES):
        sink.write(data[at:at + WRITE_BYTES])


def _lines(batches, workers: int | None, small_rows: int | None, sink
           ) -> Iterator[tuple[int | None, memoryview | bytes | None]]:
    """(rows, bytes) of CSV for `sink`: the header (rows None), then each batch's lines in
    order (a memoryview valid until the next is asked for). A result
    of one batch of at most `small_rows` rows is written by pyarrow's writer (loading the
    compiled kernel would take longer); a longer one by csv_kernel, `workers` batches at a time
    (default: the cores this process may use) while the next are read, at most one more
    batch than that in flight; threads write the batches they format to `sink` themselves,
    each after the one before it (their bytes then None)."""
    yield None, header(batches.schema.names)
    small_rows = SMALL_ROWS if small_rows is None else small_rows
    rest = iter(batches)
    first = next(rest, None)
    if first is None:
        return
    second = next(rest, None) if first.num_rows <= small_rows else _UNREAD
    if second is None or not compiled():
        yield first.num_rows, _pyarrow_lines(first)
        for batch in ([] if second is None else [second]):
            yield batch.num_rows, _pyarrow_lines(batch)
        for batch in rest:
            yield batch.num_rows, _pyarrow_lines(batch)
        return
    from .csv_kernel import Room, lines

    def ahead():
        yield first
        if second is not _UNREAD:
            yield second
        yield from rest

    workers = workers or _cores()
    if workers == 1:
        room = Room()
        for batch in ahead():
            yield batch.num_rows, lines(batch, room)
        return
    yield from ((rows, None) for rows in _pooled(((b.num_rows, b) for b in ahead()), sink, workers))


def write_parts(names: list[str], parts, sink, progress: Callable[[int], None] | None = None,
                workers: int | None = None) -> None:
    """CSV of a result read in parts (`parts`: (rows, read) each, `read()` giving its record
    batch), the header named `names`: each part read and formatted on a thread of its own,
    `workers` at a time (default: one more than the cores this process may use), and written in order, so
    that the reading is shared by the threads too (copy_scan's row groups). A regular file is written
    around the page cache (direct_file: 4.9 GB of it cost seconds of system time and an fsync's wait)."""
    direct = open_direct(sink) if DIRECT else None
    try:
        _write_parts(names, parts, sink if direct is None else direct, progress, workers)
    except BaseException:
        if direct is not None:
            direct.abandon()
        raise
    if direct is not None:
        direct.close()


def _write_parts(names, parts, sink, progress, workers: int | None) -> None:
    from .csv_kernel import Room

    _put(sink, header(names))
    workers = workers or _cores() + 1  # one more than the cores: a thread waiting for its turn to write holds none
    if workers == 1:
        room = Room()
        for rows, read in parts:
            _put(sink, _part_lines(read, room))
            if progress is not None:
                progress(rows)
        return
    for rows in _pooled(parts, sink, workers):
        if progress is not None:
            progress(rows)


def _part_lines(part, room) -> memoryview:
    """The CSV lines of one part: a record batch, or a function that reads one; a copy's row
    group (copy_scan: with `decode`) decoded from its pages straight into the kernel's arrays
    when the decoder reads it (copy_pages), else read as a record batch."""
    from .csv_kernel import decoded_lines, lines

    if isinstance(part, pa.RecordBatch):
        return lines(part, room)
    decode = getattr(part, "decode", None)
    group = decode(room) if decode is not None else None
    if group is not None:
        return decoded_lines(group, part.sources, room)
    return lines(part(), room)


def _pooled(parts, sink, workers: int) -> Iterator[int]:
    """Format each of `parts` ((rows, a batch or a function that reads one)) on `workers`
    threads, each writing its lines to `sink` once the part before it is written; yields each
    part's rows once written, at most one part more than `workers` in flight."""
    from .csv_kernel import Room

    rooms: deque = deque()  # rooms free to format in (deque's append and pop are atomic)

    def formatted(batch, before):
        try:
            room = rooms.pop()
        except IndexError:
            room = Room()
        data = _part_lines(batch, room)
        if before is not None:
            before.result()  # the part before this one written (its error raised again here)
        _put(sink, data)
        rooms.append(room)

    pool = ThreadPoolExecutor(workers, thread_name_prefix="csv")
    pending: deque = deque()
    before = None
    try:
        for rows, batch in parts:
            before = pool.submit(formatted, batch, before)
            pending.append((rows, before))
            while len(pending) > workers:
                rows, done = pending.popleft()
                done.result()
                yield rows
        while pending:
            rows, done = pending.popleft()
            done.result()
            yield rows
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
