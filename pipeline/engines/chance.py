"""Where an engine's random orders come from: the game's generator, or the log."""

from __future__ import annotations

from ..errors import LogMismatch
from ..model.rng import MASK, Xoshiro256
from .event import CheckingRecorder, describe


class RandomChance:
    """Random orders from the game's generator."""

    __slots__ = ("rng",)

    def __init__(self, rng: Xoshiro256) -> None:
        self.rng = rng

    def order(self, kind: str, seat: int, cards: list[int]) -> list[int]:
        """`cards` shuffled in place: Xoshiro256.shuffle (model.rng), its draws written out in
        one loop over the generator's state in locals, a method call less per draw and two
        per shuffle (a pickup shuffles two cards a battle; tests/test_chance.py holds the two equal)."""
        rng = self.rng
        s0, s1, s2, s3 = rng.s0, rng.s1, rng.s2, rng.s3
        for i in range(len(cards) - 1, 0, -1):
            n = i + 1
            limit = _LIMITS[n] if n < _SMALL else (1 << 64) - ((1 << 64) % n)
            while True:
                x = (s1 * 5) & MASK
                x = ((((x << 7) | (x >> 57)) & MASK) * 9) & MASK
                t = (s1 << 17) & MASK
                s2 ^= s0
                s3 ^= s1
                s1 ^= s2
                s0 ^= s3
                s2 ^= t
                s3 = ((s3 << 45) | (s3 >> 19)) & MASK
                if x < limit:
                    break
            j = x % n
            cards[i], cards[j] = cards[j], cards[i]
        rng.s0, rng.s1, rng.s2, rng.s3 = s0, s1, s2, s3
        return cards


# Xoshiro256.bounded's rejection limit for each small bound.
_SMALL = 256
_LIMITS = (0,) + tuple((1 << 64) - ((1 << 64) % n) for n in range(1, _SMALL))


class LogChance:
    """Random orders read from the log, after checking they are orders of the right cards."""

    def __init__(self, recorder: CheckingRecorder) -> None:
        self.recorder = recorder

    def order(self, kind: str, seat: int, cards: list[int]) -> list[int]:
        seq = self.recorder.position
        found = self.recorder.next_logged()
        if found is None or found.kind != kind or found.seat != seat:
            raise LogMismatch(seq, f"({kind} seat={seat} ...)", describe(found))
        if sorted(found.cards) != sorted(cards):
            raise LogMismatch(seq, f"({kind} seat={seat}) of the cards {sorted(cards)}",
                              f"cards {sorted(found.cards)}")
        return list(found.cards)
