"""The `events/` and `games/` tables of the compiled engine's games (engines.compiled.layout's
arrays), equal value for value to log.tables' over the reference's logs, built with numpy and
the compiled encoder (log.compiled_codec) instead of a Python loop per event."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..engines.compiled.layout import (
    OUTCOME_CYCLE, SUMMARY_BATTLES, SUMMARY_CARDS_LAID, SUMMARY_CARDS_SET_ASIDE, SUMMARY_CYCLE_KEY,
    SUMMARY_CYCLE_LENGTH, SUMMARY_EVENTS, SUMMARY_FIRST_BATTLE_WAR, SUMMARY_MAX_WAR_DEPTH, SUMMARY_OUTCOME,
    SUMMARY_WAR_BATTLES, SUMMARY_WARS, SUMMARY_WINNER, GameArrays,
)
from ..model.schema import GAME_ID_STRIDE, OUTCOMES, RuleSet
from .row_encoder import RowEncoder, encode_rows, shape_texts
from .tables import EVENT_SCHEMA, GAME_SCHEMA


def first_indices(codes: np.ndarray, count: int) -> np.ndarray:
    """For each code 0..count-1, the index of its first appearance (-1 when absent). numpy, not
    compiled: a few thousand codes a shard, and one function less to compile on the first run."""
    first = np.full(count, -1, np.int64)
    values, where = np.unique(codes, return_index=True)
    present = values >= 0
    first[values[present]] = where[present]
    return first


def dictionary_from_codes(codes: np.ndarray, names) -> pa.DictionaryArray:
    """What `pa.array([names[c] or None]).dictionary_encode()` gives: the dictionary in order of
    first appearance, int32 indices, null where the code is -1."""
    first = first_indices(codes, len(names))
    present = [c for c in np.argsort(first, kind="stable") if first[c] >= 0]
    remap = np.full(len(names) + 1, -1, np.int32)  # the last slot maps code -1
    remap[present] = np.arange(len(present), dtype=np.int32)
    indices = remap[codes]
    nulls = codes < 0
    idx = pa.array(indices, type=pa.int32(), mask=nulls if nulls.any() else None)
    return pa.DictionaryArray.from_arrays(idx, pa.array([names[c] for c in present], type=pa.string()))


def constant_dictionary(value: str, count: int) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(count, np.int32)),
                                          pa.array([value] if count else [], type=pa.string()))


def list_array(ends: np.ndarray, values: np.ndarray, value_type) -> pa.ListArray:
    """A list column from its values and each list's end."""
    offsets = np.empty(len(ends) + 1, np.int32)
    offsets[0] = 0
    if len(ends) and ends[-1] > np.iinfo(np.int32).max:
        raise OverflowError("more list values than int32 offsets hold")
    offsets[1:] = ends
    return pa.ListArray.from_arrays(pa.array(offsets, type=pa.int32()), pa.array(values, type=value_type))


def nullable(values: np.ndarray, nulls: np.ndarray, type_) -> pa.Array:
    return pa.array(values, type=type_, mask=nulls if nulls.any() else None)


def rows_to_table(columns, keys, key_start) -> pa.Table:
    """The `events/` table of the encoder's columns and distinct shapes (compiled_codec)."""
    shapes = pa.DictionaryArray.from_arrays(pa.array(columns.shape, pa.int32()),
                                            pa.array(shape_texts(keys, key_start), pa.string()))
    return pa.Table.from_arrays([
        pa.array(columns.game_id, pa.int64()), pa.array(columns.seq, pa.int32()),
        pa.array(columns.battle, pa.int32()), shapes,
        pa.ListArray.from_arrays(pa.array(columns.card_offsets, pa.int32()), pa.array(columns.cards, pa.int16())),
    ], schema=EVENT_SCHEMA)


def check_offsets(cards: int) -> None:
    """The events table's list offsets are int32."""
    if cards > np.iinfo(np.int32).max:
        raise OverflowError("more cards than int32 offsets hold")


def events_from_arrays(ids: np.ndarray, events, card_values, seat_values, counts) -> pa.Table:
    """The `events/` table of the engine's games (their ids, event rows, card and seat values,
    events a game), equal value for value to log.tables.events_table of their logs."""
    check_offsets(card_values.shape[0])
    return rows_to_table(*encode_rows(np.ascontiguousarray(ids, np.int64), events, card_values, seat_values,
                                      np.ascontiguousarray(counts, np.int64)))


