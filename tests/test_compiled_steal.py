"""Steal War's compiled engine (pipeline/engines/steal/compiled.py, with steal/turns.py) against
its reference (pipeline/engines/steal/reference.py): over every option of the variant, every
built-in policy and profile, mixed seatings, explicit deals, tournaments and seeded datasets, the
tables and the files must be the same, byte for byte; a policy known only in Python sends the
games to the reference, and validation finds a changed decision."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

import compiledkit as kit  # noqa: E402
from pipeline.engines import policies as policy_registry  # noqa: E402
from pipeline.engines.choice import compiled_plays  # noqa: E402
from pipeline.engines.steal import compiled as compiled_steal  # noqa: E402
from pipeline.jobs.generate import make_plans  # noqa: E402
from pipeline.log.shard import play_range, shard_tables  # noqa: E402
from pipeline.model.rules import build_rules  # noqa: E402

# Every policy of every kind of Steal War, as profiles and as single policies.
SEATINGS = [
    *[(profile,) for profile in policy_registry.PROFILES],
    ("steal:never,top:highest",), ("steal:random,top:protect",), ("steal:threshold:3,top:random",),
    ("steal:threshold:0,top:as_played",), ("steal:threshold:1000000000000000000000",),
    ("random", "greedy"), ("cautious", "steal:random,top:highest"),
]
# Options with policies that exercise them, decks where every card steals, and seats up to 8.
COMBINATIONS = [
    ({"war_down": "by_rank"}, ("random",)),
    ({"war_down": "32768"}, ("random",)),
    ({"war_tiebreak": "single_up", "war_down": "0"}, ("random",)),
    ({"war_tiebreak": "single_up", "players": "3"}, ("greedy",)),
    ({"win": "wars:1"}, ("random", "cautious")),
    ({"max_battles": "40"}, ("cautious",)),
    ({"jokers": "0", "ranks": "5", "suits": "4"}, ("steal:threshold:2,top:protect",)),
    ({"ranks": "1", "suits": "12"}, ("random",)),
    ({"ranks": "1", "suits": "16", "players": "3", "war_down": "1"}, ("greedy",)),
    ({"ranks": "2", "suits": "8", "players": "3"}, ("random", "never", "greedy")),
    ({"players": "4"}, ("random", "cautious", "greedy", "steal:threshold:4,top:random")),
    ({"players": "5", "war_tiebreak": "single_up"}, ("random",)),
    ({"players": "8", "ranks": "5", "suits": "8"}, ("random",)),
]
GAMES = 24
# Each seating with the defaults, each option value of the grid with a random seat, the combinations.
CASES = kit.seating_cases("steal", SEATINGS, [("random",)], COMBINATIONS)


@pytest.mark.parametrize("case", CASES, ids=kit.seating_case_id)
def test_compiled_tables_equal_the_reference(case):
    kit.assert_case_plays_as_the_reference("steal", CASES, case, 2000, GAMES)


@pytest.mark.parametrize("options,seating", [({}, ("random",)), ({"players": "3"}, ("greedy", "cautious")),
                                             ({"players": "4", "war_down": "by_rank"}, ("random", "greedy")),
                                             ({"ranks": "5", "suits": "4", "jokers": "0"}, ("steal:threshold:2,top:protect",))])
def test_explicit_deals_equal_the_reference(options, seating, tmp_path):
    """Explicit deals (war generate --deals) of Steal War through the compiled engine, shard after
    shard in one workspace, between shards of the table engine: the reference's tables and
    Parquet bytes."""
    rules = build_rules("steal", options)
    specs = kit.seat_specs(rules, seating)
    classic = build_rules("classic", {"pickup": "winner_first"})
    for start in (0, 20, 40):
        deals = kit.random_deals(rules, 20, start + 5)
        assert compiled_plays(rules, deals, specs)
        games = kit.assert_same_as_reference(rules, 1, 77, start, start + 20, deals, specs, tmp_path).games
        assert games.column("deal").to_pylist() == ["explicit"] * 20
        shard_tables(classic, 0, 77, start, start + 20)


def test_the_grid_reaches_every_event_kind_and_outcome_of_steal_war():
    """Steal War's own steps (steals, both kinds of decision, reshuffles, wars, cards down, outs)
    and its outcomes occur in the compared games, so the equality above covers them."""
    kinds, outcomes, notes = set(), set(), set()
    for options, seating in CASES:
        rules = build_rules("steal", options)
        arrays = compiled_steal.play_arrays(rules, 2000, 0, GAMES, kit.seat_specs(rules, seating))
        reached = kit.kinds_and_outcomes(arrays)
        kinds, outcomes = kinds | reached[0], outcomes | reached[1]
        ids, logs, _ = play_range(build_rules("steal", options), 0, 2000, 0, 2, None, kit.seat_specs(rules, seating))
        notes |= {e.note for log in logs for e in log if e.kind == "decision"}
    assert kinds >= {"deal", "set_aside", "play", "down", "war", "collect", "reshuffle", "steal", "decision",
                     "out", "end"}
    assert outcomes >= {"win", "capped"}
    assert notes == {"steal", "top"}


@pytest.mark.parametrize("options,seating", [({}, ("random",)), ({"players": "4"}, ("greedy", "random"))])
def test_growing_the_log_changes_nothing(options, seating):
    """A log too small for even one game grows and replays the game: the same arrays."""
    rules = build_rules("steal", options)
    specs = kit.seat_specs(rules, seating)
    small = compiled_steal.play_arrays(rules, 9, 0, 30, specs, capacity=1)
    kit.assert_same_arrays(small, compiled_steal.play_arrays(rules, 9, 0, 30, specs))


def test_a_policy_without_a_compiled_form_goes_through_the_reference(monkeypatch):
    """A policy registered only in Python is played by the reference, and the seats with
    built-in policies keep their compiled form."""
    logs = kit.python_only_policy_logs(monkeypatch, "steal", "top", "lowest",
                                   lambda v, rng: v.cards[v.ranks.index(min(v.ranks))],
                                   ("top:lowest", "greedy"), ("greedy", "greedy"), 6)
    assert any(e.note == "top" for log in logs for e in log)


def test_the_reference_plays_everything_when_asked(monkeypatch):
    kit.assert_the_reference_plays_everything_when_asked(monkeypatch, "steal")


@pytest.mark.parametrize("options,policies,tournament", [
    ({}, (), ("always", "never", "random")),
    ({"players": "3", "war_tiebreak": "single_up"}, ({0: "random", -1: "cautious"}), ()),
])
def test_datasets_are_the_same_files_from_both_engines(tmp_path, monkeypatch, options, policies, tournament):
    """Seeded datasets, tournaments included, from the compiled engine and from the reference:
    the same files, byte for byte (the manifest's SHA-256 of each)."""
    plans = make_plans([build_rules("steal", options)], 30, None, policies, tournament)
    fast, ref = kit.datasets_from_both_engines(tmp_path, monkeypatch, plans, 11, 12)
    assert fast == ref
    assert len(fast) == 2 * sum((30 + 11) // 12 for _ in plans)


def test_validation_of_a_steal_dataset(tmp_path):
    """A Steal War dataset validates through the compiled regeneration, and a changed decision
    is found."""
    kit.assert_a_changed_decision_is_found(tmp_path / "steal", build_rules("steal"), 20, ({-1: "random"}), 10, "top", 3)
