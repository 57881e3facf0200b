"""Where every card is, event by event: an interpreter of the log that knows nothing of the
rules except how cards move, which it reads from each event kind's places (model.event_kinds).

It checks the invariant that every card is in exactly one place (a pile, a won pile, a hand,
the table, set aside) at every step, independently of the engine, and gives replay the piles to
show. `won_piles`: collections go on top of a won pile (pooled pickup, Steal War); `hands`: face-up
cards are played from the hand (Arneson's War).
"""

from __future__ import annotations

from collections import deque

from ..engines.event import Event, describe
from ..engines.families import family_of
from ..errors import LogMismatch
from ..model.deal import deck_of
from ..model.event_kinds import BY_NAME
from .codec import END_KINDS

PILE, WON, TABLE, ASIDE = "pile", "won", "table", "aside"


class Ledger:
    def __init__(self, players: int, deck_size: int, won_piles: bool = False, hands: bool = False) -> None:
        self.n = players
        self.deck_size = deck_size
        self.pooled = won_piles
        self.use_hands = hands
        self.piles = [deque() for _ in range(players)]
        self.won: list[list[int]] = [[] for _ in range(players)]
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.battle = 0
        self.table: list[tuple[int, int | None, str]] = []  # (card, seat, face)
        self.aside: list[int] = []
        self.where: dict[int, str] = {}
        self.seq = 0
        self.dealt = False

    def _fail(self, event: Event, why: str) -> LogMismatch:
        return LogMismatch(self.seq, why, describe(event), what="event")

    def places(self) -> list[int]:
        """Every card in play or aside, from every place a card can be: one entry per card."""
        cards = [c for p in self.piles for c in p] + [c for w in self.won for c in w]
        cards += [c for h in self.hands for c in h]
        return cards + [c for c, _, _ in self.table] + list(self.aside)

    def holding(self, seat: int) -> int:
        return len(self.piles[seat]) + len(self.won[seat]) + len(self.hands[seat])

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

    def apply(self, event: Event) -> None:
        kind = BY_NAME.get(event.kind)
        if kind is None:
            raise self._fail(event, "a known event kind")
        dealing = kind.source == "deck" or (kind.at_deal and not self.dealt)
        if dealing:
            self._deal(event, kind)
            self.seq += 1
            return
        if not self.dealt:
            self._begin(event)
        if event.battle != self.battle:
            if self.table:
                raise self._fail(event, f"an empty table before battle {event.battle}")
            self.battle = event.battle
        if kind.check:
            self._check(event, kind.check)
        if kind.source:
            self._take(event, kind.source)
            self._put(event, kind)
            if kind.source == "table" and not self.table:
                total = sum(map(len, self.piles)) + sum(map(len, self.won)) + sum(map(len, self.hands)) \
                    + len(self.aside)
                if total != self.deck_size:
                    raise self._fail(event, f"{self.deck_size} cards in piles and aside, found {total}")
        self.seq += 1

    def _begin(self, event: Event) -> None:
        if len(self.where) != self.deck_size:
            raise self._fail(event, f"a deal of all {self.deck_size} cards before play "
                                    f"(only {len(self.where)} dealt)")
        self.dealt = True

    def _deal(self, event: Event, kind) -> None:
        """A dealing event: its cards from the deck, each once, to the seat's pile or aside."""
        if self.dealt or event.battle != 0:
            raise self._fail(event, "the deal only at the start")
        self._place(event, event.cards, ASIDE if kind.target == "aside" else PILE)
        if kind.target == "aside":
            self.aside.extend(event.cards)
        else:
            self.piles[event.seat].extend(event.cards)

    def _check(self, event: Event, check: str) -> None:
        seat = event.seat
        if check == "pile_empty":
            if self.piles[seat]:
                raise self._fail(event, f"seat {seat}'s pile empty before a {event.kind}")
        elif check == "holds_nothing":
            if self.hands[seat] if self.use_hands else self.holding(seat):
                raise self._fail(event, f"seat {seat} to hold no {'hand ' if self.use_hands else ''}card when out")
        elif check == "table_empty":
            if self.table:
                raise self._fail(event, "an empty table at the end")

    def _take(self, event: Event, source: str) -> None:
        """The event's cards leave `source` (model.event_kinds.PLACES), as the kind says."""
        seat, cards = event.seat, event.cards
        if source == "top" and self.use_hands:
            for c in cards:
                if c not in self.hands[seat]:
                    raise self._fail(event, f"a card of seat {seat}'s hand {sorted(self.hands[seat])}")
                self.hands[seat].remove(c)
        elif source in ("top", "pile"):
            pile = self.piles[seat]
            if len(cards) == 1 and pile and pile[0] == cards[0]:
                pile.popleft()
            else:
                self._take_top(event, seat, cards)
        elif source == "table":
            on_table = [c for c, _, _ in self.table]
            if len(set(cards)) != len(cards) or not set(cards) <= set(on_table):
                raise self._fail(event, f"cards from the table {on_table}")
            taken = set(cards)
            self.table = [t for t in self.table if t[0] not in taken]
        elif source == "held":
            held = list(self.piles[seat]) + self.won[seat] + sorted(self.hands[seat])
            if list(cards) != held:
                raise self._fail(event, f"all of seat {seat}'s cards {held}")
            self.piles[seat].clear()
            self.won[seat] = []
            self.hands[seat] = []
        elif source == "won":
            if sorted(cards) != sorted(self.won[seat]):
                raise self._fail(event, f"seat {seat}'s won pile {self.won[seat]}")
            self.won[seat] = []
        elif source == "stolen":
            self._take_top(event, seat, cards[:1])
            rest = list(cards[1:])
            for other in event.seats:
                pile = self.won[other]
                if other == seat or not pile or rest[:len(pile)] != pile:
                    raise self._fail(event, f"seat {other}'s whole won pile {pile} after the stealing card")
                rest = rest[len(pile):]
                self.won[other] = []
            if rest or not event.seats:
                raise self._fail(event, "the stealing card and the stolen piles, nothing else")

    def _put(self, event: Event, kind) -> None:
        """The event's cards go to the kind's target."""
        seat, cards, target = event.seat, event.cards, kind.target
        if target == "table":
            face = kind.face
            self.table.extend((c, seat, face) for c in cards)
        elif target == "pile":
            self.piles[seat].extend(cards)
        elif target == "hand":
            self.hands[seat].extend(cards)
        elif target == "aside":
            self.aside.extend(cards)
        elif target == "won" or (target == "gains" and self.pooled):
            self.won[seat][:0] = cards
        elif target == "gains":
            self.piles[seat].extend(cards)


def ledger_for(rules) -> Ledger:
    """A ledger that moves cards the way the rule set's variant does."""
    family = family_of(rules)
    return Ledger(rules.players, deck_of(rules).size, won_piles=family.has_won_piles(rules), hands=family.hands)


def audit(log: list[Event], rules) -> Ledger:
    """Walk a whole log through a ledger; raises LogMismatch at the first impossible move."""
    ledger = ledger_for(rules)
    for event in log:
        ledger.apply(event)
    if not log or log[-1].kind not in END_KINDS:
        raise LogMismatch(len(log), "an end event last", describe(log[-1] if log else None))
    return ledger
