"""The counts of an enumeration (`--log counts`): a range of deals as a tally of its games by kind
(engines.compiled.tally), and the tally as the Arrow table of `counts/` files and back.

A rule set its family's fast path plays (Family.fast: the table family's, two seats in open
play) is counted by the fast path where it counts (`count_deals`: the open-play engine plays one
deal of each class, a deal and the deal with the seats' piles swapped, where the pickup treats
the seats alike and the seats hold as many cards); any other rule set that plays every deal is
counted from the games rows its engine gives.
Either way the tally is that of every deal of the range, one by one (a test holds them equal).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..engines.choice import fast_path
from ..engines.compiled import tally as tallies
from ..engines.compiled.deals import first_of_class
from ..engines.compiled.tally import Tally
from ..model.all_deals import AllDeals
from ..model.schema import OUTCOMES, CountRow, CountShard, RuleSet
from .tables import arrow_schema

COUNT_SCHEMA = arrow_schema(CountRow)
COUNT_SHARD_SCHEMA = arrow_schema(CountShard)


def count_deals(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int, policies=()) -> Tally:
    """The tally of deals start..stop-1 of the rule set's enumeration."""
    fast = _counting(rules, policies)
    if fast is not None:
        return fast.count_deals(rules, start, stop)
    tally = tallies.new_tally()
    for first, last, games in _played(rules, ordinal, seed, start, stop, policies):
        tally = tallies.add_games(tally, game_columns(rules, games, first), np.arange(first, last, dtype=np.int64))
    return tally


def count_rows(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int, policies=()):
    """count_deals's tally as its rows in the order of their keys (tally.rows: keys, games,
    first deals): from a fast path that makes them sorted where it can (one sort a shard, not a
    table sorted after)."""
    fast = _counting(rules, policies)
    if fast is not None and hasattr(fast, "count_rows"):
        return fast.count_rows(rules, start, stop)
    return tallies.rows(count_deals(rules, ordinal, seed, start, stop, policies))


def counts_classes(rules: RuleSet, policies=()) -> bool:
    """Whether count_deals counts a range of deals by classes: the classes whose first deal lies
    in the range, each with its swapped deal (which may lie outside it), rather than each deal of
    the range once."""
    fast = _counting(rules, policies)
    return fast is not None and fast.counts_classes(rules)


def _counting(rules: RuleSet, policies=()):
    """The family's fast path when it plays these games and counts an enumeration itself, else
    None."""
    fast = fast_path(rules, None, policies, events=False)
    return fast if fast is not None and hasattr(fast, "count_deals") else None


def _played(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int, policies):
    """The games tables of deals start..stop-1, (first, last, games) a block of 65,536 deals,
    played by the engine the generic path chooses."""
    from .shard import shard_tables

    step = 1 << 16
    for first in range(start, stop, step):
        last = min(first + step, stop)
        _, games = shard_tables(rules, ordinal, seed, first, last, AllDeals(rules, first, last), policies,
                                events=False)
        yield first, last, games


def keep_deals(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int, kinds: Tally, most: int,
               policies=()) -> np.ndarray:
    """The numbers of the deals start..stop-1 whose games are of the kinds `kinds` holds, in
    order, the `most` first."""
    fast = _counting(rules, policies)
    if fast is not None:
        return fast.keep_deals(rules, start, stop, kinds, most)
    found = []
    for first, _, games in _played(rules, ordinal, seed, start, stop, policies):
        found.append(np.flatnonzero(tallies.members(kinds, game_columns(rules, games, first))) + first)
        if sum(map(len, found)) >= most:
            break
    return np.concatenate(found)[:most] if found else np.zeros(0, np.int64)


def game_columns(rules: RuleSet, games: pa.Table, first: int, deals=None) -> np.ndarray:
    """A games table's rows (deals first.. in order, or the deal numbers `deals`) as tally keys
    (tally.KEY's columns)."""
    n = games.num_rows
    outcome = np.array([OUTCOMES.index(o) for o in games.column("outcome").to_pylist()], np.int64)
    winner = games.column("winner").to_numpy(zero_copy_only=False)
    winner = np.where(np.isnan(winner), -1, winner).astype(np.int64) if winner.dtype.kind == "f" else \
        winner.astype(np.int64)
    if rules.players == 2:
        numbers = np.arange(first, first + n, dtype=np.int64) if deals is None else np.asarray(deals[:n], np.int64)
        foc = first_of_class(rules, numbers).astype(np.int64)
    else:
        foc = np.full(n, -1, np.int64)
    length = games.column("cycle_length").fill_null(-1).to_numpy().astype(np.int64)
    key = games.column("cycle_key").fill_null(0).to_numpy().astype(np.int64)
    battles = games.column("battles").to_numpy().astype(np.int64)
    laid = games.column("cards_laid").to_numpy().astype(np.int64)
    return np.stack([outcome, winner, foc, battles, laid, length, key], axis=1)


