"""The sum on disk cut into slices (jobs.counts_sum): a slice never mixes two (outcome, winner,
first_of_class) heads and holds at most its rows unless one battles value alone holds more, and
a sum in many slices has the rows, order and types of the sum in memory."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from pipeline.jobs import counts as counts_job
from pipeline.jobs import counts_sum
from pipeline.jobs.generate import generate, make_plans
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules

pytest.importorskip("numba")
pytest.importorskip("duckdb")


def test_slices_follow_the_heads_and_hold_at_most_their_rows():
    histogram = [("win", 0, None, 3, 4), ("win", 0, None, 4, 5), ("win", 0, None, 5, 2),
                 ("win", 1, None, 3, 20), ("win", 1, None, 4, 1), ("cycle", None, True, 7, 3)]
    assert counts_sum.slices(histogram, 9) == [
        ("win", 0, None, 3, 4), ("win", 0, None, 5, 5), ("win", 1, None, 3, 3), ("win", 1, None, 4, 4),
        ("cycle", None, True, 7, 7)]
    assert counts_sum.slices(histogram, 100) == [("win", 0, None, 3, 5), ("win", 1, None, 3, 4),
                                                 ("cycle", None, True, 7, 7)]
    assert counts_sum.slices([], 5) == []


def test_a_sum_in_many_slices_has_the_rows_of_the_sum_in_memory(tmp_path, monkeypatch):
    rules = build_rules("classic", {"suits": "1", "ranks": "9", "pickup": "natural", "war_down": "0",
                                    "deal": "first_short"})
    generate(tmp_path / "memory", make_plans([rules], all_deals=True, log="counts"))
    monkeypatch.setattr(counts_job, "SUMMED_IN_MEMORY", 0)
    monkeypatch.setattr(counts_sum, "SLICE_ROWS", 500)
    cut = []
    real = counts_sum.slices
    monkeypatch.setattr(counts_sum, "slices", lambda histogram, most: cut.extend(real(histogram, most)) or cut)
    generate(tmp_path / "disk", make_plans([rules], all_deals=True, log="counts"))
    assert len({piece[:3] for piece in cut}) >= 2 and len(cut) > len({piece[:3] for piece in cut})
    for name in ("counts", "count_shards"):
        [memory] = (tmp_path / "memory" / name).rglob("*.parquet")
        [disk] = (tmp_path / "disk" / name).rglob("*.parquet")
        memory, disk = pq.read_table(memory), pq.read_table(disk)
        assert disk.schema == memory.schema and disk.equals(memory)
    assert validate(tmp_path / "disk").ok
