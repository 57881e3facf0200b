"""The compiled engines' generator (pipeline/engines/compiled/rng.py) against the reference one
(pipeline/model/rng.py), bit for bit: SplitMix64's outputs and the games' seeds, xoshiro256**'s
outputs, bounded draws with their rejections and the Fisher-Yates shuffle, and the deal the
table family's compiled engine logs against pipeline.model.deal.shuffled_deal."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

from pipeline.engines.compiled.layout import EVENT_CARDS_END  # noqa: E402
from pipeline.engines.compiled.rng import (  # noqa: E402
    _RECIPROCALS, bounded_draws, game_seeds, remainders, shuffled_range, splitmix_outputs, xoshiro_outputs,
)
from pipeline.engines.table.compiled import play_arrays  # noqa: E402
from pipeline.model.deal import shuffled_deal  # noqa: E402
from pipeline.model.rng import MASK, SplitMix64, Xoshiro256, game_seed  # noqa: E402
from pipeline.model.rules import build_rules  # noqa: E402


def test_design_test_vectors():
    assert splitmix_outputs(np.uint64(0), 3).tolist() == [
        16294208416658607535, 7960286522194355700, 487617019471545679]
    assert game_seeds(np.uint64(42), 0, 3).tolist() == [
        13679457532755275413, 2949826092126892291, 5139283748462763858]
    assert xoshiro_outputs(np.uint64(game_seed(42, 0)), 3).tolist() == [
        1865750160070900731, 6791145067590612263, 14118064813682728970]


@pytest.mark.parametrize("master", [0, 1, 42, 2**63 - 1, 2**63, MASK - 5, MASK])
def test_game_seeds_and_streams_match_rng_py(master):
    assert game_seeds(np.uint64(master), 0, 200).tolist() == [game_seed(master, i) for i in range(200)]
    assert game_seeds(np.uint64(master), 10**9, 10**9 + 5).tolist() == [
        game_seed(master, i) for i in range(10**9, 10**9 + 5)]
    sm = SplitMix64(master)
    assert splitmix_outputs(np.uint64(master), 20).tolist() == [sm.next() for _ in range(20)]
    x = Xoshiro256(master)
    assert xoshiro_outputs(np.uint64(master), 100).tolist() == [x.next() for _ in range(100)]


def test_bounded_matches_rng_py_including_rejections():
    r = random.Random(5)
    bounds = [1, 2, 3, 52, 53, 1000, 2**32 + 1, 2**63 - 1, 2**63, 2**63 + 1, 3 * 2**62, MASK - 1, MASK]
    bounds += [r.randrange(1, 2**64) for _ in range(200)] + [r.randrange(1, 200) for _ in range(200)]
    for seed in (0, 9, MASK):
        x = Xoshiro256(seed)
        assert bounded_draws(np.uint64(seed), np.array(bounds, np.uint64)).tolist() == [
            x.bounded(b) for b in bounds]


def test_a_remainder_by_reciprocal_is_the_remainder():
    """A small bound's draw is reduced by a multiplication (rng._remainder): the remainder of
    every x, the highest, multiples of n and their neighbours, and random ones among them."""
    r = random.Random(3)
    for n in range(2, _RECIPROCALS.shape[0]):
        xs = [0, 1, n - 1, n, n + 1, MASK, MASK - 1, MASK - n, MASK // n * n, MASK // n * n - 1, 2**63, 2**32 * n - 1]
        xs += [k * n + d for k in (r.randrange(2**64 // n) for _ in range(30)) for d in (0, n - 1) if k * n + d <= MASK]
        xs += [r.randrange(2**64) for _ in range(300)]
        assert remainders(np.array(xs, np.uint64), np.uint64(n)).tolist() == [x % n for x in xs], n


@pytest.mark.parametrize("size", [1, 2, 10, 52, 54, 1000])
def test_shuffle_matches_rng_py(size):
    for i in range(20):
        seed = game_seed(77, i)
        deck = list(range(size))
        Xoshiro256(seed).shuffle(deck)
        assert shuffled_range(np.uint64(seed), size).tolist() == deck


def test_deal_matches_shuffled_deal():
    rules = build_rules("multiplayer", {"players": "3"})
    evi, cv, *_ = play_arrays(rules, 42, 0, 1)
    deal = shuffled_deal(rules, Xoshiro256(game_seed(42, 0)))
    ends = evi[:4, EVENT_CARDS_END].tolist()
    got = [tuple(cv[a:b].tolist()) for a, b in zip([0] + ends, ends)]
    assert got == list(deal.piles) + [deal.set_aside]

