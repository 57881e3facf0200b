"""The hooks kept as tables (`strength`, `decides`: engines/table/reference.py's TABLED) keep a
game on the loops that call no hook (two_seat_battles, duels, two_seat_wars), and those loops
log what the readable definition logs: the same rule written with `best` overridden (which plays
every battle in the per-battle loop) gives the same events, game for game, under every pickup,
two and three seats, with and without Jokers."""

from __future__ import annotations

import pytest

from pipeline import plugin
from pipeline.engines.chance import RandomChance, StreamChance
from pipeline.engines.event import Recorder
from pipeline.engines.table import reference
from pipeline.model.deal import shuffled_deal
from pipeline.model.rng import Xoshiro256
from pipeline.model.rules import build_rules


class HighSuit(plugin.TableGame):
    """The last suit above the others; a card of it that beats a card ranked as high or higher
    logs a `war_out` event (a kind every recorder spells: the test needs one that moves no card)."""

    __slots__ = ()

    def strength(self, card):
        suit = self.suit(card)
        return self.rank[card] + (self.deck.ranks if suit == self.deck.suits - 1 else 0) if suit is not None \
            else 3 * self.deck.ranks

    def decides(self, card, other):
        top = self.deck.suits - 1
        if self.suit(card) == top and self.suit(other) not in (top, None) and self.rank[other] >= self.rank[card]:
            return "war_out"
        return None


class HighSuitByBest(HighSuit):
    """The same rule, its event logged by an overridden `best` (the per-battle loop's)."""

    __slots__ = ()

    def decides(self, card, other):
        return None

    def best(self, battle, seats):
        tied = super().best(battle, seats)
        if len(tied) == 1:
            card = self.up[tied[0]]
            if any(HighSuit.decides(self, card, self.up[seat]) for seat in seats if seat != tied[0]):
                self.emit(battle, "war_out", tied[0], (card,))
        return tied


def games(cls, rules, seeds, stream):
    out = []
    for seed in seeds:
        rng = Xoshiro256(seed)
        deal = shuffled_deal(rules, rng)
        rec = Recorder()
        summary = cls(rules, deal, StreamChance(rng) if stream else RandomChance(rng), rec).play()
        out.append((rec.events, summary.battles, summary.outcome, summary.winner))
    return out


@pytest.mark.parametrize("options", [
    {}, {"pickup": "winner_first"}, {"pickup": "table_order"}, {"pickup": "natural"}, {"pickup": "pooled"},
    {"players": 3}, {"players": 3, "pickup": "winner_first"}, {"jokers": 2}, {"war_down": 0, "shortfall": "lose"},
])
def test_decides_on_the_fast_loops_logs_what_best_logs(options):
    rules = build_rules("classic", options)
    assert not reference._watches(HighSuit) and reference._watches(HighSuitByBest)
    for stream in (True, False):
        fast = games(HighSuit, rules, range(12), stream)
        slow = games(HighSuitByBest, rules, range(12), stream)
        assert fast == slow
        assert sum(e.kind == "war_out" for events, *_ in fast for e in events) > 0  # the rule was played


def test_tables_are_made_once_a_rule_set_and_class():
    rules = build_rules("classic")
    asked = []

    class Counting(HighSuit):
        __slots__ = ()

        def strength(self, card):
            asked.append(card)
            return super().strength(card)

    games(Counting, rules, range(3), True)
    assert sorted(asked) == list(range(52))


class EvenTie(plugin.TableGame):
    """A tie of an even strength goes at once, as it lies, to the first seat still in after the
    seat that took the last table (`tie`), and the position counts that seat."""

    __slots__ = ()

    def position(self):
        piles, war_wins = super().position()
        return piles + ((-1 if self.taker is None else self.taker,),), war_wins

    def tie(self, battle, tied, best):
        if best % 2:
            return None
        first = 0 if self.taker is None else (self.taker + 1) % self.n
        return next(((s, "collect") for s in (*range(first, self.n), *range(first)) if self.alive[s]), None)


class EvenTieByWars(plugin.TableGame):
    """The same rule written with `wars`, `pick_up` and `collect` (the per-battle loop), keeping
    its own last taker."""

    __slots__ = ("last", "claimed")

    def __init__(self, *args):
        super().__init__(*args)
        self.last, self.claimed = None, False

    def position(self):
        piles, war_wins = super().position()
        return piles + ((-1 if self.last is None else self.last,),), war_wins

    def wars(self, battle, tied, best):
        if best % 2 == 0:
            first = 0 if self.last is None else (self.last + 1) % self.n
            seat = next((s for s in (*range(first, self.n), *range(first)) if self.alive[s]), None)
            if seat is not None:
                self.claimed = True
                return seat, 0
        return super().wars(battle, tied, best)

    def pick_up(self, seat, battle):
        return list(self.table) if self.claimed else super().pick_up(seat, battle)

    def collect(self, seat, cards, battle, kind="collect"):
        self.last, self.claimed = seat, False
        super().collect(seat, cards, battle, kind)


@pytest.mark.parametrize("options", [
    {}, {"pickup": "winner_first"}, {"pickup": "table_order"}, {"pickup": "natural"}, {"pickup": "pooled"},
    {"players": 3}, {"players": 3, "pickup": "sorted"}, {"jokers": 2}, {"war_down": 0, "shortfall": "lose"},
    {"ranks": 4, "suits": 2, "pickup": "winner_first"},
])
def test_tie_on_the_fast_loops_plays_what_wars_plays(options):
    rules = build_rules("classic", options)
    assert not reference._watches(EvenTie) and reference._watches(EvenTieByWars)
    for stream in (True, False):
        fast = games(EvenTie, rules, range(12), stream)
        assert fast == games(EvenTieByWars, rules, range(12), stream)
        assert fast != games(plugin.TableGame, rules, range(12), stream)  # the rule was played
