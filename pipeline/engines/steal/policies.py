"""Steal War's policies (docs/rules.md 6): which won piles to steal, which won card to put on top.

A policy is a plain function of a *view*, a frozen record of exactly what that player may see
when it decides (its own looked-at card, the face-up cards on the table and on top of the won
piles, pile sizes), never another player's hidden cards; `rng` is the seat's own generator.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StealView:
    """Seat `seat` has looked at `card`; `eligible` maps each opponent whose won pile's top card
    matches its rank to that pile's size. `own_cards` is its draw plus won pile size."""

    seat: int
    card: int
    rank: int
    eligible: tuple[tuple[int, int], ...]
    own_cards: int
    in_war: bool


@dataclass(frozen=True)
class TopView:
    """Seat `seat` won `cards` (table order, all face up); `ranks` gives each card's rank and
    `copies` how many cards of each rank the deck holds."""

    seat: int
    cards: tuple[int, ...]
    ranks: tuple[int, ...]
    copies: tuple[int, ...]
    visible_tops: tuple[int | None, ...]


def steal_always(v: StealView, rng) -> tuple[int, ...]:
    return tuple(seat for seat, _ in v.eligible)


def steal_never(v: StealView, rng) -> tuple[int, ...]:
    return ()


def steal_random(v: StealView, rng) -> tuple[int, ...]:
    """Each eligible pile with probability 1/2."""
    return tuple(seat for seat, _ in v.eligible if rng.bounded(2))


def steal_threshold(n: int):
    def steal_if_big(v: StealView, rng) -> tuple[int, ...]:
        return tuple(seat for seat, size in v.eligible if size >= n)
    steal_if_big.__name__ = f"steal_threshold_{n}"
    return steal_if_big


def top_as_played(v: TopView, rng) -> int:
    return v.cards[0]


def top_highest(v: TopView, rng) -> int:
    best = max(v.ranks)
    return v.cards[v.ranks.index(best)]


def top_protect(v: TopView, rng) -> int:
    """The card whose rank is hardest to match: fewest copies of its rank outside this bundle
    (ties: the higher rank, then the first in table order)."""
    def left(i: int) -> tuple[int, int, int]:
        r = v.ranks[i]
        return (v.copies[r] - v.ranks.count(r), -r, i)
    return v.cards[min(range(len(v.cards)), key=left)]


def top_random(v: TopView, rng) -> int:
    return v.cards[rng.bounded(len(v.cards))]
