"""A rule set whose shard tallies are too many rows to sum in memory (one suit of 13 ranks) is
summed on disk (jobs.counts._sum_on_disk): the same rows, in the same order and types, and the
same shards file, as the sum in memory; the dataset validates (every shard counted again)."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from pipeline.jobs import counts as counts_job
from pipeline.jobs.generate import generate, make_plans
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules

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
