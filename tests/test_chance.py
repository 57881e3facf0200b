"""The reference engines' random orders (pipeline/engines/chance.py): RandomChance.order, which
writes the generator's draws out in one loop, shuffles exactly as the specified generator's
Xoshiro256.shuffle does and leaves it in the same state, for every size of pile (past the
bounds whose rejection limits it keeps in a table)."""

from __future__ import annotations

import pytest

from pipeline.engines.chance import RandomChance
from pipeline.model.rng import Xoshiro256


@pytest.mark.parametrize("size", [0, 1, 2, 3, 5, 52, 255, 256, 300])
def test_order_is_xoshiro_shuffle(size):
    for seed in range(40):
        ours, theirs = Xoshiro256(seed), Xoshiro256(seed)
        cards = list(range(size))
        expected = list(range(size))
        theirs.shuffle(expected)
        assert RandomChance(ours).order("collect", 0, cards) == expected
        assert (ours.s0, ours.s1, ours.s2, ours.s3) == (theirs.s0, theirs.s1, theirs.s2, theirs.s3)
        assert ours.next() == theirs.next()

