"""What the families' games do the same way: the deal, the piles, reshuffles, collections,
forfeits and the battle loop.

A family's engine is a subclass of `Game` that plays one battle (`battle`), or writes out the
whole battle loop (`battles`) where a method call per battle would cost too much time; the steps
here are the ones its rules share with the other families, word for word.
"""

from __future__ import annotations

from collections import deque
from contextvars import ContextVar
from functools import lru_cache

from ..model.cards import Deck
from ..model.deal import Deal
from ..model.pickups import FIXED_PICKUPS, by_rank, natural, winner_first  # noqa: F401  (read from here by the engines and log.codec)
from ..model.schema import RuleSet
from .cycle_key import cycle_key
from .event import Recorder
from .summary import Summary

# Whether a seat of the game being played follows a randomized policy (its choices drawn): set
# by the one path every reference engine is called through (engines.game), read by every Game.
# Such a game never repeats a position for certain, so war's loop looks for no cycle in it,
# whatever its family's engine asks (docs/plugins.md).
CHOICES_DRAWN: ContextVar[bool] = ContextVar("war_choices_drawn", default=False)


@lru_cache(maxsize=256)
def deck_ranks(ranks: int, suits: int, jokers: int) -> tuple[int, ...]:
    """Each card code's rank index in the deck (model.cards.Deck.rank), made once a deck, not
    once a game."""
    return Deck(ranks, suits, jokers).rank


