"""The events view's CSV written around the page cache (present/direct_file.py): the file holds
exactly the parts given, in order, whatever their sizes against the block, the sink's own
position ends after them, a refusal of direct writes part-way carries on through the page cache
with the same bytes, and a sink that is not a regular file of its own (a buffer, a pipe, a file
opened to append, a place off a block) is written as before."""

from __future__ import annotations

import errno
import io
import os

import numpy as np
import pyarrow as pa
import pytest

from pipeline.present import csv_text, direct_file
from pipeline.present.direct_file import ALIGN, open_direct

SIZES = [0, 1, ALIGN - 1, ALIGN, ALIGN + 1, 3 * ALIGN + 17, 5, 2 * ALIGN - 5, 100_000, 0, 7]


def parts(sizes: list[int]) -> list[bytes]:
    rng = np.random.default_rng(len(sizes))
    return [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in sizes]


def test_the_file_is_its_parts_in_order_and_the_sink_is_at_its_end(tmp_path):
    chunks = parts(SIZES)
    path = tmp_path / "out.csv"
    with open(path, "wb") as sink:
        direct = open_direct(sink)
        if direct is None:
            pytest.skip("this file system takes no direct writes")
        for chunk in chunks:
            direct.write(memoryview(chunk))
        direct.close()
        sink.write(b"after")  # the sink's own writes go on where the parts end
    assert path.read_bytes() == b"".join(chunks) + b"after"


def test_a_refusal_part_way_goes_on_through_the_page_cache(tmp_path, monkeypatch):
    chunks = parts(SIZES)
    path = tmp_path / "out.csv"
    real, calls = os.pwrite, []

    def refusing(fd, data, offset):
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(errno.EINVAL, "Invalid argument")
        return real(fd, data, offset)

    monkeypatch.setattr(direct_file.os, "pwrite", refusing)
    with open(path, "wb") as sink:
        direct = open_direct(sink)
        if direct is None:
            pytest.skip("this file system takes no direct writes")
        for chunk in chunks:
            direct.write(chunk)
        direct.close()
        assert direct.direct < 0
    assert path.read_bytes() == b"".join(chunks)
    assert len(set(calls)) == 2  # the direct descriptor, then the file's own


def test_other_sinks_are_written_as_before(tmp_path):
    assert open_direct(io.BytesIO()) is None
    read, write = os.pipe()
    try:
        with os.fdopen(write, "wb", closefd=False) as pipe:
            assert open_direct(pipe) is None
    finally:
        os.close(read)
        os.close(write)
    (tmp_path / "a.csv").write_bytes(b"x")
    with open(tmp_path / "a.csv", "ab") as appended:
        assert open_direct(appended) is None
    with open(tmp_path / "b.csv", "wb") as off_a_block:
        off_a_block.write(b"x" * 10)
        assert open_direct(off_a_block) is None


def test_write_parts_to_a_file_is_write_parts_to_a_buffer(tmp_path):
    """A result of many batches (lists, words, nulls) through the threads: the same bytes in a
    file written directly as in memory."""
    n = 30_000
    rng = np.random.default_rng(3)
    batches = []
    for b in range(7):
        cards = pa.array([list(rng.integers(0, 54, int(k))) for k in rng.integers(0, 3, n)], pa.list_(pa.int16()))
        kind = pa.array(rng.choice(["play", "war", 'say "x"'], n)).dictionary_encode()
        value = pa.array(np.where(rng.random(n) < 0.5, None, rng.integers(-5, 99_999, n)).tolist(), pa.int32())
        batches.append(pa.RecordBatch.from_arrays([pa.array(np.arange(n) + b * n), kind, cards, value],
                                                  names=["game_id", "kind", "cards", "value"]))
    names = ["game_id", "kind", "cards", "value"]
    memory = io.BytesIO()
    csv_text.write_parts(names, [(n, batch) for batch in batches], memory, workers=2)
    path = tmp_path / "e.csv"
    with open(path, "wb") as sink:
        csv_text.write_parts(names, [(n, batch) for batch in batches], sink, workers=3)
    assert path.read_bytes() == memory.getvalue()


def test_a_failed_write_is_said_by_the_next_write_or_close(tmp_path, monkeypatch):
    """A full disk while a part is written on the writer's thread: raised to the caller, once."""
    def full(fd, data, offset):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(direct_file.os, "pwrite", full)
    with open(tmp_path / "out.csv", "wb") as sink:
        direct = open_direct(sink)
        if direct is None:
            pytest.skip("this file system takes no direct writes")
        with pytest.raises(OSError) as raised:
            for chunk in parts([ALIGN * 3] * 5):
                direct.write(chunk)
            direct.close()
        assert raised.value.errno == errno.ENOSPC
        direct.abandon()
