"""StreamChance.order's shuffles written out for each size (engines.chance._PLACES): the same
cards and the same draws as the specified Xoshiro256.shuffle, for every size, prefetched or not;
and once the generator has made one of its top outputs (`near_top`), the same draws checked
against their bounds, a rejected draw drawn again, as Xoshiro256.bounded does."""

from __future__ import annotations

import pytest

from pipeline.engines import chance
from pipeline.engines.chance import StreamChance, prefetch
from pipeline.model.rng import Xoshiro256


@pytest.mark.parametrize("prefetched", [False, True])
def test_written_out_shuffles_are_xoshiro_shuffle(prefetched):
    sizes = list(range(0, 60)) + [255, 256, 257, 300]
    seeds = list(range(12))
    prefetch(seeds if prefetched else [])
    for seed in seeds:
        ours, theirs = StreamChance(Xoshiro256(seed)), Xoshiro256(seed)
        for size in sizes:
            got, want = list(range(size)), list(range(size))
            ours.order("collect", 0, got)
            theirs.shuffle(want)
            assert got == want, (seed, size)
        assert not ours.near_top
        assert ours.draw() == theirs.next()
    prefetch([])


class Scripted(Xoshiro256):
    """The generator with outputs of our choosing."""

    def __init__(self, outputs):
        self.outputs = iter(outputs)

    def next(self):
        return next(self.outputs)


@pytest.mark.parametrize("size", [3, 5, 10, 18, 52])
def test_a_top_output_made_mid_shuffle_is_checked(monkeypatch, size):
    """The top outputs come in the second block, made while the shuffle draws: the draws then
    go through the checked loop, and a rejected one is drawn again."""
    top = (1 << 64) - 1  # past the limit of every bound that does not divide 2^64
    clean = [1000]
    tops = [top, top - 1, 5, top, 4, 2**63 + 1, top - 2, 9] + list(range(100, 300))
    blocks = iter([clean, tops])
    monkeypatch.setattr("pipeline.engines.chance.generator_block", lambda state, steps: (next(blocks), state))
    ours = StreamChance(Xoshiro256(1))
    got, want = list(range(size)), list(range(size))
    ours.order("collect", 0, got)
    theirs = Scripted(clean + tops)
    theirs.shuffle(want)
    assert ours.near_top
    assert got == want
    assert ours.draw() == theirs.next()


def test_prefetch_marks_a_game_whose_outputs_reach_the_top(monkeypatch):
    """A prefetched row holding an output at or past _TOP starts its chance `near_top` (here
    every row: the mark lowered), whose shuffles are still the generator's."""
    monkeypatch.setattr(chance, "_TOP", 1 << 63)
    prefetch([4, 5])
    for seed in (4, 5):
        ours, theirs = StreamChance(Xoshiro256(seed)), Xoshiro256(seed)
        assert ours.near_top
        for size in (2, 10, 52):
            got, want = list(range(size)), list(range(size))
            ours.order("collect", 0, got)
            theirs.shuffle(want)
            assert got == want
    prefetch([])