class Game:
    """One game in play: each seat's pile (face down, top first) and won pile (top first), who is
    still in, this battle's table and the summary so far."""

    __slots__ = ("n", "rank", "chance", "rec", "emit", "deal", "piles", "won", "alive", "summary",
                 "pooled", "wars_to_win", "max_battles", "seen", "table", "played", "laid", "step",
                 "drawn", "byte_values")

    def __init__(self, rules: RuleSet, deal: Deal, chance, rec: Recorder) -> None:
        self.n = n = rules.players
        self.rank = deck_ranks(rules.ranks, rules.suits, rules.jokers)
        self.chance = chance
        self.rec = rec
        self.emit = rec.emit
        self.deal = deal
        self.piles = list(map(deque, deal.piles))
        self.won: list[list[int]] = [[] for _ in range(n)]
        self.alive = [True] * n
        self.summary = Summary(war_wins=[0] * n, cards_set_aside=len(deal.set_aside))
        self.pooled = rules.pickup == "pooled"
        self.wars_to_win = rules.wars_to_win
        self.max_battles = rules.max_battles
        self.seen: dict | None = None  # the battle of each position, when the family looks for cycles
        self.drawn = CHOICES_DRAWN.get()  # a seat's choices are drawn: no cycle, whatever `seen` says
        self.table: list[int] = []  # this battle's cards, in the order they came onto the table
        self.played: list[list[int]] = []  # this battle's cards by seat
        self.laid: dict[int, tuple[int, bool]] = {}  # this battle's cards: (step, face up) each
        self.step = 0  # the step of the battle cards are laid at: 0, then each war's depth
        self.byte_values: tuple | None = None  # (values, their translation table) of piles_by

    def play(self) -> Summary:
        """The whole game: the deal, battles until it is over, the end event."""
        self.start()
        battle = self.battles()
        return self.summary.end(battle, self.holding, self.n, self.emit, self.rec)

    def start(self) -> None:
        """Report the deal: each seat's pile, then the cards left out of it."""
        deal, emit = self.deal, self.emit
        for seat in range(self.n):
            emit(0, "deal", seat, deal.piles[seat])
        if deal.set_aside:
            emit(0, "set_aside", None, deal.set_aside)

    def battles(self) -> int:
        """Battles until one ends the game, the cap is reached (`capped`) or a position comes back
        (`cycle`, where the family looks for cycles); how many were played."""
        play_battle = self.battle
        battle = 0
        while battle < self.max_battles:
            if self.seen is not None and self.repeats(battle):
                return battle
            battle += 1
            if play_battle(battle):
                return battle
        self.summary.outcome = "capped"
        return battle

    def repeats(self, battle: int) -> bool:
        """Whether the position after `battle` battles came before: the game is then a `cycle`.
        Never in a game where a seat's choices are drawn (CHOICES_DRAWN): no position is kept,
        and the family's loop, which asks while `seen` is kept, asks no more."""
        if self.drawn:
            self.seen = None
            return False
        key = self.position()
        first = self.seen.get(key)
        if first is None:
            self.seen[key] = battle
            return False
        self._cycle(battle, first)
        return True

    def _cycle(self, battle: int, first: int) -> None:
        """The position after `battle` battles came first after `first`: the game is a `cycle`."""
        self.summary.outcome, self.summary.cycle_length = "cycle", battle - first
        self.summary.cycle_key = cycle_key(self.seen, first, bool(self.wars_to_win))

    def close_battle(self, battle: int, winner: int | None, depth: int) -> bool:
        """After the wars: the winner picks up the table (or it is set aside), a war won may win
        the game under wars:N before eliminations (ruling 6), then seats holding nothing are out.
        True when the game is over."""
        s = self.summary
        if depth:
            s.count_war(battle, depth)
        if winner is None:
            self.set_aside(battle)
        else:
            self.collect(winner, self.pick_up(winner, battle), battle)
            if depth and s.won_war(winner, self.wars_to_win):
                return True
        return s.eliminate(battle, self.alive, self.holding, self.emit)

    def pick_up(self, winner: int, battle: int) -> list[int]:
        """The table in the order the winner takes it (its family's pickup rule)."""
        raise NotImplementedError

    def battle(self, battle: int) -> bool:
        """Play battle number `battle`; True when it ends the game."""
        raise NotImplementedError

    def position(self) -> tuple:
        """What must come back for the game to be in a cycle."""
        raise NotImplementedError

    def piles_by(self, values: tuple[int, ...]) -> tuple:
        """Every pile, top first, each card as `values[card]` (its rank, its strength): what a
        position() keeps. As bytes, one C call a pile, when every code and value fits a byte;
        else as tuples. Either way the same numbers in the same order, so cycle_key folds the
        same key, and every position of a game is kept the one way."""
        kept = self.byte_values
        if kept is None or kept[0] is not values:
            table = bytes(values).ljust(256, b"\0") if len(values) <= 256 and all(
                type(v) is int and 0 <= v < 256 for v in values) else None
            kept = self.byte_values = (values, table)
        table = kept[1]
        if table is None:
            return tuple(tuple(values[c] for c in pile) for pile in self.piles)
        return tuple(bytes(pile).translate(table) for pile in self.piles)

    def holding(self, seat: int) -> int:
        return len(self.piles[seat]) + len(self.won[seat])

    def reshuffle(self, seat: int, battle: int) -> None:
        """The won pile, shuffled, becomes the empty pile (ruling 5)."""
        cards = self.chance.order("reshuffle", seat, self.won[seat][:])
        self.won[seat] = []
        self.piles[seat].extend(cards)
        self.emit(battle, "reshuffle", seat, cards)

    def take_cards(self, seat: int, k: int, battle: int, kind: str, into: list[int]) -> list[int]:
        """Up to `k` cards from the seat's pile onto `into` (the table, a hand), reshuffling its
        won pile into the pile when it runs out, fewer when both are empty: one `kind` event for
        each run of cards between reshuffles. The cards taken."""
        start = len(into)
        pile, emit = self.piles[seat], self.emit
        if len(pile) >= k:  # no reshuffle: one run
            run = [pile.popleft() for _ in range(k)]
            into += run
            if run:
                emit(battle, kind, seat, run)
            return into[start:]
        run: list[int] = []
        for _ in range(k):
            if not pile:
                if run:
                    emit(battle, kind, seat, run)
                    run = []
                if not self.won[seat]:
                    break
                self.reshuffle(seat, battle)
            c = pile.popleft()
            run.append(c)
            into.append(c)
        if run:
            emit(battle, kind, seat, run)
        return into[start:]

    def lay_down(self, seat: int, k: int, battle: int) -> list[int]:
        """A war's face-down cards: up to `k` from the seat's pile onto the table."""
        cards = self.take_cards(seat, k, battle, "down", self.table)
        for c in cards:
            self.laid[c] = (self.step, False)
        return cards

    def knock_out(self, seat: int, battle: int) -> None:
        self.alive[seat] = False
        self.emit(battle, "out", seat)

    def surrender(self, seat: int) -> list[int]:
        """Every card the seat holds, top first: its pile, then its won pile. It holds none after."""
        cards = list(self.piles[seat]) + self.won[seat]
        self.piles[seat].clear()
        self.won[seat] = []
        return cards

    def forfeit(self, seat: int, battle: int) -> None:
        """shortfall=lose: a seat that cannot complete a war puts all it holds on the table
        without reshuffling (ruling 2), and is out."""
        cards = self.surrender(seat)
        self.table.extend(cards)
        for c in cards:
            self.laid[c] = (self.step, False)
        self.played[seat].extend(cards)
        self.emit(battle, "forfeit", seat, cards)
        self.knock_out(seat, battle)

    def collect(self, seat: int, cards: list[int], battle: int) -> None:
        """Won cards go under the seat's pile, or on top of its won pile when it keeps one
        (ruling 5)."""
        if self.pooled:
            self.won[seat][:0] = cards
        else:
            self.piles[seat].extend(cards)
        self.emit(battle, "collect", seat, cards)

    def set_aside(self, battle: int) -> None:
        """Nobody is left to win the table: its cards leave the game."""
        self.summary.cards_set_aside += len(self.table)
        self.emit(battle, "set_aside", None, self.table)
