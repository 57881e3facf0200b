"""Decks of distinct ranks counted on packed positions (engines/table/open_packed.py): every deal's
tally equal to the open-play engine's (rings, Brent's check and its replays), for both deals of
an odd deck, the fixed pickups, and caps that cut games and cycles short; a packed position's
keys equal the rings'; kept deals and a tally added to are the same; the rows made sorted
(count_rows) are the tally's rows, whether the worker's cycle cache is cold, warm or starts
again, and when the kinds are too many to count and numpy sorts them."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.engines.compiled import tally as tallies
from pipeline.engines.table import open_counts, open_duel, open_packed
from pipeline.model.all_deals import deal_count
from pipeline.model.rules import build_rules
from pipeline.model.schema import OUTCOMES

pytest.importorskip("numba")


def one_suit(**options):
    return build_rules("classic", {"suits": "1", "pickup": "natural", "war_down": "0", **options})


def counted(rules, packed: bool, monkeypatch):
    with monkeypatch.context() as m:
        if not packed:
            m.setattr(open_counts, "packs", lambda *a: False)
        return tallies.rows(open_counts.count_deals(rules, 0, deal_count(rules)))


def same(a, b) -> bool:
    return len(a[1]) == len(b[1]) and all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("options", [
    {"ranks": "9", "deal": "first_short"},
    {"ranks": "8"},
    {"ranks": "9"},  # the odd card set aside
    {"ranks": "7", "deal": "first_short", "pickup": "table_order"},
    {"ranks": "8", "pickup": "winner_first"},
    {"ranks": "7", "deal": "first_short", "pickup": "sorted", "max_battles": "20"},
    {"ranks": "9", "deal": "first_short", "max_battles": "30"},  # cycles whose repeat is past the cap
    {"ranks": "8", "max_battles": "12"},
])
def test_every_deal_counts_as_the_ring_engine_counts_it(options, monkeypatch):
    rules = one_suit(**options)
    packed = counted(rules, True, monkeypatch)
    assert same(packed, counted(rules, False, monkeypatch))
    if options.get("deal") == "first_short" and "max_battles" not in options and options["ranks"] == "9":
        assert (packed[0][:, 0] == OUTCOMES.index("cycle")).any()  # the deck's games cycle: the cycles' path is tested


@pytest.mark.parametrize("options", [
    {"ranks": "9", "deal": "first_short"},
    {"ranks": "8"},  # classes: each cycle's mirror named too
    {"ranks": "9", "deal": "first_short", "max_battles": "30"},
])
def test_rows_made_sorted_are_the_tallys_rows(options, monkeypatch):
    """Three ranges in a row share the worker's cycle cache (cold, then warm); the same rows
    when the cache starts again at every growth, and when numpy sorts the kinds."""
    rules = one_suit(**options)
    ring = counted(rules, False, monkeypatch)
    count = deal_count(rules)
    cuts = [0, count // 3, 2 * count // 3, count]
    monkeypatch.setattr(open_packed, "_CYCLES", {})
    for setting in ({}, {"MOST_CACHED": 2 * open_packed.FIRST_ROWS}, {"GROUP_SLOTS": 4}):
        with monkeypatch.context() as m:
            for name, value in setting.items():
                m.setattr(open_packed, name, value)
            parts = [open_counts.count_rows(rules, a, b) for a, b in zip(cuts, cuts[1:])]
        whole = tallies.rows(tallies.merge(*(tallies.from_rows(*p) for p in parts)))
        assert same(whole, ring)
        for part, (a, b) in zip(parts, zip(cuts, cuts[1:])):
            assert same(part, tallies.rows(open_counts.count_deals(rules, a, b)))
    assert open_packed._CYCLES  # the cache was kept between ranges


def test_kept_deals_are_the_ring_engines(monkeypatch):
    """Keeping deals asks the kinds by their cycles' keys: the packed walk hashes its cycles
    then, and keeps the same deals."""
    rules = one_suit(ranks="9", deal="first_short")
    kinds = tallies.from_rows(*counted(rules, False, monkeypatch))
    packed = open_counts.keep_deals(rules, 0, deal_count(rules), kinds, 500)
    with monkeypatch.context() as m:
        m.setattr(open_counts, "packs", lambda *a: False)
        assert np.array_equal(packed, open_counts.keep_deals(rules, 0, deal_count(rules), kinds, 500))
    assert len(packed) == 500


def test_a_range_counted_onto_a_tally_adds_to_it(monkeypatch):
    rules = one_suit(ranks="8", deal="first_short")
    half = deal_count(rules) // 2
    whole = open_counts.count_deals(rules, half, deal_count(rules), open_counts.count_deals(rules, 0, half))
    assert same(tallies.rows(whole), counted(rules, False, monkeypatch))


def test_a_packed_position_has_the_rings_keys():
    rng = np.random.default_rng(5)
    for cards in (5, 11, 13, 15):
        for _ in range(50):
            order = rng.permutation(cards).astype(np.uint8)
            n0 = int(rng.integers(1, cards))
            word = np.uint64(0)
            for i, c in enumerate(order):
                word |= np.uint64(int(c)) << np.uint64(4 * i)
            word |= np.uint64(n0) << np.uint64(60)
            cap = int(open_duel._ring_cap(cards))
            ring = np.zeros(2 * cap, np.uint8)
            ring[:n0] = order[:n0]
            ring[cap:cap + cards - n0] = order[n0:]
            assert open_packed.packed_keys(word, cards) == open_duel._position_keys(ring, cap - 1, cap, 0, 0, n0,
                                                                                     cards - n0)


def test_only_decks_of_distinct_ranks_that_fit_a_word_are_packed():
    assert open_packed.packs([1] * 13, 13, 10_000) and open_packed.packs([1] * 15, 15, 10_000)
    assert not open_packed.packs([1] * 16, 16, 10_000) and not open_packed.packs([2, 2, 2], 6, 10_000)
    assert not open_packed.packs([1] * 13, 13, open_packed.MOST_CAP + 1)
