"""The swapped deal's number on packed decks (open_packed.swapped_number): a deal of distinct
ranks counts its seat-swapped deal with it, and that deal's number, asked of every class's first
deal, must be deals.swapped_index's for every size the packed count takes (2 to 16 cards, even
piles, an odd card set aside) and at the enumeration's ends; a range's rows, its swapped deals'
least numbers among them, are those of the rows counted deal by deal on the tally."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.engines.compiled import tally as tallies
from pipeline.engines.compiled.deals import swapped_index
from pipeline.engines.table import open_counts, open_packed
from pipeline.model.rules import build_rules

numba = pytest.importorskip("numba")


@numba.njit(cache=False)
def _both(counts, seq, half):
    mirror = np.empty(seq.shape[0], np.int64)
    return swapped_index(counts, seq, mirror, half), open_packed.swapped_number(seq, half)


@pytest.mark.parametrize("cards", range(2, 17))
def test_swapped_number_is_swapped_index(cards):
    rng = np.random.default_rng(cards)
    counts = np.ones(cards, np.int64)
    seqs = [np.arange(cards), np.arange(cards)[::-1]] + [rng.permutation(cards) for _ in range(200)]
    for half in sorted({cards // 2, (cards - 1) // 2}):
        for seq in seqs:
            expected, got = _both(counts, np.ascontiguousarray(seq, np.int64), np.int64(half))
            assert got == expected, (cards, half, seq)


@pytest.mark.parametrize("ranks, start, stop", [(10, 0, 3_628_800), (11, 1_000_000, 1_700_000), (12, 53_000_000,
                                                                                                 53_400_000)])
def test_a_ranges_rows_keep_each_swapped_deals_least_number(ranks, start, stop, monkeypatch):
    rules = build_rules("classic", {"suits": "1", "ranks": str(ranks), "pickup": "natural", "war_down": "0"})
    packed = open_counts.count_rows(rules, start, stop)
    with monkeypatch.context() as m:
        m.setattr(open_counts, "packs", lambda *a: False)
        ringed = tallies.rows(open_counts.count_deals(rules, start, stop))
    assert len(packed[1]) == len(ringed[1])
    assert all(np.array_equal(a, b) for a, b in zip(packed, ringed))
