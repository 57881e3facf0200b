"""A shard's games a batch at a time, from the compiled engine or the reference engine recording
into the compiled engine's arrays, and how many games a batch holds.

A shard's games are played and encoded a batch at a time, so that a batch's events (28 bytes an
event, and its cards) are still in the processor's cache when the encoder (and validation's
card balance) read them: a whole shard's went out to memory and back (docs/decisions.md, "A
shard is played a batch at a time"). A shard's tables do not depend on the batch size.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Callable, ContextManager

from ..engines.chance import prefetch
from ..engines.choice import ENGINES, compiled_engine, fast_path
from ..engines.compiled.state import Workspace
from ..engines.families import family_of
from ..engines.game import play_seeded
from ..errors import PluginError
from ..model.all_deals import deal_kind
from ..model.deal import deck_of
from ..model.rng import game_seed
from ..model.schema import GAME_ID_STRIDE, RuleSet
from .array_recorder import ArrayRecorder, Unrepresentable
from .compiled import ShardBuilder
from .invariants import cards_balance

# The compiled engines' buffers, kept from shard to shard in this process (see state.Workspace).
WORKSPACE = Workspace()

BATCH_EVENTS = 1 << 17  # events a batch: some 4 MB, which fits a core's share of the cache
PREFETCH_GAMES = 1024  # games whose generators' first outputs the reference engines' shards make at once
OPEN_DUEL_BATCH = 1 << 14  # games a batch of the open-play engine, which logs no events: 2 MB of rows


def batch_games(rules: RuleSet, workspace: Workspace | None = None) -> int:
    """Games a batch, for about BATCH_EVENTS events: by the events a game of these rules has
    logged in `workspace` (this process's WORKSPACE by default) so far, else by the engine's
    estimate of a game's, a formula of the deck and the seats, which cannot see that first to
    three wars ends a game 5x sooner, or table_order plays it 3x longer."""
    per_game = (workspace or WORKSPACE).events_a_game(rules) or ENGINES[family_of(rules).name].events_a_game(rules)
    return max(1, BATCH_EVENTS // max(per_game, 1))


def compiled_shard(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int, policies=(),
                   deals=None, check_balance: bool = False, batch: int | None = None, rules_id: str | None = None,
                   events: bool = True, seeds=None, engine=None):
    """(events table, games table, whether the cards balance) of games start..stop-1 from the
    compiled engine, from `deals` (a Deal a game) when given, played and encoded a batch of
    `batch` games at a time (by default batch_games, asked again before each batch: after the
    first, it knows these rules' games). With `check_balance`, every batch's
    events are checked with invariants.cards_balance as they are played (validation's check,
    without decoding the tables); else the third item is None. `rules_id`: the id the dataset
    gives the rule set (log.tables.game_record). Without `events`, no events table is built: the
    first item is None. `seeds`: each game's own seed, where the games keep those they had in
    another dataset. `engine`: the compiled engine that engines.choice chose for these games,
    when the caller has asked it already (once a shard: the choice reads every option)."""
    engine = engine or compiled_engine(rules, policies)
    if engine is None:
        raise ValueError(f"the compiled engine does not play rule set {rules.variant} {rules.rules_id}")
    shard = ShardBuilder(rules, ordinal, start, stop, policies, deal_kind(deals), rules_id, events)
    fast = None if check_balance else fast_path(rules, deals, policies, seeds, events, engine)
    if fast is not None:  # the family's fast path (Family.fast): games rows alone
        for first in range(start, stop, OPEN_DUEL_BATCH):
            last = min(first + OPEN_DUEL_BATCH, stop)
            shard.add(fast.play_arrays(rules, seed, first, last, enumerated=deals is not None)[0])
        return (*shard.tables(), None)
    balanced = True if check_balance else None
    deck = deck_of(rules).size if check_balance else 0
    first = start
    while True:
        last = min(first + (batch or batch_games(rules)), stop)
        dealt = deals[first - start:last - start] if deals is not None else None
        logged = WORKSPACE.events_a_game(rules)  # the log's first size: the engine's estimate until known
        room = (last - first) * logged * 5 // 4 + 1024 if logged else None
        arrays = engine.play_arrays(rules, seed, first, last, policies, capacity=room, deals=dealt,
                                    workspace=WORKSPACE,
                                    seeds=seeds[first - start:last - start] if seeds is not None else None)
        WORKSPACE.count_events(rules, last - first, arrays[0].shape[0])
        shard.add(arrays)
        if check_balance and balanced:
            balanced = cards_balance(arrays, deck)
        first = last
        if first >= stop:
            break
    return (*shard.tables(), balanced)


class Lost:
    """What reference_shard gives when the arrays cannot hold its games: how many games it told
    `tick` of already, so that the Event path that plays the shard again tells only the rest."""

    def __init__(self, ticked: int, why: str) -> None:
        self.ticked, self.why = ticked, why

    def rest(self, tick):
        """`tick` without the games told already."""
        if tick is None:
            return None
        left = [self.ticked]

        def told(games: int) -> None:
            skip = min(left[0], games)
            left[0] -= skip
            if games > skip:
                tick(games - skip)
        return told


def reference_shard(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int, policies=(), deals=None,
                    check_balance: bool = False, rules_id: str | None = None, events: bool = True, seeds=None,
                    tick=None, compiled_in: Callable[[], ContextManager] = nullcontext):
    """compiled_shard's (events table, games table, whether the cards balance) from the family's
    reference engine, game by game, its events recorded straight into the compiled engine's
    arrays (log.array_recorder) and encoded a batch at a time by the same encoder: the tables
    log.shard.play_range's games give, byte for byte. Lost when an event or a game's summary
    does not fit the arrays (the caller then takes the Event path, which spells anything).
    `tick(games)` as play_range calls it. The engine plays in Python, which a Ctrl-C stops at
    once; the encoder and the balance check run in `compiled_in()` (generate's and validate's
    defer Ctrl-C, which numba's machine code cannot take)."""
    shard = ShardBuilder(rules, ordinal, start, stop, policies, deal_kind(deals), rules_id, events)
    deck = deck_of(rules).size
    # the family's kinds, the game's seats and the deck's cards: any other event takes the Event path
    rec = ArrayRecorder(rules.players, family_of(rules).kind_names, deck)
    balanced = True if check_balance else None
    base = ordinal * GAME_ID_STRIDE
    ticked = 0
    try:
        for index in range(start, stop):
            if (index - start) % PREFETCH_GAMES == 0:  # the next games' draws made at once (chance.prefetch)
                last, first = min(index + PREFETCH_GAMES, stop), index
                block = ([seeds[i - start] for i in range(index, last)] if seeds is not None
                         else [game_seed(seed, i) for i in range(index, last)])
                prefetch(block)
            gseed = block[index - first]
            rec.begin()
            try:
                summary = play_seeded(rules, gseed, rec, deals[index - start] if deals else None, policies)[0]
            except PluginError as err:  # a plugin's policy or engine: named with the game
                if rec.lost is not None:  # the recorder's error, wrapped as the engine's
                    raise Unrepresentable(rec.lost) from None
                raise err.at_game(base + index) from err.__cause__
            if rec.lost is not None:  # an engine that caught the recorder's error and went on
                raise Unrepresentable(rec.lost)
            rec.end_game(summary, gseed)
            if rec.events >= BATCH_EVENTS or index == stop - 1:
                arrays = rec.arrays()
                with compiled_in():
                    shard.add(arrays)
                    if check_balance and balanced:
                        balanced = cards_balance(arrays, deck)
                rec.clear()
            if tick is not None and (index - start) % 100 == 99:
                tick(100)
                ticked += 100
        if stop <= start:  # no game: the tables of none
            shard.add(rec.arrays())
    except Unrepresentable as err:
        return Lost(ticked, str(err))
    finally:
        prefetch(())  # the outputs no game read (a game that failed), dropped
    if tick is not None and (stop - start) % 100:
        tick((stop - start) % 100)
    with compiled_in():
        return (*shard.tables(), balanced)