def tally_table(tally: Tally) -> pa.Table:
    """The tally as a `counts/` table, its rows in the order of their keys."""
    return rows_table(*tallies.rows(tally))


def rows_table(keys: np.ndarray, games: np.ndarray, first: np.ndarray) -> pa.Table:
    """A tally's rows (tally.rows', in the order of their keys) as a `counts/` table."""
    outcome, winner, foc, battles, laid, length, key = (keys[:, i] for i in range(tallies.WIDTH))
    cycle = outcome == OUTCOMES.index("cycle")
    arrays = {
        "outcome": pa.DictionaryArray.from_arrays(pa.array(outcome, pa.int32()), pa.array(OUTCOMES)),
        "winner": pa.array(winner, pa.int8(), mask=winner < 0),
        "first_of_class": pa.array(foc == 1, pa.bool_(), mask=foc < 0),
        "battles": pa.array(battles, pa.int32()),
        "cards_laid": pa.array(laid, pa.int32()),
        "cycle_length": pa.array(length, pa.int32(), mask=length < 0),
        "cycle_key": pa.array(key, pa.int64(), mask=~cycle),
        "games": pa.array(games, pa.int64()),
        "first_deal": pa.array(first, pa.int64()),
    }
    return pa.Table.from_arrays([arrays[f.name] for f in COUNT_SCHEMA], schema=COUNT_SCHEMA)


def table_tally(table: pa.Table) -> Tally:
    """A `counts/` table as a tally (its rows may come in any order), read column by column (a
    table of millions of rows, an enumeration's journal, stays arrays)."""
    if not table.num_rows:
        return tallies.new_tally()
    return tallies.from_rows(*table_rows(table))


def table_digest(table: pa.Table) -> int:
    """The digest (tally.digest) of a `counts/` table's tally: folded straight from its columns
    when its rows are in the order of their keys, each kind once (as tally_table writes them:
    no table to build, no sort), else from its tally."""
    if not table.num_rows:
        return 0
    keys, games, first = table_rows(table)
    high, middle, key = tallies._sort_words(keys)[::-1]
    after = (high[1:] > high[:-1]) | ((high[1:] == high[:-1]) & (
        (middle[1:] > middle[:-1]) | ((middle[1:] == middle[:-1]) & (key[1:] > key[:-1]))))
    if not after.all():
        return tallies.digest(tallies.from_rows(keys, games, first))
    return rows_digest(keys, games, first)


def rows_digest(keys: np.ndarray, games: np.ndarray, first: np.ndarray) -> int:
    """tally.digest of a tally whose rows (tally.rows', in the order of their keys) these are."""
    if not len(games):
        return 0
    value = int(tallies._digest(keys, games, first))
    return value - (1 << 64) if value >= 1 << 63 else value


def table_rows(table: pa.Table) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A `counts/` table's rows as a tally's (keys in KEY's columns, nulls as -1 and a null key as
    0; games; first deals), in the table's order."""
    keys = np.empty((tallies.WIDTH, table.num_rows), np.int64)  # column by column: a row's keys [rows, 7] strided
    keys[0] = _outcomes(table.column("outcome"))
    for row, (name, null) in enumerate((("winner", -1), ("first_of_class", -1), ("battles", 0), ("cards_laid", 0),
                                        ("cycle_length", -1), ("cycle_key", 0)), 1):
        column = table.column(name)
        keys[row] = _ints(column.cast(pa.int8()) if name == "first_of_class" else column, null)
    return keys.T, _ints(table.column("games"), 0), _ints(table.column("first_deal"), 0)


def _ints(column, null: int) -> np.ndarray:
    return (column.fill_null(null) if column.null_count else column).to_numpy().astype(np.int64, copy=False)


def _outcomes(column) -> np.ndarray:
    """An outcome column (dictionary-encoded or text) as indexes into OUTCOMES, chunk by chunk
    (a chunked dictionary column combined first reads its indices some hundred times slower)."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    parts = [np.zeros(0, np.int64)]
    for chunk in chunks:
        if pa.types.is_dictionary(chunk.type):
            lookup = np.array([OUTCOMES.index(o) for o in chunk.dictionary.to_pylist()] or [0], np.int64)
            parts.append(lookup[chunk.indices.to_numpy(zero_copy_only=False).astype(np.int64)])
        else:
            parts.append(np.array([OUTCOMES.index(o) for o in chunk.to_pylist()], np.int64))
    return np.concatenate(parts)


def shards_table(shards: list[tuple[int, int, int]]) -> pa.Table:
    """The shards a counts file sums: (first deal, deals, digest) each, in deal order."""
    shards = sorted(shards)
    return pa.Table.from_arrays([pa.array([s[i] for s in shards], pa.int64()) for i in range(3)],
                                schema=COUNT_SHARD_SCHEMA)
