"""A game's events in memory, and the recorders an engine reports them to."""

from __future__ import annotations

from ..errors import LogMismatch

# An event in memory: (battle, kind, seat, cards, seats, options, value, note).
EventTuple = tuple


class Recorder:
    """Keeps a game's events, in order."""

    __slots__ = ("events",)

    def __init__(self) -> None:
        self.events: list[EventTuple] = []

    @property
    def position(self) -> int:
        return len(self.events)

    def emit(self, battle: int, kind: str, seat: int | None = None, cards=(), seats=(), options=(),
             value: int | None = None, note: str | None = None) -> None:
        self.events.append((battle, kind, seat, tuple(cards), tuple(seats), tuple(options), value, note))

    def finish(self) -> None:
        """Called once after the end event."""


def describe(event: EventTuple | None) -> str:
    if event is None:
        return "no event"
    battle, kind, seat, cards, seats, options, value, note = event
    parts = [f"{kind}"]
    if seat is not None:
        parts.append(f"seat={seat}")
    if cards:
        parts.append(f"cards={list(cards)}")
    if seats:
        parts.append(f"seats={list(seats)}")
    if options:
        parts.append(f"options={list(options)}")
    if value is not None:
        parts.append(f"value={value}")
    if note is not None:
        parts.append(f"note={note}")
    parts.append(f"battle={battle}")
    return "(" + " ".join(parts) + ")"


class CheckingRecorder(Recorder):
    """Compares every event the engine makes with the logged one; stops at the first difference."""

    __slots__ = ("log",)

    def __init__(self, log: list[EventTuple]) -> None:
        super().__init__()
        self.log = log

    def emit(self, battle, kind, seat=None, cards=(), seats=(), options=(), value=None, note=None):
        ev = (battle, kind, seat, tuple(cards), tuple(seats), tuple(options), value, note)
        seq = len(self.events)
        found = self.log[seq] if seq < len(self.log) else None
        if found != ev:
            raise LogMismatch(seq, describe(ev), describe(found))
        self.events.append(ev)

    def finish(self) -> None:
        if len(self.events) != len(self.log):
            seq = len(self.events)
            raise LogMismatch(seq, "no event after the end", describe(self.log[seq]))