class ShardBuilder:
    """The events and games tables of a range of games, from the engine's arrays of batch after
    batch of them (`add`, in order): the tables build_tables gives over the arrays of them all,
    with each batch's events encoded while they are still in the processor's cache. `deal`: how
    the games were dealt (model.deal.Deal.kind); without `events`, the events table is None and
    nothing is encoded (a dataset that stores the games table alone)."""

    def __init__(self, rules: RuleSet, ordinal: int, start: int, stop: int, policies=(), deal: str = "shuffle",
                 rules_id: str | None = None, events: bool = True):
        self.rules, self.ordinal, self.start, self.rules_id = rules, ordinal, start, rules_id
        self.policies, self.deal = list(policies), deal
        self.rows = RowEncoder(max(stop - start, 0)) if events else None
        self.seen = 0
        self.batches: list[GameArrays] = []  # each batch's per-game arrays (its events dropped)

    def add(self, arrays: GameArrays) -> None:
        """The next games' arrays (play_arrays'), encoded at once: their events need not outlive
        the call."""
        arrays = GameArrays(*arrays)
        games = arrays.summaries.shape[0]
        if self.rows is not None:
            check_offsets(self.rows.cards + arrays.card_values.shape[0])  # the most the rows can hold after it
            first = self.start + self.seen
            ids = np.int64(self.ordinal) * GAME_ID_STRIDE + np.arange(first, first + games, dtype=np.int64)
            self.rows.add(ids, arrays.events, arrays.card_values, arrays.seat_values,
                          np.ascontiguousarray(arrays.summaries[:, SUMMARY_EVENTS]))
        self.seen += games
        self.batches.append(arrays._replace(events=None, card_values=None, seat_values=None))

    def tables(self) -> tuple[pa.Table | None, pa.Table]:
        events = rows_to_table(*self.rows.result()) if self.rows is not None else None
        summaries, war_wins, final_cards, seeds = (np.concatenate([b[k] for b in self.batches]) for k in range(3, 7))
        return events, games_from_arrays(self.rules, self.ordinal, self.start, summaries, war_wins, final_cards,
                                         seeds, self.policies, self.deal, self.rules_id)


def build_tables(rules: RuleSet, ordinal: int, start: int, stop: int, arrays: GameArrays,
                 policies=(), deal: str = "shuffle") -> tuple[pa.Table, pa.Table]:
    """The events and games tables of games start..stop-1 from the engine's arrays, played with
    the seats' `policies` (canonical specs, as a shard's games record them), dealt as `deal`
    says (model.deal.Deal.kind)."""
    shard = ShardBuilder(rules, ordinal, start, stop, policies, deal)
    shard.add(arrays)
    return shard.tables()


def games_from_arrays(rules: RuleSet, ordinal: int, start: int, summaries, war_wins, final_cards, seeds,
                      policies=(), deal: str = "shuffle", rules_id: str | None = None) -> pa.Table:
    """The `games/` table of games start.. from the engine's per-game arrays (layout.GameArrays);
    `rules_id` as log.tables.game_record takes it."""
    games = summaries.shape[0]
    players = rules.players
    index = np.arange(start, start + games, dtype=np.int64)
    ids = np.int64(ordinal) * GAME_ID_STRIDE + index
    counts = summaries[:, SUMMARY_EVENTS]
    policies = list(policies)  # as given, as log.tables.game_record records them
    policy_values = pa.array(policies * games, type=pa.string())
    policy_offsets = pa.array(np.arange(games + 1, dtype=np.int32) * len(policies), type=pa.int32())
    seat_ends = np.arange(1, games + 1, dtype=np.int64) * players
    winner = summaries[:, SUMMARY_WINNER]
    cycle_length = summaries[:, SUMMARY_CYCLE_LENGTH]
    columns = {
        "game_id": pa.array(ids, pa.int64()),
        "game_index": pa.array(index, pa.int64()),
        "game_seed": pa.array(seeds, pa.uint64()),
        "variant": constant_dictionary(rules.variant, games),
        "rules_id": constant_dictionary(rules_id or rules.rules_id, games),
        "players": pa.array(np.full(games, players, np.int8), pa.int8()),
        "policies": pa.ListArray.from_arrays(policy_offsets, policy_values),
        "deal": constant_dictionary(deal, games),
        "outcome": dictionary_from_codes(summaries[:, SUMMARY_OUTCOME].astype(np.int8), OUTCOMES),
        "winner": nullable(winner.astype(np.int8), winner < 0, pa.int8()),
        "battles": pa.array(summaries[:, SUMMARY_BATTLES].astype(np.int32), pa.int32()),
        "cards_laid": pa.array(summaries[:, SUMMARY_CARDS_LAID].astype(np.int32), pa.int32()),
        "wars": pa.array(summaries[:, SUMMARY_WARS].astype(np.int32), pa.int32()),
        "war_battles": pa.array(summaries[:, SUMMARY_WAR_BATTLES].astype(np.int32), pa.int32()),
        "max_war_depth": pa.array(summaries[:, SUMMARY_MAX_WAR_DEPTH].astype(np.int16), pa.int16()),
        "first_battle_war": pa.array(summaries[:, SUMMARY_FIRST_BATTLE_WAR].astype(np.bool_), pa.bool_()),
        "war_wins": list_array(seat_ends, war_wins.reshape(-1), pa.int32()),
        "final_cards": list_array(seat_ends, final_cards.reshape(-1).astype(np.int16), pa.int16()),
        "cards_set_aside": pa.array(summaries[:, SUMMARY_CARDS_SET_ASIDE].astype(np.int16), pa.int16()),
        "cycle_length": nullable(cycle_length.astype(np.int32), cycle_length < 0, pa.int32()),
        "cycle_key": nullable(summaries[:, SUMMARY_CYCLE_KEY], summaries[:, SUMMARY_OUTCOME] != OUTCOME_CYCLE,
                              pa.int64()),
        "events": pa.array(counts.astype(np.int32), pa.int32()),
    }
    return pa.Table.from_arrays([columns[name] for name in GAME_SCHEMA.names], schema=GAME_SCHEMA)
