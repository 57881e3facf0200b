"""A shard's generators stepped side by side (engines.chance.prefetch, log.batches.reference_shard):
a game's StreamChance reads the outputs made for its starting state, then its own blocks, and
draws exactly Xoshiro256's outputs, whatever the number made, a seed given twice, or a game
whose seed was not among them."""

from __future__ import annotations

import pytest

from pipeline.engines import chance
from pipeline.engines.chance import StreamChance, prefetch
from pipeline.model.rng import Xoshiro256


@pytest.mark.parametrize("steps", [1, 127, 128, 300])
def test_prefetched_draws_are_the_generators(steps):
    seeds = [3, 99, 3, 2**64 - 1, 0]
    prefetch(seeds, steps)
    for seed in seeds + [7]:  # 3 twice: the second makes its own blocks; 7 was not made
        ours, theirs = StreamChance(Xoshiro256(seed)), Xoshiro256(seed)
        assert [ours.draw() for _ in range(steps + 700)] == [theirs.next() for _ in range(steps + 700)]
    assert not chance._MADE  # every made game read its own


def test_a_later_prefetch_drops_the_outputs_left():
    prefetch([5, 6], 10)
    prefetch([8], 10)
    assert len(chance._MADE) == 1
    prefetch([])
    assert not chance._MADE
    ours, theirs = StreamChance(Xoshiro256(5)), Xoshiro256(5)
    assert [ours.draw() for _ in range(20)] == [theirs.next() for _ in range(20)]
