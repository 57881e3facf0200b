"""How a seat decides to slap a pair (README 2): a policy is a function of what the seat sees,
`SlapView`, and its own generator, and returns the seats that slap: its own, or none."""

from __future__ import annotations

from typing import NamedTuple


class SlapView(NamedTuple):
    """Seat `seat` sees a pair of rank `rank` (a rank index: 0 for 2s) on a table of
    `table` cards; it holds `own_cards` cards. A NamedTuple, read-only as a frozen dataclass is
    and made in a third of its time: a view is made at every pair, about 40 times a game."""

    seat: int
    rank: int
    table: int
    own_cards: int


def always(v: SlapView, rng) -> tuple[int, ...]:
    return (v.seat,)


def never(v: SlapView, rng) -> tuple[int, ...]:
    return ()


def random(v: SlapView, rng) -> tuple[int, ...]:
    return (v.seat,) if rng.bounded(2) else ()


def high(n: int):
    def slap_high(v: SlapView, rng) -> tuple[int, ...]:
        return (v.seat,) if v.rank >= n else ()
    slap_high.__name__ = f"slap_high_{n}"
    return slap_high
