"""TableGame's battle loop does a hook its class leaves alone in line, and calls one a subclass
overrides (engines/table/reference.py): a subclass overriding any one hook (or close_battle, or
holding) with TableGame's own step plays every game event for event as TableGame does, and the
array recorder holds the same events as the Event recorder, under the rules that take each
branch of the loop (pickups, cycles, wars:N, forfeits, eliminations among several seats)."""

from __future__ import annotations

import pytest

from pipeline.engines.chance import RandomChance
from pipeline.engines.event import Recorder
from pipeline.engines.play import Game
from pipeline.engines.table.reference import TableGame
from pipeline.engines.compiled.layout import EVENT_BATTLE, EVENT_CARDS_END, EVENT_KIND, EVENT_SEAT
from pipeline.log.array_recorder import KIND_CODES, ArrayRecorder
from pipeline.model.deal import shuffled_deal
from pipeline.model.rng import Xoshiro256
from pipeline.model.rules import build_rules
from pipeline.plugin import HOOKS

RULES = [
    ("classic", {}),
    ("classic", {"pickup": "winner_first"}),
    ("classic", {"pickup": "natural", "shortfall": "lose", "war_tiebreak": "single_up"}),
    ("classic", {"pickup": "sorted", "win": "wars:3", "aces": "low"}),
    ("classic", {"pickup": "table_order"}),
    ("classic", {"pickup": "table_order", "win": "wars:5"}),
    ("classic", {"pickup": "winner_first", "ranks": "4", "suits": "2"}),
    ("classic", {"max_battles": "100"}),
    ("multiplayer", {"players": "4", "pickup": "pooled", "shortfall": "lose"}),
    ("multiplayer", {"players": "5", "pickup": "winner_first", "shortfall": "lose"}),
    ("jokers", {"players": "3", "war_down": "0"}),
]


SEEDS = 10


def same_step(name: str) -> type:
    """A TableGame whose `name` is overridden by TableGame's own (or Game's) step, called through
    super(): the loop must call it rather than do its step in line, and play the same game."""
    def step(self, *args, **kwargs):
        return getattr(super(Override, self), name)(*args, **kwargs)

    class Override(TableGame):
        __slots__ = ()

    setattr(Override, name, step)
    Override.__name__ = f"Same{name.title().replace('_', '')}"
    return Override


def play(game: type, rules, seed: int, rec):
    rng = Xoshiro256(seed)
    deal = shuffled_deal(rules, rng)
    return game(rules, deal, RandomChance(rng), rec).play()


@pytest.mark.parametrize("variant,options", RULES, ids=[f"{v}-{'-'.join(o.values())}" for v, o in RULES])
@pytest.mark.parametrize("name", [*HOOKS, "close_battle", "holding", "piles_by"])
def test_a_hook_overridden_by_the_same_step_plays_the_same_games(variant, options, name):
    rules = build_rules(variant, options)
    for seed in range(SEEDS):
        base, other = Recorder(), Recorder()
        summary = play(TableGame, rules, seed, base)
        assert play(same_step(name), rules, seed, other) == summary, (name, seed)
        assert other.events == base.events, (name, seed)


def test_the_games_cover_the_loops_branches():
    """The rule sets above end games every way the loop can: a win, a draw, a cycle, the cap."""
    outcomes = set()
    for variant, options in RULES:
        rules = build_rules(variant, options)
        for seed in range(SEEDS):
            outcomes.add(play(TableGame, rules, seed, Recorder()).outcome)
    assert outcomes == {"win", "draw", "cycle", "capped"}


@pytest.mark.parametrize("variant,options", RULES, ids=[f"{v}-{'-'.join(o.values())}" for v, o in RULES])
def test_the_array_recorder_holds_what_the_event_recorder_holds(variant, options):
    """Every event's kind, seat and cards in the arrays, in the order the Event recorder kept them."""
    rules = build_rules(variant, options)
    arrays = ArrayRecorder(rules.players)
    events = []
    for seed in range(SEEDS):
        rec = Recorder()
        play(TableGame, rules, seed, rec)
        events += rec.events
        arrays.begin()
        arrays.end_game(play(TableGame, rules, seed, arrays), seed)
    assert not arrays.lost
    assert arrays.events == len(events)
    got = arrays.arrays()
    rows, card_values = got.events, got.card_values.tolist()
    assert rows.shape[0] == len(events)
    for i, event in enumerate(events):
        row = rows[i]
        assert (row[EVENT_BATTLE], row[EVENT_KIND], row[EVENT_SEAT]) == (
            event.battle, KIND_CODES[event.kind], -1 if event.seat is None else event.seat)
        start = rows[i - 1, EVENT_CARDS_END] if i else 0
        assert card_values[start:row[EVENT_CARDS_END]] == [*event.cards, *event.options]


def test_game_keeps_its_steps_for_the_families_that_subclass_it():
    assert TableGame.holding is Game.holding and TableGame.piles_by is Game.piles_by
