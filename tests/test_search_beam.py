"""The beam that takes battles back (engines.table.unplay) keeps, each battle back, the positions
of greatest promise, drawing at random among the equals at the edge: a count by promise, not a
sort of the level (issue 53). What it keeps is what a sort would keep, up to the draw."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from pipeline.model.rng import Xoshiro256  # noqa: E402
from pipeline.engines.table import unplay  # noqa: E402


def kept(promise, width, seed):
    state = Xoshiro256(seed)
    rng = np.array([state.s0, state.s1, state.s2, state.s3], np.uint64)
    c = len(promise)
    order = np.zeros(max(2 * width, c), np.int64)
    tally = np.zeros(int(promise.max()) + 2, np.int64)
    m = unplay._keep_best(promise.astype(np.int64), c, width, rng, order, tally)
    return order[:m].copy()


@pytest.mark.parametrize("seed", range(6))
def test_the_beam_keeps_the_positions_a_sort_by_promise_would(seed):
    draw = np.random.default_rng(seed)
    c, width = int(draw.integers(1, 400)), int(draw.integers(1, 300))
    promise = draw.integers(0, 12, c)
    order = kept(promise, width, seed)
    assert len(order) == min(c, width) and len(set(order.tolist())) == len(order)
    assert sorted(promise[order].tolist()) == sorted(promise.tolist())[c - len(order):]


def test_the_draw_among_equals_is_the_seeds_and_reaches_every_one():
    promise = np.array([5] * 20 + [9] * 3, np.int64)
    first = kept(promise, 8, 1)
    assert first.tolist() == kept(promise, 8, 1).tolist()
    assert set(first[:3].tolist()) == {20, 21, 22}
    reached = set()
    for seed in range(60):
        reached |= set(kept(promise, 8, seed).tolist())
    assert reached == set(range(23))
