"""A rule set whose shard tallies are too many rows to sum in memory (one suit of 13 ranks) is
summed on disk (jobs.counts._sum_on_disk): the same rows, in the same order and types, and the
same shards file, as the sum in memory; the dataset validates (every shard counted again). A
shard's digest folded from its sorted file is its tally's; 1 and 2 workers write the same
bytes."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

import numpy as np

from pipeline.engines.compiled import tally as tallies
from pipeline.jobs import counts as counts_job
from pipeline.jobs.generate import generate, make_plans
from pipeline.jobs.validate import validate
from pipeline.log.counts import table_digest, tally_table
from pipeline.model.schema import OUTCOMES, Manifest
from pipeline.model.rules import build_rules
from pipeline.storage.files import write_parquet

pytest.importorskip("numba")
pytest.importorskip("duckdb")


def table(root, name):
    [path] = (root / name).rglob("*.parquet")
    return pq.read_table(path)


def test_the_sum_on_disk_has_the_rows_of_the_sum_in_memory(tmp_path, monkeypatch):
    rules = build_rules("classic", {"suits": "1", "ranks": "9", "pickup": "natural", "war_down": "0",
                                    "deal": "first_short"})
    generate(tmp_path / "memory", make_plans([rules], all_deals=True, log="counts"))
    monkeypatch.setattr(counts_job, "SUMMED_IN_MEMORY", 0)
    generate(tmp_path / "disk", make_plans([rules], all_deals=True, log="counts"))
    for name in ("counts", "count_shards"):
        memory, disk = table(tmp_path / "memory", name), table(tmp_path / "disk", name)
        assert disk.schema == memory.schema and disk.equals(memory)
    assert table(tmp_path / "disk", "counts").num_rows > 2048  # more than one batch of the sum on disk
    assert validate(tmp_path / "disk").ok
    assert not (tmp_path / "disk" / ".war").exists()


def one_suit_first_short():
    return build_rules("classic", {"suits": "1", "ranks": "9", "pickup": "natural", "war_down": "0",
                                   "deal": "first_short"})


def test_one_and_two_workers_write_the_same_bytes(tmp_path, monkeypatch):
    """Nine shards, so each worker counts several with its own cycle cache; on disk too."""
    monkeypatch.setattr(counts_job, "SMALLEST_COUNT_SHARD", 40_000)
    plans = make_plans([one_suit_first_short()], all_deals=True, log="counts")
    for disk in (False, True):
        if disk:
            monkeypatch.setattr(counts_job, "SUMMED_IN_MEMORY", 0)
        sums = []
        for workers in (1, 2):
            out = tmp_path / f"{disk}-{workers}"
            generate(out, plans, workers=workers)
            manifest = Manifest.model_validate_json((out / "manifest.json").read_text())
            sums.append(sorted((f.path, f.sha256) for f in manifest.files if f.table in ("counts", "count_shards")))
        assert sums[0] == sums[1] and len(sums[0]) == 2
        assert table(tmp_path / f"{disk}-1", "count_shards").num_rows == 10


def test_a_shards_digest_folded_from_its_file_is_its_tallys(tmp_path):
    rng = np.random.default_rng(3)
    keys = np.stack([rng.integers(0, 4, 500), rng.integers(-1, 2, 500), rng.integers(-1, 2, 500),
                     rng.integers(0, 40, 500), rng.integers(0, 80, 500), rng.integers(-1, 30, 500),
                     rng.integers(-2**63, 2**63 - 1, 500, dtype=np.int64)], axis=1)
    keys[keys[:, 0] != OUTCOMES.index("cycle"), 6] = 0  # a key for cycles only, as a table holds them
    tally = tallies.from_rows(keys, rng.integers(1, 9, 500), rng.integers(0, 10**6, 500))
    sorted_table = tally_table(tally)
    assert table_digest(sorted_table) == tallies.digest(tally)
    shuffled = sorted_table.take(rng.permutation(sorted_table.num_rows))  # not in key order: its tally's digest
    assert table_digest(shuffled) == tallies.digest(tally)
    write_parquet(sorted_table, tmp_path / "part.parquet")  # a journal entry without the worker's digest
    assert counts_job._shard_digest(tmp_path, {"path": "part.parquet"}) == tallies.digest(tally)
