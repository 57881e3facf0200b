"""The sum on disk as one merge of the shards' sorted files (jobs.counts_sum): the rows, order and
types of the sum in memory whatever the chunks it reads, kinds met in several shards added (games
summed, the least first deal kept), and a shard whose rows are out of order refused by name."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.engines.compiled import tally as tallies
from pipeline.jobs import counts as counts_job
from pipeline.jobs import counts_sum
from pipeline.jobs.generate import generate, make_plans
from pipeline.jobs.validate import validate
from pipeline.log.counts import COUNT_SCHEMA, tally_table
from pipeline.model.rules import build_rules
from pipeline.model.schema import OUTCOMES

pytest.importorskip("numba")


def random_tally(rng, rows: int, kinds: int) -> tallies.Tally:
    """A tally of `rows` games drawn from `kinds` kinds, of every outcome, cycles keyed by signed
    keys (so kinds shared between tallies meet in the merge)."""
    kind = rng.integers(0, kinds, rows)
    outcome = kind % len(OUTCOMES)
    cycle = outcome == OUTCOMES.index("cycle")
    winner = np.where(outcome == OUTCOMES.index("win"), kind // 7 % 2, -1)
    battles = kind // 3 % 50 + 1
    columns = np.stack([outcome, winner, kind // 11 % 3 - 1, battles, 2 * battles,
                        np.where(cycle, kind % 5 + 1, -1), np.where(cycle, (kind * 0x9E3779B97F4A7C1) - (1 << 62), 0)],
                       axis=1)
    return tallies.add_games(tallies.new_tally(), columns, rng.integers(0, 10**9, rows))


def merged(paths, group_rows: int, chunk: int) -> tuple[pa.Table, list[int]]:
    tables = []
    rows = counts_sum.sum_tallies([str(p) for p in paths], tables.append, group_rows, chunk)
    assert rows == sum(t.num_rows for t in tables)
    return pa.concat_tables(tables), [t.num_rows for t in tables]


@pytest.mark.parametrize("chunk", [1, 3, 64])
def test_a_merge_of_sorted_tallies_is_their_sum(tmp_path, chunk):
    rng = np.random.default_rng(53)
    parts = [random_tally(rng, int(rng.integers(1, 400)), 300) for _ in range(9)]
    paths = []
    for i, part in enumerate(parts):
        paths.append(tmp_path / f"part-{i}.parquet")
        pq.write_table(tally_table(part), paths[-1])
    whole = tally_table(tallies.merge(*parts))
    got, sizes = merged(paths, 50, chunk)
    assert got.schema == COUNT_SCHEMA and got.equals(whole)
    assert sizes[:-1] == [50] * (len(sizes) - 1) and 0 < sizes[-1] <= 50  # row groups of the sum, the last less
    assert int(pa.compute.sum(got.column("games")).as_py()) == sum(int(p.games.sum()) for p in parts)


def test_one_shard_and_an_empty_one(tmp_path):
    rng = np.random.default_rng(1)
    part = random_tally(rng, 200, 80)
    pq.write_table(tally_table(part), tmp_path / "a.parquet")
    pq.write_table(tally_table(tallies.new_tally()), tmp_path / "b.parquet")
    got, _ = merged([tmp_path / "a.parquet", tmp_path / "b.parquet"], 1000, 7)
    assert got.equals(tally_table(part))
    got, _ = merged([tmp_path / "a.parquet"], 1000, 7)
    assert got.equals(tally_table(part))


@pytest.mark.parametrize("spoil", ["swapped", "repeated"])
def test_a_shard_out_of_order_is_refused_by_name(tmp_path, spoil):
    rng = np.random.default_rng(2)
    good = tally_table(random_tally(rng, 300, 100))
    order = list(range(good.num_rows))
    if spoil == "swapped":
        order[10], order[11] = order[11], order[10]
    else:
        order[11] = order[10]
    pq.write_table(good, tmp_path / "good.parquet")
    pq.write_table(good.take(pa.array(order)), tmp_path / "bad.parquet")
    with pytest.raises(counts_sum.UnsortedTally, match="bad.parquet"):
        merged([tmp_path / "good.parquet", tmp_path / "bad.parquet"], 64, 4)


def test_a_sum_on_disk_in_small_chunks_has_the_rows_of_the_sum_in_memory(tmp_path, monkeypatch):
    rules = build_rules("classic", {"suits": "1", "ranks": "9", "pickup": "natural", "war_down": "0",
                                    "deal": "first_short"})
    monkeypatch.setattr(counts_job, "SMALLEST_COUNT_SHARD", 40_000)  # nine shards
    generate(tmp_path / "memory", make_plans([rules], all_deals=True, log="counts"))
    monkeypatch.setattr(counts_job, "SUMMED_IN_MEMORY", 0)
    monkeypatch.setattr(counts_sum, "CHUNK_ROWS", 37)
    generate(tmp_path / "disk", make_plans([rules], all_deals=True, log="counts"))
    for name in ("counts", "count_shards"):
        [memory] = (tmp_path / "memory" / name).rglob("*.parquet")
        [disk] = (tmp_path / "disk" / name).rglob("*.parquet")
        memory, disk = pq.read_table(memory), pq.read_table(disk)
        assert disk.schema == memory.schema and disk.equals(memory)
    assert validate(tmp_path / "disk").ok
