"""A cycle's key: one number for the positions a game loops through, whatever position it
entered the loop by, so that the games that fall into one cycle can be counted together
(the named query `cycles`). The compiled engine computes the same (compiled/cycles.py).

A position is by ranks (docs/rules.md 2.6: suits never decide a game, so positions that differ
only by suits play alike and are one position). Its key folds, seat by seat, the pile's size and
its ranks top first (rank index + 1), then, where seats hold hands, the hand's size and its ranks
in order; then, under wars:N, every seat's war wins; and mixes the result (the generator's
finaliser).
The cycle's key is the least key of its positions, as a signed 64-bit number. Two cycles could
share a key only by a 64-bit collision (about one chance in 10^9 among 10^5 cycles).
"""

from __future__ import annotations

from itertools import islice

from ..model.rng import HASH_START, _fold, _mix


def position_key(position: tuple, counts_war_wins: bool) -> int:
    """The key of a reference engine's position (Game.position): (piles, war wins) or (piles,
    hands, war wins), cards as rank indices."""
    piles, hands, war_wins = position if len(position) == 3 else (position[0], None, position[1])
    h = HASH_START
    for seat, pile in enumerate(piles):
        h = _fold(h, len(pile))
        for rank in pile:
            h = _fold(h, rank + 1)
        if hands is not None:
            h = _fold(h, len(hands[seat]))
            for rank in hands[seat]:
                h = _fold(h, rank + 1)
    if counts_war_wins:
        for wins in war_wins:
            h = _fold(h, wins)
    return _mix(h)


def cycle_key(seen: dict, first: int, counts_war_wins: bool) -> int:
    """The key of the cycle of positions `first`.. of `seen` (each position of the game in the
    order they came), as a signed 64-bit number."""
    key = min(position_key(p, counts_war_wins) for p in islice(seen, first, None))
    return key - (1 << 64) if key >= 1 << 63 else key
