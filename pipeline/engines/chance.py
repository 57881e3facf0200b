"""Where an engine's random orders come from: the game's generator, or the log."""

from __future__ import annotations

from ..errors import LogMismatch
from ..model.rng import Xoshiro256
from .event import CheckingRecorder, describe


class RandomChance:
    """Random orders from the game's generator."""

    def __init__(self, rng: Xoshiro256) -> None:
        self.rng = rng

    def order(self, kind: str, seat: int, cards: list[int]) -> list[int]:
        self.rng.shuffle(cards)
        return cards


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
