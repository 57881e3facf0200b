"""The tables of a range of games, from the engine that applies: the one place that chooses
between the compiled engine and the reference."""

from __future__ import annotations

import os
from typing import Callable

import pyarrow as pa

from ..engines.compiled.rng import HAVE_NUMBA
from ..engines.compiled.table import fits, play_arrays
from ..engines.families import family_of
from ..engines.game import play_game
from ..model.deal import Deal
from ..model.rng import game_seed
from ..model.rules import build_rules
from ..model.schema import GAME_ID_STRIDE, RuleSet
from .codec import encode as encode_log
from .compiled import build_tables
from .tables import game_record, games_table, rows_table


def compiled_plays(rules: RuleSet, deals=None, policies=()) -> bool:
    """The choice of engine: True when the compiled engine plays these games, giving exactly
    the reference's tables. Generation and validation both ask here. WAR_ENGINE=reference in
    the environment makes the reference play everything."""
    if deals is not None or policies or os.environ.get("WAR_ENGINE") == "reference":
        return False
    return family_of(rules).compiled and fits(rules)


def compiled_shard(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int):
    """(events table, games table, the engine's arrays: a GameArrays) of games start..stop-1 from
    the compiled engine; the arrays let validation check card balance without decoding the
    tables."""
    if not compiled_plays(rules):
        raise ValueError(f"the compiled engine does not play rule set {rules.variant} {rules.rules_id}")
    arrays = play_arrays(rules, seed, start, stop)
    return (*build_tables(rules, ordinal, start, stop, arrays), arrays)


def play_range_fast(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int) -> tuple[pa.Table, pa.Table]:
    """Games start..stop-1 of a rule set as (events table, games table) from the compiled engine:
    the same tables as events_table / games_table over play_range."""
    events, games, _ = compiled_shard(rules, ordinal, seed, start, stop)
    return events, games


def shard_tables(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int, deals=None, policies=(),
                 tick=None) -> tuple[pa.Table, pa.Table]:
    """(events table, games table) of games start..stop-1: from the compiled engine when it
    plays them, else from the reference. What generate.run_shard writes."""
    if compiled_plays(rules, deals, policies):
        tables = play_range_fast(rules, ordinal, seed, start, stop)
        if tick is not None and stop > start:
            tick(stop - start)
        return tables
    ids, rows, records = play_range(rules, ordinal, seed, start, stop, deals, policies, tick, encode=True)
    return rows_table(ids, rows), games_table(records)


def warm() -> None:
    """Load (or compile) the kernel's machine code now, by playing one tiny game."""
    if HAVE_NUMBA:
        play_range_fast(build_rules("classic", {"ranks": "5", "suits": "2"}), 0, 0, 0, 1)


def play_range(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int,
               deals: list[Deal] | None = None, policies=(), tick: Callable[[int], None] | None = None,
               encode: bool = False):
    """Play games start..stop-1 of a rule set: their ids, logs and records. With `encode`, each
    log is kept as its `events/` rows (logcodec.encode) as soon as it is played: a shard of long
    games then holds a few bytes a battle instead of Python tuples for every event."""
    ids, logs, records = [], [], []
    for index in range(start, stop):
        gid = ordinal * GAME_ID_STRIDE + index
        gseed = game_seed(seed, index)
        events, summary, deal = play_game(rules, gseed, deals[index - start] if deals else None,
                                          policies=policies)
        ids.append(gid)
        logs.append(encode_log(events) if encode else events)
        records.append(game_record(gid, index, gseed, rules, policies, deal, summary, len(events)))
        if tick is not None and (index - start) % 100 == 99:
            tick(100)
    if tick is not None and (stop - start) % 100:
        tick((stop - start) % 100)
    return ids, logs, records
