"""The reference engines recording into the compiled engine's arrays (pipeline/log/array_recorder.py,
log.batches.reference_shard): a shard a reference engine plays that way has the tables, and the
Parquet bytes, of the same games played as Event lists and spelt by log.codec (log.shard.play_range),
for every family, the plugin example, seats' policies, explicit deals, small decks and batches of
any size; an event the arrays cannot hold sends the whole shard back to the Event path, progress
counted once; validation regenerates a reference-only shard the same way and still finds a
changed game."""

from __future__ import annotations

import pytest

from compiledkit import assert_same_tables, random_deals, seat_specs
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.validate import validate
from pipeline.log import array_recorder, batches
from pipeline.log.batches import Lost, reference_shard
from pipeline.log.shard import play_range, shard_tables
from pipeline.log.tables import events_table, games_table
from pipeline.model.rules import build_rules
from pipeline.storage.files import write_parquet
from validatekit import assert_caught, edit_game

CASES = [
    ("classic", {}, False, ()),
    ("classic", {"pickup": "winner_first"}, False, ()),
    ("classic", {"pickup": "natural", "shortfall": "lose", "war_tiebreak": "single_up"}, True, ()),
    ("classic", {"pickup": "sorted", "win": "wars:3", "aces": "low"}, False, ()),
    ("classic", {"pickup": "table_order", "ranks": "3", "suits": "4", "max_battles": "60"}, False, ()),
    ("multiplayer", {"players": "4", "pickup": "pooled", "shortfall": "lose"}, True, ()),
    ("jokers", {"players": "3", "war_down": "0"}, False, ()),
    ("razboi", {"ace_value": "14"}, False, ()),
    ("steal", {}, False, ("random", "greedy")),
    ("steal", {"players": "3"}, True, ()),
    ("arneson", {}, False, ("cautious", "hand:random")),
    ("slap", {}, False, ("slap:random", "slap:never")),
    ("slap", {"slap_order": "seat", "pickup": "winner_first"}, False, ()),
]


@pytest.mark.parametrize("name,options,dealt,seating", CASES, ids=lambda c: str(c) if c else "-")
def test_the_arrays_give_the_event_paths_tables(name, options, dealt, seating, tmp_path, monkeypatch):
    """reference_shard's tables are play_range's, value for value and byte for byte, whatever
    the batch (batches of a few games: shape ids and cards run on from batch to batch)."""
    rules = build_rules(name, options)
    deals = random_deals(rules, 30, 3) if dealt else None
    policies = seat_specs(rules, seating) if seating else ()
    ids, logs, records = play_range(rules, 1, 7, 20, 50, deals, policies)
    want_events, want_games = events_table(ids, logs), games_table(records)
    for batch in (1 << 17, 600):
        monkeypatch.setattr(batches, "BATCH_EVENTS", batch)
        events, games_, balanced = reference_shard(rules, 1, 7, 20, 50, policies, deals, check_balance=True)
        assert balanced is True
        assert_same_tables(games_, want_games, "games")
        assert_same_tables(events, want_events, "events")
    for table, ref, key in ((events, want_events, ("game_id", "seq")), (games_, want_games, ("game_id",))):
        assert write_parquet(table, tmp_path / "a.parquet", key) == write_parquet(ref, tmp_path / "b.parquet", key)


def test_a_shard_of_no_games_has_the_empty_tables():
    rules = build_rules("classic")
    events, games_, balanced = reference_shard(rules, 0, 1, 5, 5, check_balance=True)
    ids, logs, records = play_range(rules, 0, 1, 5, 5)
    assert balanced is True
    assert_same_tables(events, events_table(ids, logs), "events")
    assert_same_tables(games_, games_table(records), "games")


def test_an_event_the_arrays_cannot_hold_sends_the_shard_to_the_event_path(monkeypatch):
    """Without a code for `war` (as for a plugin's event the arrays cannot say), the first war
    loses the arrays, some games in: the shard is played again as Event lists, with the same
    tables, and progress counts every game once."""
    rules = build_rules("classic", {"pickup": "winner_first"})
    monkeypatch.setenv("WAR_ENGINE", "reference")
    ids, logs, records = play_range(rules, 0, 3, 0, 250)
    monkeypatch.delitem(array_recorder.KIND_CODES, "war")
    lost = reference_shard(rules, 0, 3, 0, 250)
    assert isinstance(lost, Lost) and "'war'" in lost.why
    ticks = []
    events, games_ = shard_tables(rules, 0, 3, 0, 250, tick=ticks.append)
    assert sum(ticks) == 250
    assert_same_tables(games_, games_table(records), "games")
    assert_same_tables(events, events_table(ids, logs), "events")


def test_a_value_on_a_kind_that_carries_none_is_not_held():
    """An event whose value the encoder would drop (a play with a value) or a note that is no
    outcome or decision: the recorder gives up rather than write other bytes."""
    rec = array_recorder.ArrayRecorder(2)
    rec.begin()
    with pytest.raises(array_recorder.Unrepresentable):
        rec.emit(1, "play", 0, (5,), value=3)
    assert rec.lost
    rec = array_recorder.ArrayRecorder(2)
    rec.begin()
    with pytest.raises(array_recorder.Unrepresentable):
        rec.emit(1, "collect", 0, (5, 6), note="two words")


def test_validation_regenerates_a_reference_shard_and_finds_a_change(tmp_path, monkeypatch):
    """A dataset only the reference engine plays (WAR_ENGINE=reference; the plugin example has no
    compiled engine either) is good when regenerated through the arrays, and a game changed in
    its events file is still named."""
    monkeypatch.setenv("WAR_ENGINE", "reference")
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("classic"), 40), Plan(build_rules("slap"), 20)], seed=9, shard_size=15)
    report = validate(out)
    assert report.bad == 0 and report.good == 60 and not report.problems
    rel = edit_game(out, 17, "events", lambda events: [
        dict(e, cards=list(reversed(e["cards"]))) if e["kind"] == "collect" and len(e["cards"]) > 1 else e
        for e in events])
    assert_caught(validate(out), 17, "stale", (rel,))


@pytest.mark.parametrize("options", [{"pickup": "table_order", "ranks": "4", "suits": "4"},
                                     {"pickup": "table_order", "win": "wars:2", "ranks": "4", "suits": "3"}])
def test_positions_kept_as_bytes_play_the_same_games(options, monkeypatch):
    """A table game whose positions are kept as bytes (Game.piles_by) cycles at the same battle,
    with the same cycle length and key, as with tuples: every game's tables are the same."""
    from pipeline.engines.cycle_key import position_key
    from pipeline.engines.table.reference import TableGame

    rules = build_rules("classic", options)
    tuples = reference_shard(rules, 0, 5, 0, 80)
    assert any(o == "cycle" for o in tuples[1].column("outcome").to_pylist())
    monkeypatch.setattr(TableGame, "position", lambda self: (
        self.piles_by(self.strengths), tuple(self.summary.war_wins) if self.wars_to_win else ()))
    as_bytes = reference_shard(rules, 0, 5, 0, 80)
    assert_same_tables(as_bytes[1], tuples[1], "games")
    assert_same_tables(as_bytes[0], tuples[0], "events")
    piles = ((3, 1, 2), (0,))
    assert position_key(((bytes(piles[0]), bytes(piles[1])), ()), False) == position_key((piles, ()), False)
