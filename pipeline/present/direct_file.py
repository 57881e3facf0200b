"""A large output file written around the page cache (O_DIRECT), in order, a block-aligned part
at a time: what csv_text writes the events view's CSV through.

Written through the page cache, the 4.9 GB of events to CSV cost 3 - 15 s of system time (a page
found, charged and copied into for every 4 KB, then written back while the dirty pages are
throttled) and the fsync of atomic_file then waited for what was still dirty. Written directly,
the device reads the bytes from the writer's own memory: each part is copied once into an
aligned buffer (the carried tail of the part before first), whole blocks are written at their
offset and the tail under a block is carried to the next part; the last tail is written through
the page cache by the file's own descriptor. A file system, device or platform that refuses
direct writes (tmpfs, not Linux, a misaligned device) is written through the page cache as
before, from the first refusal on: the bytes are the same either way.
"""

from __future__ import annotations

import errno
import os
import queue
import stat
import threading

import numpy as np

ALIGN = 4096  # bytes: a multiple of every logical block size and of the memory alignment direct writes need


def open_direct(sink) -> "DirectFile | None":
    """A DirectFile over `sink` (an open binary file, nothing written to it yet, or only what it
    has flushed at a block boundary), or None when it is not a regular local file opened for
    writing at a place of its own (a pipe, a terminal, stdout appended to) or this system has no
    direct writes."""
    flag = getattr(os, "O_DIRECT", 0)
    if not flag:
        return None
    try:
        fd = sink.fileno()
        sink.flush()
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        import fcntl

        if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND:
            return None
        start = os.lseek(fd, 0, os.SEEK_CUR)
        if start % ALIGN:
            return None
        direct = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | flag | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError, AttributeError, ImportError):
        return None
    return DirectFile(sink, fd, direct, start)


class DirectFile:
    """Writes in order to one file at `start` onwards: `write` for each part (from one thread at
    a time, in the file's order), `close` for the tail (which leaves `sink`'s own position at the
    end, as if it had written it all). A part is copied into one of BUFFERS aligned buffers and
    written by a thread of its own, so the device writes one part while the next is copied and
    the writers go on formatting: the device, not the turn to write, sets the pace."""

    BUFFERS = 2

    def __init__(self, sink, fd: int, direct: int, start: int) -> None:
        self.sink, self.fd, self.direct, self.at = sink, fd, direct, start
        self.carry = np.zeros(0, np.uint8)
        self.free: queue.Queue = queue.Queue()
        for _ in range(self.BUFFERS):
            self.free.put(np.zeros(0, np.uint8))
        self.todo: queue.Queue = queue.Queue()
        self.failed: BaseException | None = None
        self.thread = threading.Thread(target=self._writer, name="csv-direct", daemon=True)
        self.thread.start()

    @staticmethod
    def _aligned(room: np.ndarray, size: int) -> np.ndarray:
        """`room` if it holds `size` bytes, else a new ALIGN-aligned buffer that does."""
        if room.size >= size:
            return room
        raw = np.empty(size + size // 4 + 2 * ALIGN, np.uint8)
        skip = (-raw.ctypes.data) % ALIGN
        return raw[skip:skip + size + size // 4 + ALIGN]

    def write(self, data) -> None:
        self._raise()
        data = np.frombuffer(data, np.uint8)
        c = self.carry.size
        total = c + data.size
        whole = total - total % ALIGN
        if whole == 0:
            self.carry = np.concatenate([self.carry, data])
            return
        buffer = self._aligned(self.free.get(), whole)
        buffer[:c] = self.carry
        buffer[c:whole] = data[:whole - c]
        self.todo.put((buffer, whole, self.at))
        self.at += whole
        self.carry = data[whole - c:].copy()

    def _writer(self) -> None:
        while True:
            item = self.todo.get()
            if item is None:
                return
            buffer, size, at = item
            try:
                if self.failed is None:
                    self._put(memoryview(buffer)[:size], at)
            except BaseException as err:  # said by the next write or close
                self.failed = err
            self.free.put(buffer)

    def _put(self, view: memoryview, at: int) -> None:
        done = 0
        while done < len(view):
            fd = self.direct if self.direct >= 0 else self.fd
            try:
                n = os.pwrite(fd, view[done:], at + done)
            except OSError as err:
                if fd == self.direct and err.errno == errno.EINVAL:  # refused: the page cache from now on
                    self._stop_direct()
                    continue
                raise
            if n <= 0:
                raise OSError(errno.EIO, "a write wrote nothing")
            done += n

    def _raise(self) -> None:
        if self.failed is not None:
            raise self.failed

    def _stop_direct(self) -> None:
        if self.direct >= 0:
            os.close(self.direct)
            self.direct = -1

    def _drain(self) -> None:
        if self.thread.is_alive():
            self.todo.put(None)
            self.thread.join()

    def close(self) -> None:
        """Every part written, the carried tail through the page cache, the direct descriptor
        closed, and `sink` placed after the last byte."""
        try:
            self._drain()
            self._raise()
            if self.carry.size:
                self._stop_direct()
                self._put(memoryview(self.carry), self.at)
                self.at += self.carry.size
                self.carry = np.zeros(0, np.uint8)
            self.sink.seek(self.at)
        finally:
            self._stop_direct()

    def abandon(self) -> None:
        """After a failure: the writes under way finished, the rest dropped, the direct descriptor
        closed (the file is then removed by its owner)."""
        self.failed = self.failed or OSError(errno.ECANCELED, "abandoned")
        self._drain()
        self._stop_direct()
