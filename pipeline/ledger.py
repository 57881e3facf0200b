"""Where every card is, event by event: an interpreter of the log that knows nothing of the
rules except how cards move.

It checks the invariant that every card is in exactly one place (a pile, a won pile, the
table, set aside) at every step, independently of the engine, and gives replay the piles to show.
"""

from __future__ import annotations

from collections import deque

from .engine import EventTuple, describe
from .errors import LogMismatch

PILE, WON, TABLE, ASIDE = "pile", "won", "table", "aside"


class Ledger:
    def __init__(self, players: int, deck_size: int, pooled: bool = False) -> None:
        self.n = players
        self.deck_size = deck_size
        self.pooled = pooled
        self.piles = [deque() for _ in range(players)]
        self.won: list[list[int]] = [[] for _ in range(players)]
        self.table: list[tuple[int, int | None, str]] = []  # (card, seat, face)
        self.aside: list[int] = []
        self.where: dict[int, str] = {}
        self.seq = 0
        self.dealt = False

    def _fail(self, event: EventTuple, why: str) -> LogMismatch:
        return LogMismatch(self.seq, why, describe(event), what="event")

    def places(self) -> list[int]:
        """Every card in play or aside, from every place a card can be: one entry per card."""
        cards = [c for p in self.piles for c in p] + [c for w in self.won for c in w]
        return cards + [c for c, _, _ in self.table] + list(self.aside)

    def holding(self, seat: int) -> int:
        return len(self.piles[seat]) + len(self.won[seat])

    def _take_top(self, event, seat: int, cards) -> None:
        pile = self.piles[seat]
        if len(pile) < len(cards) or any(pile[i] != c for i, c in enumerate(cards)):
            top = list(pile)[:len(cards)]
            raise self._fail(event, f"seat {seat}'s top cards {top}")
        for _ in cards:
            pile.popleft()

    def _place(self, event, cards, where: str) -> None:
        for c in cards:
            if not 0 <= c < self.deck_size:
                raise self._fail(event, f"cards of a deck of {self.deck_size}")
            if c in self.where:
                raise self._fail(event, f"card {c} once only (it is already in {self.where[c]})")
            self.where[c] = where

    def apply(self, event: EventTuple) -> None:
        kind = event[1]
        if not self.dealt and kind != "deal" and kind != "set_aside":
            self._begin(event)
        if kind == "play" or kind == "down":
            seat, cards = event[2], event[3]
            pile = self.piles[seat]
            if len(cards) == 1 and pile and pile[0] == cards[0]:
                pile.popleft()
            else:
                self._take_top(event, seat, cards)
            face = "up" if kind == "play" else "down"
            self.table.extend((c, seat, face) for c in cards)
        elif kind == "collect" or (kind == "set_aside" and self.dealt):
            seat, cards = event[2], event[3]
            on_table = [c for c, _, _ in self.table]
            if sorted(cards) != sorted(on_table):
                raise self._fail(event, f"the table's cards {on_table}")
            self.table = []
            if kind == "set_aside":
                self.aside.extend(cards)
            elif self.pooled:
                self.won[seat][:0] = cards
            else:
                self.piles[seat].extend(cards)
            total = sum(map(len, self.piles)) + sum(map(len, self.won)) + len(self.aside)
            if total != self.deck_size:
                raise self._fail(event, f"{self.deck_size} cards in piles and aside, found {total}")
        elif kind in ("war", "war_out", "end", "out", "forfeit", "reshuffle", "deal", "set_aside"):
            self._rare(event)
        else:
            raise self._fail(event, "a known event kind")
        self.seq += 1

    def _begin(self, event: EventTuple) -> None:
        if len(self.where) != self.deck_size:
            raise self._fail(event, f"a deal of all {self.deck_size} cards before play "
                                    f"(only {len(self.where)} dealt)")
        self.dealt = True

    def _rare(self, event: EventTuple) -> None:
        battle, kind, seat, cards = event[:4]
        if kind in ("deal", "set_aside"):
            if self.dealt or battle != 0:
                raise self._fail(event, "the deal only at the start")
            self._place(event, cards, ASIDE if kind == "set_aside" else PILE)
            if kind == "deal":
                self.piles[seat].extend(cards)
            else:
                self.aside.extend(cards)
            return
        if kind == "forfeit":
            held = list(self.piles[seat]) + self.won[seat]
            if list(cards) != held:
                raise self._fail(event, f"all of seat {seat}'s cards {held}")
            self.piles[seat].clear()
            self.won[seat] = []
            self.table.extend((c, seat, "down") for c in cards)
        elif kind == "reshuffle":
            if self.piles[seat]:
                raise self._fail(event, f"seat {seat}'s pile empty before a reshuffle")
            if sorted(cards) != sorted(self.won[seat]):
                raise self._fail(event, f"seat {seat}'s won pile {self.won[seat]}")
            self.won[seat] = []
            self.piles[seat].extend(cards)
        elif kind == "out":
            if self.holding(seat):
                raise self._fail(event, f"seat {seat} to hold no card when out")
        elif kind == "end":
            if self.table:
                raise self._fail(event, "an empty table at the end")


def audit(log: list[EventTuple], players: int, deck_size: int, pooled: bool) -> Ledger:
    """Walk a whole log through a ledger; raises LogMismatch at the first impossible move."""
    ledger = Ledger(players, deck_size, pooled)
    for event in log:
        ledger.apply(event)
    if not log or log[-1][1] != "end":
        raise LogMismatch(len(log), "an end event last", describe(log[-1] if log else None))
    return ledger
