"""Arneson's War's compiled engine (pipeline/engines/compiled/arneson.py) against its reference
(engines.arneson.ArnesonGame): over every option of the variant, every built-in hand policy and
profile, mixed seatings, awkward decks, caps, wars:N, cycles and seeded datasets, the tables
and the files must be the same, byte for byte."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

pytest.importorskip("numba")

from pipeline.engines import policies as policy_registry  # noqa: E402
from pipeline.engines.arneson import compiled as compiled_arneson  # noqa: E402
from pipeline.engines.compiled.layout import EVENT_KIND, SUMMARY_OUTCOME  # noqa: E402
from pipeline.engines.game import policy_specs  # noqa: E402
from pipeline.jobs.generate import generate, make_plans  # noqa: E402
from pipeline.jobs.validate import validate  # noqa: E402
from pipeline.engines.choice import compiled_plays
from pipeline.log.shard import play_range, play_range_fast, shard_tables  # noqa: E402
from pipeline.log.tables import events_table, games_table  # noqa: E402
from pipeline.model.rules import build_rules  # noqa: E402
from pipeline.model.schema import EVENT_KINDS, OUTCOMES  # noqa: E402
from pipeline.model.variants import VARIANTS  # noqa: E402
from pipeline.storage.dataset import Dataset  # noqa: E402
from pipeline.storage.files import write_parquet  # noqa: E402
from rulekit import OPTION_GRID, rewrite_game_events  # noqa: E402
from test_kernel import assert_same_tables, random_deals  # noqa: E402

# Every hand policy, as profiles, bare names and kind:name, alone and mixed.
SEATINGS = [
    *[(profile,) for profile in policy_registry.PROFILES],
    ("highest",), ("lowest",), ("save_high",), ("hand:random",),
    ("random", "greedy"), ("cautious", "lowest"), ("highest", "save_high"),
]
ARNESON_OPTIONS = [(option, value) for option, values in OPTION_GRID.items()
                   if option in VARIANTS["arneson"].options for value in values]
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


def cases():
    for seating in SEATINGS:
        yield {}, seating
    for option, value in ARNESON_OPTIONS:
        yield {option: value}, ("random",)
    for option, value in ARNESON_OPTIONS:
        yield {option: value}, ("cautious", "highest")
    yield from COMBINATIONS


CASES = list(cases())


def case_id(case):
    options, seating = case
    return "-".join([f"{k}={v}" for k, v in options.items()] + list(seating)).replace(":", "_")


def seat_specs(rules, seating):
    return policy_specs(rules, tuple(seating[seat % len(seating)] for seat in range(rules.players)))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_compiled_tables_equal_the_reference(case):
    options, seating = case
    rules = build_rules("arneson", options)
    specs = seat_specs(rules, seating)
    assert compiled_plays(rules, None, specs)
    number = CASES.index(case)
    ordinal, seed, start = number % 3, 3000 + 7919 * number, (number * 37) % 101
    ids, logs, records = play_range(rules, ordinal, seed, start, start + GAMES, None, specs)
    events, games = play_range_fast(rules, ordinal, seed, start, start + GAMES, specs)
    assert_same_tables(games, games_table(records), "games")
    assert_same_tables(events, events_table(ids, logs), "events")


def test_the_grid_reaches_every_event_kind_and_outcome_of_arnesons_war():
    """Arneson's War's steps (draws, hand decisions in battles and in wars of every depth, cards
    down, reshuffles, forfeits, war_outs, tables set aside) and every outcome occur in the
    compared games, so the equality above covers them."""
    kinds, outcomes = set(), set()
    for options, seating in CASES:
        rules = build_rules("arneson", options)
        arrays = compiled_arneson.play_arrays(rules, 3000, 0, GAMES, seat_specs(rules, seating))
        kinds |= {EVENT_KINDS[k] for k in np.unique(arrays.events[:, EVENT_KIND])}
        outcomes |= {OUTCOMES[o] for o in np.unique(arrays.summaries[:, SUMMARY_OUTCOME])}
    assert kinds >= {"deal", "set_aside", "draw", "decision", "play", "down", "war", "war_out", "forfeit",
                     "collect", "reshuffle", "out", "end"}
    assert outcomes == set(OUTCOMES)
    rules = build_rules("arneson", {"ranks": "1", "suits": "10"})
    _, logs, _ = play_range(rules, 0, 3000, 0, GAMES, None, seat_specs(rules, ("random",)))
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
    specs = seat_specs(rules, seating)
    small = compiled_arneson.play_arrays(rules, 9, 0, 20, specs, capacity=1, positions=2)
    large = compiled_arneson.play_arrays(rules, 9, 0, 20, specs)
    for a, b in zip(small, large):
        assert np.array_equal(a, b)


def test_a_policy_without_a_compiled_form_goes_through_the_reference(monkeypatch):
    """A policy registered only in Python is played by the reference."""
    rules = build_rules("arneson")
    monkeypatch.setitem(policy_registry.KINDS["hand"], "middle", lambda: lambda v, rng: v.hand[len(v.hand) // 2])
    python_only = policy_specs(rules, ("hand:middle", "greedy"))
    assert not compiled_plays(rules, None, python_only)
    assert compiled_plays(rules, None, policy_specs(rules, ("greedy", "lowest")))
    events, games = shard_tables(rules, 0, 4, 0, 4, None, python_only)
    ids, logs, records = play_range(rules, 0, 4, 0, 4, None, python_only)
    assert events.equals(events_table(ids, logs)) and games.equals(games_table(records))


def test_the_reference_plays_everything_when_asked(monkeypatch):
    rules = build_rules("arneson")
    monkeypatch.setenv("WAR_ENGINE", "reference")
    assert not compiled_plays(rules, None, policy_specs(rules, ()))


def dataset_files(root):
    """Each file of a dataset (manifest order) with its SHA-256, as the manifest records them."""
    return [(f.path, f.sha256, f.rows) for f in Dataset.open(root).manifest.files]


@pytest.mark.parametrize("options,policies,tournament", [
    ({}, (), ("highest", "lowest", "random")),
    ({"pickup": "winner_first", "win": "wars:5"}, ({0: "random", -1: "cautious"}), ()),
    ({"pickup": "table_order", "ranks": "6"}, ({-1: "save_high"}), ()),
])
def test_datasets_are_the_same_files_from_both_engines(tmp_path, monkeypatch, options, policies, tournament):
    """Seeded datasets, tournaments included, from the compiled engine and from the reference:
    the same files, byte for byte (the manifest's SHA-256 of each), and they validate."""
    rules = build_rules("arneson", options)
    plans = make_plans([rules], 14, None, policies, tournament)
    generate(tmp_path / "fast", plans, seed=11, shard_size=6)
    assert validate(tmp_path / "fast").ok
    monkeypatch.setenv("WAR_ENGINE", "reference")
    generate(tmp_path / "ref", plans, seed=11, shard_size=6)
    fast, ref = dataset_files(tmp_path / "fast"), dataset_files(tmp_path / "ref")
    assert fast == ref
    assert len(fast) == 2 * sum((14 + 5) // 6 for _ in plans)


def test_validation_finds_a_changed_hand_decision(tmp_path):
    """An Arneson dataset validates through the compiled regeneration, and a decision changed to
    another card of the hand is found in its game only."""
    out = tmp_path / "arneson"
    generate(out, make_plans([build_rules("arneson")], 12, None, ({-1: "greedy"})), seed=3, shard_size=6)
    assert validate(out).ok
    ds = Dataset.open(out)
    events_file = out / ds.files("events")[1].path
    gid = pq.read_table(out / ds.files("games")[1].path).column("game_id")[2].as_py()

    def flip_choice(events):
        for e in events:
            if e["kind"] == "decision" and e["note"] == "hand" and len(e["options"]) > 1:
                e["cards"] = [next(c for c in e["options"] if c != e["cards"][0])]
                break
        return events

    rewrite_game_events(events_file, gid, flip_choice)
    report = validate(out)
    assert not report.ok
    assert {p.game_id for p in report.problems if p.game_id is not None} == {gid}


@pytest.mark.parametrize("options,seating", [
    ({}, ("random",)),
    ({"pickup": "winner_first"}, ("lowest", "highest")),
    ({"pickup": "pooled", "shortfall": "lose", "ranks": "4", "suits": "4", "jokers": "2"}, ("cautious", "random")),
])
def test_explicit_deals_equal_the_reference(tmp_path, options, seating):
    """Explicit deals (uneven piles, cards set aside) through the compiled engine: the same tables
    and Parquet bytes as the reference playing them."""
    rules = build_rules("arneson", options)
    specs = seat_specs(rules, seating)
    deals = random_deals(rules, 12, 5)
    assert compiled_plays(rules, deals, specs)
    ids, logs, records = play_range(rules, 1, 5, 7, 19, deals, specs)
    ref_events, ref_games = events_table(ids, logs), games_table(records)
    events, games = shard_tables(rules, 1, 5, 7, 19, deals, specs)
    assert_same_tables(games, ref_games, "games")
    assert_same_tables(events, ref_events, "events")
    for table, ref, key in ((events, ref_events, ("game_id", "seq")), (games, ref_games, ("game_id",))):
        assert write_parquet(table, tmp_path / "fast.parquet", key) == write_parquet(ref, tmp_path / "ref.parquet",
                                                                                     key)


def test_a_dataset_of_several_families_is_the_same_files_from_both_engines(tmp_path, monkeypatch):
    """Classic War and Arneson's War, both looking for cycles, in one dataset: the compiled engines
    share their buffers from shard to shard (log.shard.WORKSPACE), and the files are the
    reference's, byte for byte."""
    plans = (make_plans([build_rules("classic", {"pickup": "winner_first"})], 14)
             + make_plans([build_rules("arneson", {"pickup": "winner_first"})], 14, None, ({-1: "greedy"}))
             + make_plans([build_rules("classic", {"pickup": "table_order"})], 8))
    generate(tmp_path / "fast", plans, seed=5, shard_size=5)
    monkeypatch.setenv("WAR_ENGINE", "reference")
    generate(tmp_path / "ref", plans, seed=5, shard_size=5)
    assert dataset_files(tmp_path / "fast") == dataset_files(tmp_path / "ref")
