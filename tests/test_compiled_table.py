"""The table family's compiled engine (pipeline/engines/table/compiled.py, with
pipeline/engines/compiled/ and table/battle.py) against its reference
(pipeline/engines/table/reference.py, through pipeline.log.shard.play_range): for a grid of every
table-family option, seeded and explicit deals, the events and games tables must be equal and the
Parquet files written from them identical byte for byte; the grid ends games in every way and
logs every event kind; tiny buffers grow without changing a game; and log.shard.shard_tables
uses the compiled engine wherever engines.choice.compiled_plays says it plays a range."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from compiledkit import (assert_same_arrays, assert_same_as_reference, assert_same_tables,  # noqa: E402
                         case_games, kinds_and_outcomes, random_deals)
from pipeline.engines.choice import compiled_plays  # noqa: E402
from pipeline.engines.table.compiled import play_arrays  # noqa: E402
from pipeline.errors import RulesError  # noqa: E402
from pipeline.log.shard import play_range_fast, shard_tables  # noqa: E402
from pipeline.log.tables import events_table, games_table  # noqa: E402
from pipeline.model.rules import build_rules  # noqa: E402
from pipeline.model.variants import VARIANTS  # noqa: E402
from rulekit import OPTION_GRID  # noqa: E402

# Combinations, custom decks and corners the single options do not reach.
COMBINATIONS = [
    ("classic", {"pickup": "pooled", "shortfall": "lose"}),
    ("classic", {"war_tiebreak": "single_up", "pickup": "pooled"}),
    ("classic", {"war_tiebreak": "single_up", "pickup": "winner_first", "shortfall": "lose"}),
    ("razboi", {"jokers": "2", "ace_value": "14"}),
    ("razboi", {"ace_value": "1", "pickup": "winner_first"}),
    ("razboi", {"players": "4", "shortfall": "lose", "pickup": "pooled", "jokers": "2"}),
    ("razboi", {"war_tiebreak": "single_up", "pickup": "table_order", "win": "wars:2"}),
    ("multiplayer", {"players": "3", "ranks": "5", "suits": "3"}),
    ("multiplayer", {"players": "4", "ranks": "4", "suits": "6", "jokers": "2"}),
    ("multiplayer", {"players": "8", "ranks": "5", "suits": "8"}),
    ("multiplayer", {"players": "8", "ranks": "7", "suits": "6", "shortfall": "lose", "pickup": "winner_first"}),
    ("multiplayer", {"players": "4", "pickup": "pooled", "war_tiebreak": "single_up", "shortfall": "lose",
                     "win": "wars:3"}),
    ("multiplayer", {"players": "3", "war_down": "by_rank", "pickup": "table_order"}),
    ("classic", {"win": "wars:2", "pickup": "table_order"}),
    ("classic", {"win": "wars:2", "pickup": "winner_first", "ranks": "3", "suits": "4"}),
    ("classic", {"max_battles": "30"}),
    ("classic", {"pickup": "table_order", "ranks": "3", "suits": "4"}),
    ("classic", {"pickup": "winner_first", "ranks": "5", "suits": "2"}),
    ("classic", {"pickup": "table_order", "ranks": "2", "suits": "7", "players": "2", "war_down": "1"}),
    ("classic", {"ranks": "1", "suits": "10"}),
    ("classic", {"ranks": "1", "suits": "12", "shortfall": "lose", "pickup": "pooled"}),
    ("classic", {"ranks": "2", "suits": "5", "jokers": "2", "war_tiebreak": "single_up", "shortfall": "lose"}),
    ("classic", {"war_down": "by_rank", "players": "3"}),
    ("classic", {"war_down": "10", "shortfall": "lose", "pickup": "pooled"}),
    ("classic", {"war_down": "10", "pickup": "winner_first"}),
    ("classic", {"war_down": "32768"}),
    ("jokers", {"players": "8", "pickup": "table_order", "war_tiebreak": "single_up"}),
    ("jokers", {"players": "5", "war_down": "0", "pickup": "pooled"}),
    ("jokers", {"players": "6", "win": "wars:1", "shortfall": "lose"}),
]
GAMES = 40
# A few larger runs of the defaults and the pickups that detect cycles.
LARGE = [("classic", {}, 400), ("classic", {"pickup": "winner_first"}, 300),
         ("classic", {"pickup": "table_order"}, 200), ("multiplayer", {}, 120), ("razboi", {}, 200)]

TABLE_VARIANTS = [name for name, spec in VARIANTS.items() if spec.family == "table"]


def grid():
    for name in TABLE_VARIANTS:
        spec = VARIANTS[name]
        yield name, {}, GAMES
        for option, values in OPTION_GRID.items():
            if option in spec.options:
                for value in values:
                    yield name, {option: value}, GAMES
    for name, options in COMBINATIONS:
        yield name, options, GAMES
    yield from LARGE


CASES = list(grid())


def case_id(case):
    name, options, games = case
    return name + "".join(f"-{k}={v}" for k, v in options.items()) + f"-x{games}"


def case_args(case):
    """Each case plays its own games: (ordinal, master seed, first game index)."""
    return case_games(CASES.index(case), 1000)


def rules_of(name, options):
    try:
        return build_rules(name, options)
    except RulesError as err:
        pytest.skip(f"not a playable combination: {err}")


def case_rules(case):
    """A case's rule set (skipped if the options cannot go together), ordinal, seed, first game and games."""
    name, options, games = case
    return (rules_of(name, options), *case_args(case), games)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_fast_tables_equal_the_reference(case, tmp_path):
    rules, ordinal, seed, start, games = case_rules(case)
    assert compiled_plays(rules, None, ())
    assert_same_as_reference(rules, ordinal, seed, start, start + games, tmp_path=tmp_path)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_explicit_deals_equal_the_reference(case, tmp_path):
    """Explicit deals (war generate --deals) through the compiled engine: the same tables and
    Parquet bytes as the reference engine playing them."""
    rules, ordinal, seed, start, games = case_rules(case)
    games = min(games, 25)
    deals = random_deals(rules, games, seed)
    assert assert_same_as_reference(rules, ordinal, seed, start, start + games, deals, (), tmp_path).done == games


