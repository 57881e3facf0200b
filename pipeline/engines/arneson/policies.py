"""Arneson's War's policies (docs/rules.md 7): which card of its hand a seat plays.

A policy is a plain function of a *view*, a frozen record of exactly what that player may see
when it decides (its own hand, pile sizes, the rank of a war's tied cards), never the other
hand; `rng` is the seat's own generator.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HandView:
    """Seat `seat` holds `hand` (sorted by code) and must play one; `in_war` is True for a
    war's fourth card, when `tied_rank` is the rank that caused the war."""

    seat: int
    hand: tuple[int, ...]
    ranks: tuple[int, ...]
    in_war: bool
    tied_rank: int | None
    own_pile: int
    other_pile: int
    other_hand: int


def hand_highest(v: HandView, rng) -> int:
    return v.hand[max(range(len(v.hand)), key=lambda i: (v.ranks[i], -i))]


def hand_lowest(v: HandView, rng) -> int:
    return v.hand[min(range(len(v.hand)), key=lambda i: (v.ranks[i], i))]


def hand_random(v: HandView, rng) -> int:
    return v.hand[rng.bounded(len(v.hand))]


def hand_save_high(v: HandView, rng) -> int:
    """Keep high cards for wars: the lowest card in a battle, the highest as a war's fourth card."""
    return hand_highest(v, rng) if v.in_war else hand_lowest(v, rng)
