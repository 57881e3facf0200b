"""Cross-check of the engine (pipeline.engines.game.play_game, the table family's reference
engine) against an independent, clean-room simulator (tests/independent_war.py), written from
rules 1-5 and 8 and the documented conventions, game by game: every table-family option value
appears in at least one rule set below; each rule set plays the same paired seeds
(game_seed(2024, i)), and every summary field must agree for every game."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from independent_war import simulate  # noqa: E402

from pipeline.engines.game import play_game  # noqa: E402
from pipeline.model.rng import game_seed  # noqa: E402
from pipeline.model.rules import build_rules  # noqa: E402

MASTER_SEED = 2024
FIELDS = ("outcome", "winner", "battles", "wars", "max_war_depth", "war_wins", "final_cards", "cycle_length")

# (variant, options, games)
GRID = [
    # one option value at a time
    ("classic", {}, 200),
    ("classic", {"pickup": "shuffled"}, 200),
    ("classic", {"pickup": "table_order"}, 200),
    ("classic", {"pickup": "winner_first"}, 200),
    ("classic", {"pickup": "pooled"}, 200),
    ("classic", {"pickup": "natural"}, 200),
    ("classic", {"pickup": "sorted"}, 200),
    ("classic", {"war_tiebreak": "single_up"}, 200),
    ("classic", {"shortfall": "lose"}, 200),
    ("classic", {"win": "wars:3"}, 200),
    ("classic", {"war_down": 0}, 200),
    ("classic", {"war_down": 1}, 200),
    ("classic", {"war_down": 2}, 200),
    ("classic", {"jokers": 2}, 200),
    ("jokers", {}, 200),
    ("multiplayer", {"players": 3}, 200),
    ("multiplayer", {"players": 4}, 200),
    ("razboi", {"ace_value": 11}, 200),
    ("razboi", {"ace_value": 14}, 200),
    ("classic", {"ranks": 5, "suits": 3}, 200),
    ("classic", {"max_battles": 50}, 200),
    # combinations that reach the rarer paths: forfeits with more seats, wars whose players all
    # run out (table set aside, draws), reshuffles mid-war, cycles with wars:N in the position
    ("classic", {"pickup": "table_order", "win": "wars:5"}, 200),
    ("classic", {"pickup": "winner_first", "war_down": 0}, 200),
    ("classic", {"shortfall": "lose", "war_tiebreak": "single_up", "pickup": "pooled"}, 200),
    ("multiplayer", {"players": 4, "shortfall": "lose", "pickup": "winner_first"}, 150),
    ("multiplayer", {"players": 3, "pickup": "pooled", "war_tiebreak": "single_up",
                     "jokers": 2}, 100),
    ("multiplayer", {"players": 4, "ranks": 5, "suits": 4, "jokers": 2, "war_down": 0,
                     "shortfall": "lose"}, 200),
    ("razboi", {"players": 3, "shortfall": "lose", "pickup": "table_order", "win": "wars:3"}, 200),
    ("razboi", {"players": 4, "war_tiebreak": "single_up", "pickup": "pooled",
                "shortfall": "lose", "jokers": 2}, 200),
    ("razboi", {"war_down": 2, "ace_value": 14, "pickup": "winner_first"}, 200),
    # the published enumerations' orders: open play, and natural with wars, forfeits and more seats
    ("classic", {"pickup": "natural", "war_down": 0}, 200),
    ("classic", {"pickup": "natural", "war_tiebreak": "single_up", "win": "wars:3"}, 200),
    ("multiplayer", {"players": 4, "pickup": "natural", "shortfall": "lose"}, 150),
    ("multiplayer", {"players": 3, "pickup": "sorted", "shortfall": "lose", "jokers": 2}, 150),
    ("razboi", {"pickup": "natural", "players": 3}, 150),
    # small decks, where most games cycle: a position is its ranks (2.6), so the period is the
    # ranks' (24 battles for four suits of four ranks, not the 72 of the cards)
    ("classic", {"ranks": 4, "suits": 4, "pickup": "natural", "war_down": 0}, 300),
    ("classic", {"ranks": 3, "suits": 4, "pickup": "table_order", "war_down": 1}, 300),
    ("multiplayer", {"players": 3, "ranks": 4, "suits": 3, "pickup": "winner_first"}, 300),
    # aces low (2.8): the Ace below the 2, with sorted and natural pickups, war sizes by rank, cycles
    ("classic", {"aces": "low"}, 200),
    ("classic", {"aces": "low", "pickup": "sorted", "jokers": 2}, 200),
    ("razboi", {"aces": "low", "pickup": "natural", "players": 3}, 150),
    ("classic", {"aces": "low", "ranks": 4, "suits": 4, "pickup": "natural", "war_down": 0}, 300),
    # every card dealt, the first seats one card fewer (1.4, deal = first_short)
    ("classic", {"deal": "first_short", "ranks": 13, "suits": 1, "pickup": "natural"}, 200),
    ("classic", {"deal": "first_short", "ranks": 5, "suits": 3, "pickup": "winner_first"}, 200),
    ("multiplayer", {"players": 3, "deal": "first_short"}, 150),
    ("multiplayer", {"players": 5, "deal": "first_short", "ranks": 4, "suits": 4, "pickup": "sorted"}, 150),
    ("razboi", {"players": 3, "deal": "first_short", "shortfall": "lose"}, 150),
]


def _label(case) -> str:
    variant, options, _ = case
    return variant + "".join(f"-{k}={v}" for k, v in options.items())


@pytest.mark.parametrize("case", GRID, ids=[_label(c) for c in GRID])
def test_engine_matches_independent_simulator(case):
    variant, options, games = case
    rules = build_rules(variant, options)
    as_dict = rules.model_dump()
    deck = rules.ranks * rules.suits + rules.jokers
    mismatches = []
    for i in range(games):
        seed = game_seed(MASTER_SEED, i)
        mine = simulate(as_dict, seed)
        assert sum(mine["final_cards"]) <= deck
        _, summary, _ = play_game(rules, seed)
        diff = {f: {"engine": getattr(summary, f), "independent": mine[f]}
                for f in FIELDS if getattr(summary, f) != mine[f]}
        if diff:
            mismatches.append((i, diff))
    assert not mismatches, (
        f"rule set {variant} {options}: {len(mismatches)} of {games} games differ; "
        f"first: " + "; ".join(f"game {i}: {d}" for i, d in mismatches[:5]))


def test_grid_covers_every_option_value():
    seen: dict[str, set] = {}
    for variant, options, _ in GRID:
        rules = build_rules(variant, options)
        for name in ("players", "jokers", "war_down", "war_tiebreak", "shortfall", "pickup", "win", "aces", "deal"):
            value = getattr(rules, name)
            if name == "win":
                value = value.split(":")[0]
            seen.setdefault(name, set()).add(value)
    assert {2, 3, 4} <= seen["players"]
    assert {0, 2} <= seen["jokers"]
    assert {0, 1, 2, 3, "by_rank"} <= seen["war_down"]
    assert seen["war_tiebreak"] == {"repeat", "single_up"}
    assert seen["shortfall"] == {"last_card_up", "lose"}
    assert seen["pickup"] == {"shuffled", "table_order", "winner_first", "pooled", "natural", "sorted"}
    assert seen["win"] == {"all_cards", "wars"}
    assert seen["aces"] == {"high", "low"}
    assert seen["deal"] == {"even", "first_short"}
