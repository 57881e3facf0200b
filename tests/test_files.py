"""storage.files: making a run's files durable at its commit point."""

import os

import pytest

from pipeline.errors import StorageError
from pipeline.storage import files


def written(tmp_path):
    for rel in ("events/a.parquet", "events/b.parquet", "games/a.parquet"):
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        with files.atomic_file(tmp_path / rel, durable=False) as f:
            f.write(rel.encode())
    return ["events/a.parquet", "events/b.parquet", "games/a.parquet"]


def test_a_file_written_for_later_is_whole_under_its_name_and_waits_for_no_fsync(tmp_path, monkeypatch):
    fsyncs = []
    monkeypatch.setattr(os, "fsync", lambda fd: fsyncs.append(fd))
    paths = written(tmp_path)
    assert fsyncs == []
    assert [(tmp_path / p).read_bytes() for p in paths] == [p.encode() for p in paths]
    assert not [p for p in tmp_path.rglob(".*")]


def test_without_syncfs_each_file_and_folder_is_fsynced(tmp_path, monkeypatch):
    """Where the C library has no syncfs (not Linux), make_durable fsyncs every file and the
    folders that hold them, whose entries a rename changed."""
    paths = written(tmp_path)
    monkeypatch.setattr(files, "_libc", lambda: None)
    synced = []
    real = os.fsync

    def spy(fd):
        synced.append(os.fstat(fd).st_ino)
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    files.make_durable(tmp_path, paths)
    expected = {(tmp_path / p).stat().st_ino for p in paths} | {(tmp_path / d).stat().st_ino for d in ("events", "games")}
    assert sorted(synced) == sorted(expected)


def test_a_flush_that_fails_names_the_folder(tmp_path, monkeypatch):
    paths = written(tmp_path)
    files.make_durable(tmp_path, paths)  # the real one, on this system's file system
    monkeypatch.setattr(files, "_libc", lambda: None)
    with pytest.raises(StorageError, match=f"cannot write {str(tmp_path)!r}"):
        files.make_durable(tmp_path, [*paths, "events/gone.parquet"])


@pytest.mark.parametrize("batch", [1, 3, 7, 1000])
def test_rows_of_a_sorted_file_are_those_a_whole_read_finds(tmp_path, monkeypatch, batch):
    """read_rows_of decodes a file sorted by its key (war's part files say so) a batch at a time
    and stops past the key: for every key, one absent from the middle and keys past either end,
    the rows (in `order`) are those of reading the whole file, whatever the batch size, a key's
    rows across batches included."""
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(7)
    counts = {k: int(rng.integers(1, 9)) for k in (2, 3, 5, 8, 9, 13, 21)}  # no 4: a gap
    game_id = [k for k, n in counts.items() for _ in range(n)]
    seq = [i for n in counts.values() for i in range(n)]
    table = pa.table({"game_id": pa.array(game_id, pa.int64()), "seq": pa.array(seq, pa.int32()),
                      "cards": pa.array([[i, i + 1] for i in range(len(seq))], pa.list_(pa.int16()))})
    path = tmp_path / "part.parquet"
    files.write_parquet(table, path, sort_key=("game_id", "seq"), durable=False)
    unsorted = tmp_path / "unsorted.parquet"
    files.write_parquet(table, unsorted, durable=False)  # no sorting claim: read whole
    monkeypatch.setattr(files, "SORTED_BATCH", batch)
    for key in [0, 2, 4, 13, 21, 22, *counts]:
        want = [r for r in table.to_pylist() if r["game_id"] == key]
        assert files.read_rows_of(path, "game_id", key, order="seq").to_pylist() == want
        assert files.read_rows_of(unsorted, "game_id", key, order="seq").to_pylist() == want