def test_explicit_deals_go_through_the_compiled_engine(monkeypatch):
    """shard_tables does not fall back to the reference for explicit deals."""
    import pipeline.log.shard as shard

    rules = build_rules("classic")
    deals = random_deals(rules, 5, 3)
    monkeypatch.setattr(shard, "play_game", lambda *a, **k: pytest.fail("the reference engine played"))
    _events, games_ = shard_tables(rules, 0, 1, 0, 5, deals)
    assert games_.column("deal").to_pylist() == ["explicit"] * 5


def test_the_grid_reaches_every_outcome_and_event_kind():
    """The games compared above between them end in every way and log every table-family event."""
    outcomes, kinds = set(), set()
    for case in CASES:
        name, options, games = case
        try:
            rules = build_rules(name, options)
        except RulesError:
            continue
        _ordinal, seed, start = case_args(case)
        reached = kinds_and_outcomes(play_arrays(rules, seed, start, start + games))
        kinds, outcomes = kinds | reached[0], outcomes | reached[1]
    assert outcomes == {"win", "draw", "capped", "cycle"}
    assert kinds == {"deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect",
                     "reshuffle", "out", "end"}


@pytest.mark.parametrize("name,options", [
    ("classic", {"pickup": "winner_first"}),
    ("classic", {"pickup": "table_order", "win": "wars:2"}),
    ("multiplayer", {"pickup": "pooled", "shortfall": "lose"}),
    ("razboi", {}),
])
def test_growing_buffers_changes_nothing(name, options):
    """Tiny first buffers make every game grow them (and be replayed); the result is the same."""
    rules = build_rules(name, options)
    big = play_arrays(rules, 11, 5, 45)
    assert_same_arrays(big, play_arrays(rules, 11, 5, 45, capacity=1, positions=2))


def test_empty_range():
    rules = build_rules("classic")
    events, games_ = play_range_fast(rules, 0, 1, 10, 10)
    assert_same_tables(events, events_table([], []), "events")
    assert_same_tables(games_, games_table([]), "games")


@pytest.mark.parametrize("name", ["classic", "steal", "arneson"])
def test_shard_tables_uses_the_fast_path_only_where_it_applies(name):
    assert assert_same_as_reference(build_rules(name), 1, 8, 3, 9, through_shard=True).done == 6


def test_supported():
    assert compiled_plays(build_rules("classic"))
    assert compiled_plays(build_rules("razboi", {"jokers": "2"}), None, ())
    assert compiled_plays(build_rules("classic"), deals=[])
    assert not compiled_plays(build_rules("classic"), None, ("default", "default"))
    assert compiled_plays(build_rules("steal"))
    assert compiled_plays(build_rules("steal"), None, ("steal:random,top:protect", "cautious"))
    assert compiled_plays(build_rules("arneson"))
    assert compiled_plays(build_rules("arneson"), None, ("hand:lowest", "cautious"))
    assert compiled_plays(build_rules("arneson"), [])
    # int16 card codes: the largest deck the rules allow (32,768 cards) goes to the reference engine
    assert compiled_plays(build_rules("classic", {"ranks": "511", "suits": "64"}))
    assert not compiled_plays(build_rules("classic", {"ranks": "512", "suits": "64"}))
