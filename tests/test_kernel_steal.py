"""Steal War's compiled engine (pipeline/engines/compiled/steal.py) against its reference
(engines.steal.StealGame): over every option of the variant, every built-in policy and profile,
mixed seatings, tournaments and seeded datasets, the tables and the files must be the same,
byte for byte."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

pytest.importorskip("numba")

from pipeline.engines import policies as policy_registry  # noqa: E402
from pipeline.engines.steal import compiled as compiled_steal  # noqa: E402
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

# Every policy of every kind of Steal War, as profiles and as single policies.
SEATINGS = [
    *[(profile,) for profile in policy_registry.PROFILES],
    ("steal:never,top:highest",), ("steal:random,top:protect",), ("steal:threshold:3,top:random",),
    ("steal:threshold:0,top:as_played",), ("steal:threshold:1000000000000000000000",),
    ("random", "greedy"), ("cautious", "steal:random,top:highest"),
]
STEAL_OPTIONS = [(option, value) for option, values in OPTION_GRID.items() if option in VARIANTS["steal"].options
                 for value in values]
# Options with policies that exercise them, decks where every card steals, and seats up to 8.
COMBINATIONS = [
    ({"war_down": "by_rank"}, ("random",)),
    ({"war_down": "1000000000000"}, ("random",)),
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


def cases():
    for seating in SEATINGS:
        yield {}, seating
    for option, value in STEAL_OPTIONS:
        yield {option: value}, ("random",)
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
    rules = build_rules("steal", options)
    specs = seat_specs(rules, seating)
    assert compiled_plays(rules, None, specs)
    number = CASES.index(case)
    ordinal, seed, start = number % 3, 2000 + 7919 * number, (number * 37) % 101
    ids, logs, records = play_range(rules, ordinal, seed, start, start + GAMES, None, specs)
    events, games = play_range_fast(rules, ordinal, seed, start, start + GAMES, specs)
    assert_same_tables(games, games_table(records), "games")
    assert_same_tables(events, events_table(ids, logs), "events")


@pytest.mark.parametrize("options,seating", [({}, ("random",)), ({"players": "3"}, ("greedy", "cautious")),
                                             ({"players": "4", "war_down": "by_rank"}, ("random", "greedy")),
                                             ({"ranks": "5", "suits": "4", "jokers": "0"}, ("steal:threshold:2,top:protect",))])
def test_explicit_deals_equal_the_reference(options, seating, tmp_path):
    """Explicit deals (war generate --deals) of Steal War through the compiled engine, shard after
    shard in one workspace, between shards of the table engine: the reference's tables and
    Parquet bytes."""
    rules = build_rules("steal", options)
    specs = seat_specs(rules, seating)
    classic = build_rules("classic", {"pickup": "winner_first"})
    for start in (0, 20, 40):
        deals = random_deals(rules, 20, start + 5)
        assert compiled_plays(rules, deals, specs)
        events, games = shard_tables(rules, 1, 77, start, start + 20, deals, specs)
        ids, logs, records = play_range(rules, 1, 77, start, start + 20, deals, specs)
        assert_same_tables(games, games_table(records), "games")
        assert_same_tables(events, events_table(ids, logs), "events")
        assert games.column("deal").to_pylist() == ["explicit"] * 20
        shard_tables(classic, 0, 77, start, start + 20)
    for table, ref, key in ((events, events_table(ids, logs), ("game_id", "seq")),
                            (games, games_table(records), ("game_id",))):
        assert write_parquet(table, tmp_path / "fast.parquet", key) == write_parquet(ref, tmp_path / "ref.parquet",
                                                                                     key)


def test_the_grid_reaches_every_event_kind_and_outcome_of_steal_war():
    """Steal War's own steps (steals, both kinds of decision, reshuffles, wars, cards down, outs)
    and its outcomes occur in the compared games, so the equality above covers them."""
    kinds, outcomes, notes = set(), set(), set()
    for options, seating in CASES:
        rules = build_rules("steal", options)
        arrays = compiled_steal.play_arrays(rules, 2000, 0, GAMES, seat_specs(rules, seating))
        kinds |= {EVENT_KINDS[k] for k in np.unique(arrays.events[:, EVENT_KIND])}
        outcomes |= {OUTCOMES[o] for o in np.unique(arrays.summaries[:, SUMMARY_OUTCOME])}
        ids, logs, _ = play_range(build_rules("steal", options), 0, 2000, 0, 2, None, seat_specs(rules, seating))
        notes |= {e.note for log in logs for e in log if e.kind == "decision"}
    assert kinds >= {"deal", "set_aside", "play", "down", "war", "collect", "reshuffle", "steal", "decision",
                     "out", "end"}
    assert outcomes >= {"win", "capped"}
    assert notes == {"steal", "top"}


@pytest.mark.parametrize("options,seating", [({}, ("random",)), ({"players": "4"}, ("greedy", "random"))])
def test_growing_the_log_changes_nothing(options, seating):
    """A log too small for even one game grows and replays the game: the same arrays."""
    rules = build_rules("steal", options)
    specs = seat_specs(rules, seating)
    small = compiled_steal.play_arrays(rules, 9, 0, 30, specs, capacity=1)
    large = compiled_steal.play_arrays(rules, 9, 0, 30, specs)
    for a, b in zip(small, large):
        assert np.array_equal(a, b)


def test_a_policy_without_a_compiled_form_goes_through_the_reference(monkeypatch):
    """A policy registered only in Python is played by the reference, and the seats with
    built-in policies keep their compiled form."""
    rules = build_rules("steal")
    monkeypatch.setitem(policy_registry.KINDS["top"], "lowest", lambda: lambda v, rng: v.cards[v.ranks.index(min(v.ranks))])
    python_only = policy_specs(rules, ("top:lowest", "greedy"))
    assert not compiled_plays(rules, None, python_only)
    assert compiled_plays(rules, None, policy_specs(rules, ("greedy", "greedy")))
    events, games = shard_tables(rules, 0, 4, 0, 6, None, python_only)
    ids, logs, records = play_range(rules, 0, 4, 0, 6, None, python_only)
    assert events.equals(events_table(ids, logs)) and games.equals(games_table(records))
    assert any(e.note == "top" for log in logs for e in log)


def test_the_reference_plays_everything_when_asked(monkeypatch):
    rules = build_rules("steal")
    monkeypatch.setenv("WAR_ENGINE", "reference")
    assert not compiled_plays(rules, None, policy_specs(rules, ()))


def dataset_files(root):
    """Each file of a dataset (manifest order) with its SHA-256, as the manifest records them."""
    return [(f.path, f.sha256, f.rows) for f in Dataset.open(root).manifest.files]


@pytest.mark.parametrize("options,policies,tournament", [
    ({}, (), ("always", "never", "random")),
    ({"players": "3", "war_tiebreak": "single_up"}, ({0: "random", -1: "cautious"}), ()),
])
def test_datasets_are_the_same_files_from_both_engines(tmp_path, monkeypatch, options, policies, tournament):
    """Seeded datasets, tournaments included, from the compiled engine and from the reference:
    the same files, byte for byte (the manifest's SHA-256 of each)."""
    rules = build_rules("steal", options)
    plans = make_plans([rules], 30, None, policies, tournament)
    generate(tmp_path / "fast", plans, seed=11, shard_size=12)
    monkeypatch.setenv("WAR_ENGINE", "reference")
    generate(tmp_path / "ref", plans, seed=11, shard_size=12)
    fast, ref = dataset_files(tmp_path / "fast"), dataset_files(tmp_path / "ref")
    assert fast == ref
    assert len(fast) == 2 * sum((30 + 11) // 12 for _ in plans)


def test_validation_of_a_steal_dataset(tmp_path):
    """A Steal War dataset validates through the compiled regeneration, and a changed decision
    is found."""
    out = tmp_path / "steal"
    generate(out, make_plans([build_rules("steal")], 20, None, ({-1: "random"})), seed=3, shard_size=10)
    assert validate(out).ok
    ds = Dataset.open(out)
    events_file = out / ds.files("events")[1].path
    gid = pq.read_table(out / ds.files("games")[1].path).column("game_id")[3].as_py()

    def flip_top(events):
        for e in events:
            if e["kind"] == "decision" and e["note"] == "top" and len(e["options"]) > 1:
                e["cards"] = [next(c for c in e["options"] if c != e["cards"][0])]
                break
        return events

    rewrite_game_events(events_file, gid, flip_top)
    report = validate(out)
    assert not report.ok
    assert {p.game_id for p in report.problems if p.game_id is not None} == {gid}
