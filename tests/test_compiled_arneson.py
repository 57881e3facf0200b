"""Arneson's War's compiled engine (pipeline/engines/arneson/compiled.py, with arneson/hands.py)
against its reference (pipeline/engines/arneson/reference.py): over every option of the variant,
every built-in hand policy and profile, mixed seatings, awkward decks, caps, wars:N, cycles,
explicit deals and seeded datasets (one with Classic War beside it), the tables and the files must
be the same, byte for byte; a policy known only in Python sends the games to the reference, and
validation finds a changed hand decision."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

import compiledkit as kit  # noqa: E402
from pipeline.engines import policies as policy_registry  # noqa: E402
from pipeline.engines.arneson import compiled as compiled_arneson  # noqa: E402
from pipeline.engines.choice import compiled_plays  # noqa: E402
from pipeline.jobs.generate import make_plans  # noqa: E402
from pipeline.log.shard import play_range  # noqa: E402
from pipeline.model.rules import build_rules  # noqa: E402
from pipeline.model.schema import OUTCOMES  # noqa: E402

# Every hand policy, as profiles, bare names and kind:name, alone and mixed.
SEATINGS = [
    *[(profile,) for profile in policy_registry.PROFILES],
    ("highest",), ("lowest",), ("save_high",), ("hand:random",),
    ("random", "greedy"), ("cautious", "lowest"), ("highest", "save_high"),
]
# Cycles (fixed pickups, no seat at random, with and without wars:N), a random seat under a fixed
# pickup (no cycles looked for), decks where every battle is a war (war_out, forfeit, set
# aside), odd decks (a card set aside at the deal), decks larger than the first log, caps.
COMBINATIONS = [
    ({"pickup": "table_order"}, ("greedy",)),
    ({"pickup": "winner_first"}, ("lowest", "highest")),
    ({"pickup": "winner_first", "win": "wars:2"}, ("cautious",)),
    ({"pickup": "table_order", "win": "wars:4", "ranks": "4", "suits": "3"}, ("save_high", "lowest")),
    ({"pickup": "table_order", "max_battles": "300"}, ("random", "highest")),
    ({"pickup": "pooled", "shortfall": "lose", "war_tiebreak": "single_up"}, ("random", "cautious")),
    ({"ranks": "1", "suits": "10"}, ("random",)),
    ({"ranks": "1", "suits": "12", "shortfall": "lose"}, ("lowest", "random")),
    ({"ranks": "1", "suits": "10", "jokers": "2", "war_tiebreak": "single_up"}, ("save_high",)),
    ({"ranks": "1", "suits": "11", "pickup": "pooled", "shortfall": "lose", "war_tiebreak": "single_up"}, ("random",)),
    ({"ranks": "2", "suits": "5", "pickup": "winner_first"}, ("highest",)),
    ({"ranks": "5", "suits": "3", "jokers": "2"}, ("random", "save_high")),
    ({"ranks": "3", "suits": "7", "pickup": "pooled"}, ("greedy", "random")),
    ({"ranks": "13", "suits": "8", "pickup": "shuffled"}, ("random",)),
    ({"max_battles": "1"}, ("random",)),
    ({"max_battles": "60", "pickup": "winner_first"}, ("highest",)),
    ({"win": "wars:1", "shortfall": "lose"}, ("cautious", "random")),
]
GAMES = 16
# Each seating with the defaults, each option value of the grid with a random seat and with two
# chosen ones, the combinations.
CASES = kit.seating_cases("arneson", SEATINGS, [("random",), ("cautious", "highest")], COMBINATIONS)


@pytest.mark.parametrize("case", CASES, ids=kit.seating_case_id)
def test_compiled_tables_equal_the_reference(case):
    kit.assert_case_plays_as_the_reference("arneson", CASES, case, 3000, GAMES)


def test_the_grid_reaches_every_event_kind_and_outcome_of_arnesons_war():
    """Arneson's War's steps (draws, hand decisions in battles and in wars of every depth, cards
    down, reshuffles, forfeits, war_outs, tables set aside) and every outcome occur in the
    compared games, so the equality above covers them."""
    kinds, outcomes = set(), set()
    for options, seating in CASES:
        rules = build_rules("arneson", options)
        arrays = compiled_arneson.play_arrays(rules, 3000, 0, GAMES, kit.seat_specs(rules, seating))
        reached = kit.kinds_and_outcomes(arrays)
        kinds, outcomes = kinds | reached[0], outcomes | reached[1]
    assert kinds >= {"deal", "set_aside", "draw", "decision", "play", "down", "war", "war_out", "forfeit",
                     "collect", "reshuffle", "out", "end"}
    assert outcomes == set(OUTCOMES)
    rules = build_rules("arneson", {"ranks": "1", "suits": "10"})
    _, logs, _ = play_range(rules, 0, 3000, 0, GAMES, None, kit.seat_specs(rules, ("random",)))
    depths = {e.value for log in logs for e in log if e.kind == "decision"}
    assert depths >= {0, 1, 2, 3}


@pytest.mark.parametrize("options,seating", [
    ({}, ("random",)),
    ({"pickup": "winner_first"}, ("lowest", "highest")),
    ({"pickup": "table_order", "win": "wars:3"}, ("greedy",)),
])
def test_growing_the_buffers_changes_nothing(options, seating):
    """A log too small for even one game, and room for two positions a game, grow and replay the
    game: the same arrays."""
    rules = build_rules("arneson", options)
    specs = kit.seat_specs(rules, seating)
    small = compiled_arneson.play_arrays(rules, 9, 0, 20, specs, capacity=1, positions=2)
    kit.assert_same_arrays(small, compiled_arneson.play_arrays(rules, 9, 0, 20, specs))


def test_a_policy_without_a_compiled_form_goes_through_the_reference(monkeypatch):
    """A policy registered only in Python is played by the reference."""
    kit.python_only_policy_logs(monkeypatch, "arneson", "hand", "middle", lambda v, rng: v.hand[len(v.hand) // 2],
                            ("hand:middle", "greedy"), ("greedy", "lowest"), 4)


def test_the_reference_plays_everything_when_asked(monkeypatch):
    kit.assert_the_reference_plays_everything_when_asked(monkeypatch, "arneson")


@pytest.mark.parametrize("options,policies,tournament", [
    ({}, (), ("highest", "lowest", "random")),
    ({"pickup": "winner_first", "win": "wars:5"}, ({0: "random", -1: "cautious"}), ()),
    ({"pickup": "table_order", "ranks": "6"}, ({-1: "save_high"}), ()),
])
def test_datasets_are_the_same_files_from_both_engines(tmp_path, monkeypatch, options, policies, tournament):
    """Seeded datasets, tournaments included, from the compiled engine and from the reference:
    the same files, byte for byte (the manifest's SHA-256 of each), and they validate."""
    plans = make_plans([build_rules("arneson", options)], 14, None, policies, tournament)
    fast, ref = kit.datasets_from_both_engines(tmp_path, monkeypatch, plans, 11, 6, validated=True)
    assert fast == ref
    assert len(fast) == 2 * sum((14 + 5) // 6 for _ in plans)


def test_validation_finds_a_changed_hand_decision(tmp_path):
    """An Arneson dataset validates through the compiled regeneration, and a decision changed to
    another card of the hand is found in its game only."""
    kit.assert_a_changed_decision_is_found(tmp_path / "arneson", build_rules("arneson"), 12, ({-1: "greedy"}), 6,
                                       "hand", 2)


@pytest.mark.parametrize("options,seating", [
    ({}, ("random",)),
    ({"pickup": "winner_first"}, ("lowest", "highest")),
    ({"pickup": "pooled", "shortfall": "lose", "ranks": "4", "suits": "4", "jokers": "2"}, ("cautious", "random")),
])
def test_explicit_deals_equal_the_reference(tmp_path, options, seating):
    """Explicit deals (uneven piles, cards set aside) through the compiled engine: the same tables
    and Parquet bytes as the reference playing them."""
    rules = build_rules("arneson", options)
    specs = kit.seat_specs(rules, seating)
    deals = kit.random_deals(rules, 12, 5)
    assert compiled_plays(rules, deals, specs)
    kit.assert_same_as_reference(rules, 1, 5, 7, 19, deals, specs, tmp_path)


def test_a_dataset_of_several_families_is_the_same_files_from_both_engines(tmp_path, monkeypatch):
    """Classic War and Arneson's War, both looking for cycles, in one dataset: the compiled engines
    share their buffers from shard to shard (log.batches.WORKSPACE), and the files are the
    reference's, byte for byte."""
    plans = (make_plans([build_rules("classic", {"pickup": "winner_first"})], 14)
             + make_plans([build_rules("arneson", {"pickup": "winner_first"})], 14, None, ({-1: "greedy"}))
             + make_plans([build_rules("classic", {"pickup": "table_order"})], 8))
    fast, ref = kit.datasets_from_both_engines(tmp_path, monkeypatch, plans, 5, 5)
    assert fast == ref
