"""The tables of a range of games (a shard), from whichever engine plays them (engines.choice):
the compiled engine a batch at a time (log.batches), else the reference engine game by game,
recording into the compiled engine's arrays (log.batches.reference_shard) or, for events those
cannot hold, as Event lists (play_range)."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Callable, ContextManager

from ..engines.choice import compiled_engine
from ..engines.game import play_game
from ..errors import PluginError
from ..model.deal import Deal
from ..model.rng import game_seed
from ..model.schema import GAME_ID_STRIDE, RuleSet
from .batches import Lost, compiled_shard, reference_shard
from .codec import encode as encode_log
from .tables import game_record, games_table, rows_table


def play_range_fast(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int,
                    policies=(), deals=None, rules_id: str | None = None, events: bool = True, seeds=None):
    """Games start..stop-1 of a rule set as (events table, games table) from the compiled engine:
    the same tables as events_table / games_table over play_range (no events table, None,
    without `events`)."""
    events, games, _ = compiled_shard(rules, ordinal, seed, start, stop, policies, deals, rules_id=rules_id,
                                      events=events, seeds=seeds)
    return events, games


def shard_tables(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int, deals=None, policies=(),
                 tick=None, rules_id: str | None = None, events: bool = True, seeds=None,
                 compiled_in: Callable[[], ContextManager] = nullcontext):
    """(events table, games table) of games start..stop-1: from the compiled engine when it
    plays them, else from the reference. What generate.run_shard writes; `rules_id`, the id its
    dataset gives the rule set (log.tables.game_record). Without `events`, the events table is
    None (a dataset that stores the games table alone). `seeds`: each game's own seed, where the
    games keep those they had in another dataset (else game i's comes from `seed`).
    `compiled_in()`, the context the compiled engine plays in (generate's defers Ctrl-C, which
    numba's machine code cannot take); the reference engine plays outside it, pure Python that a
    Ctrl-C stops at once, however long its shard or a plugin's policy takes."""
    engine = compiled_engine(rules, policies)  # once a shard: the choice reads every option
    if engine is not None:
        with compiled_in():
            tables = compiled_shard(rules, ordinal, seed, start, stop, policies, deals, rules_id=rules_id,
                                    events=events, seeds=seeds, engine=engine)[:2]
        if tick is not None and stop > start:
            tick(stop - start)
        return tables
    tables = reference_shard(rules, ordinal, seed, start, stop, policies, deals, rules_id=rules_id, events=events,
                             seeds=seeds, tick=tick, compiled_in=compiled_in)
    if not isinstance(tables, Lost):
        return tables[:2]
    ids, rows, records = play_range(rules, ordinal, seed, start, stop, deals, policies, tables.rest(tick),
                                    encode=events, rules_id=rules_id, seeds=seeds)
    return (rows_table(ids, rows) if events else None), games_table(records)


def play_range(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int,
               deals: list[Deal] | None = None, policies=(), tick: Callable[[int], None] | None = None,
               encode: bool = False, rules_id: str | None = None, seeds=None):
    """Play games start..stop-1 of a rule set with the reference engine: their ids, logs and
    records. With `encode`, each log is kept as its `events/` rows (codec.encode) as soon as it
    is played: a shard of long games then holds a few bytes a battle instead of Python tuples
    for every event."""
    ids, logs, records = [], [], []
    for index in range(start, stop):
        gid = ordinal * GAME_ID_STRIDE + index
        gseed = seeds[index - start] if seeds is not None else game_seed(seed, index)
        try:
            events, summary, deal = play_game(rules, gseed, deals[index - start] if deals else None,
                                              policies=policies)
        except PluginError as err:  # a plugin's policy or engine: named with the game
            raise err.at_game(gid) from err.__cause__
        ids.append(gid)
        logs.append(encode_log(events) if encode else events)
        records.append(game_record(gid, index, gseed, rules, policies, deal, summary, events, rules_id))
        if tick is not None and (index - start) % 100 == 99:
            tick(100)
    if tick is not None and (stop - start) % 100:
        tick((stop - start) % 100)
    return ids, logs, records
