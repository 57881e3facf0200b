"""The compiled engine's shard a batch at a time (pipeline/log/batches.py, compiled_shard): a
shard played in batches of any size gives the tables of the shard played at once, explicit deals
and seats' policies too, each batch's cards balancing; a batch is sized by the events the
workspace has seen games of its rule set log; a batch whose cards do not balance fails the shard."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from compiledkit import assert_same_tables, random_deals, seat_specs  # noqa: E402
from pipeline.engines.compiled.state import Workspace  # noqa: E402
from pipeline.log.batches import compiled_shard  # noqa: E402
from pipeline.model.rules import build_rules  # noqa: E402


@pytest.mark.parametrize("name,options,dealt,seating", [
    ("classic", {"pickup": "winner_first"}, False, ()),
    ("classic", {}, True, ()),
    ("multiplayer", {"players": "3", "shortfall": "lose", "pickup": "pooled"}, False, ()),
    ("steal", {}, False, ()),
    ("steal", {"players": "3"}, True, ("random", "greedy")),
    ("arneson", {}, False, ()),
    ("arneson", {}, False, ("cautious", "hand:random")),
])
def test_a_shard_played_in_batches_is_the_shard_played_at_once(name, options, dealt, seating):
    """compiled_shard plays and encodes a shard a batch of games at a time: whatever the batch,
    the tables are the ones of the whole shard at once (shape ids run on from batch to batch),
    and every batch's cards balance; with explicit deals and seats' policies too."""
    rules = build_rules(name, options)
    deals = random_deals(rules, 60, 5) if dealt else None
    policies = seat_specs(rules, seating) if seating else ()
    whole = compiled_shard(rules, 2, 11, 40, 100, policies, deals, check_balance=True, batch=60)
    assert whole[2] is True
    assert compiled_shard(rules, 2, 11, 40, 100, policies, deals, batch=60)[2] is None  # not asked
    for batch in (1, 7, 59):
        events, games_, balanced = compiled_shard(rules, 2, 11, 40, 100, policies, deals, check_balance=True,
                                                  batch=batch)
        assert balanced is True
        assert_same_tables(events, whole[0], "events")
        assert_same_tables(games_, whole[1], "games")
        assert events.column("shape").chunk(0).dictionary.equals(whole[0].column("shape").chunk(0).dictionary)


def test_batches_are_sized_by_the_games_the_workspace_has_seen(monkeypatch):
    """A batch holds about BATCH_EVENTS events: by the engine's estimate until games of the rule
    set have been played, then by the events they logged on average (rounded up), counted per
    rule set. First to three wars logs a few times fewer events than the estimate says, so its
    batches grow after the first; the tables stay those of the shard played at once."""
    import pipeline.engines.table.compiled as table_engine
    import pipeline.log.batches as shard
    from pipeline.engines.table.compiled import events_a_game

    monkeypatch.setattr(shard, "WORKSPACE", Workspace())
    short, other = build_rules("classic", {"win": "wars:3"}), build_rules("classic")
    assert shard.batch_games(short) == shard.BATCH_EVENTS // events_a_game(short)
    sizes = []
    real = table_engine.play_arrays
    monkeypatch.setattr(table_engine, "play_arrays", lambda rules, seed, first, last, *a, **kw:
                        sizes.append(last - first) or real(rules, seed, first, last, *a, **kw))
    events, games_, _ = compiled_shard(short, 0, 1, 0, 3000)
    logged = games_.column("events").to_pylist()
    played, shard_events = shard.WORKSPACE.logged[short.rules_id]
    assert (played, shard_events) == (3000, sum(logged))
    mean = -(-shard_events // played)
    assert sizes[0] == shard.BATCH_EVENTS // events_a_game(short) and sizes[1] > 2 * sizes[0]
    assert shard.WORKSPACE.events_a_game(short) == mean
    assert shard.batch_games(short) == shard.BATCH_EVENTS // mean
    assert shard.batch_games(other) == shard.BATCH_EVENTS // events_a_game(other)  # not these rules' games
    monkeypatch.setattr(shard, "WORKSPACE", Workspace())
    again = compiled_shard(short, 0, 1, 0, 3000, batch=shard.BATCH_EVENTS // events_a_game(short))
    assert_same_tables(events, again[0], "events")
    assert_same_tables(games_, again[1], "games")


def test_a_batch_that_does_not_balance_fails_the_shard(monkeypatch):
    """One batch whose cards do not balance makes the shard's check fail, and the batches after
    it are not checked."""
    import pipeline.log.batches as shard

    verdicts = iter([True, False])
    checked = []
    monkeypatch.setattr(shard, "cards_balance", lambda arrays, deck: checked.append(deck) or next(verdicts))
    assert compiled_shard(build_rules("classic"), 0, 1, 0, 40, check_balance=True, batch=10)[2] is False
    assert checked == [52, 52]

