"""The pickup orders are declared once (pipeline.model.pickups): each fixed order's function (the
reference engines') and its key (the compiled engines', packed by engine.pickup_key) give the
same order of any table, whole or in part, and the option, the cycle rule and the compiled
engines read the declaration. The engines' games under every order are held to each other by
tests/test_pickup_orders.py and the compiled suites."""

from __future__ import annotations

import random

import pytest

from pipeline.engines.compiled.engine import duel_order, pickup_key
from pipeline.engines.play import FIXED_PICKUPS
from pipeline.model.families import registry
from pipeline.model.pickups import PICKUP_ORDERS, TERMS, Pickup

FIXED = [p for p in PICKUP_ORDERS if p.fixed]


class Table:
    """A battle's table as the reference engines keep it: `table` in table order, `played` each
    seat's cards, `laid` (step, face up) by card, `rank` by card; and what each card is."""

    def __init__(self, r: random.Random, players: int, ranks: int) -> None:
        self.rank = [r.randrange(ranks) for _ in range(60)]
        cards = r.sample(range(60), r.randrange(1, 25))
        self.played = [[] for _ in range(players)]
        self.laid, self.owner = {}, {}
        step = 0
        for c in cards:
            step = min(step + (r.random() < 0.3), 6)
            self.laid[c] = (step, r.random() < 0.5)
            self.owner[c] = seat = r.randrange(players)
            self.played[seat].append(c)
        self.table = cards

    def by_key(self, order: Pickup, cards: list[int], seat: int) -> list[int]:
        return sorted(cards, key=lambda c: order.sort_key(cards.index(c), self.owner[c] == seat, self.owner[c],
                                                          *self.laid[c], self.rank[c]))

    def packed(self, order: Pickup, cards: list[int], seat: int, players: int) -> list[int]:
        """The order the compiled engines' packed key gives (moves.ordered_by_key, in Python)."""
        rows = pickup_key(order.name, 60, players)

        def key(c):
            step, up = self.laid[c]
            values = {"position": cards.index(c), "taker": int(self.owner[c] == seat), "owner": self.owner[c],
                      "step": step, "face_up": int(up), "rank": self.rank[c], "up_rank": self.rank[c] if up else 0}
            out = 0
            for term, descending, size, weight in rows.tolist():
                value = values[TERMS[term]]
                out += (size - 1 - value if descending else value) * weight
            return out

        return sorted(cards, key=key) if len(rows) else list(cards)


@pytest.mark.parametrize("order", FIXED, ids=lambda p: p.name)
def test_a_fixed_orders_function_and_key_agree(order):
    r = random.Random(order.name)
    for _ in range(300):
        players = r.choice([2, 3, 5, 8])
        t = Table(r, players, r.choice([1, 2, 13]))
        seat = r.randrange(players)
        first = r.randrange(len(t.table))  # a part of the table, as Arneson's War takes its spoils
        for cards in (t.table, t.table[first:]):
            want = t.by_key(order, list(cards), seat)
            assert order.order(list(cards), seat, t) == want
            assert t.packed(order, list(cards), seat, players) == want


@pytest.mark.parametrize("order", FIXED, ids=lambda p: p.name)
def test_a_duel_is_taken_as_the_key_takes_two_cards(order):
    """A duel's two cards (one each, face up, the winner's higher) in the order its key gives."""
    for winner in (0, 1):
        t = Table(random.Random(0), 2, 2)
        t.table, t.played = [0, 1], [[0], [1]]
        t.laid, t.owner, t.rank = {0: (0, True), 1: (0, True)}, {0: 0, 1: 1}, [int(winner == 0), int(winner == 1)]
        assert (order.order([0, 1], winner, t) == [0, 1]) == bool(duel_order(order.name)[winner])


def test_the_option_and_the_cycle_rule_read_the_declaration():
    option = registry().options["pickup"]
    assert option.choices == tuple(p.name for p in PICKUP_ORDERS)
    assert option.said == {p.name: p.said for p in PICKUP_ORDERS}
    assert FIXED_PICKUPS == tuple(p.name for p in FIXED)
    for family in registry().families.values():
        if "pickup" in family.compiled_options:
            assert family.compiled_options["pickup"] is None, f"{family.name} lists the orders it compiles"


def test_a_declaration_that_does_not_hold_together_is_refused():
    assert Pickup("x", "x", lambda cards, seat, game: cards, (("rank", -1),)).problems()
    assert Pickup("x", "x", lambda cards, seat, game: cards, (("colour", 1), ("position", 1))).problems()
    assert Pickup("x", "x", None, (("position", 1),)).problems()
    assert not Pickup("x", "x", lambda cards, seat, game: cards, (("position", -1),)).problems()
