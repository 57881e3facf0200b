"""The sum of shard tallies too many to hold in memory together (one suit of 13 ranks dealt 6 | 7:
372 shards, about a billion rows), as one streaming merge of the shards' files.

Every shard's file holds its rows in the order of their keys, each kind once (tally.rows', as a
worker writes it), so the sum is a k-way merge: each file read once, a chunk at a time, its rows
played through a loser tree (tally.merge_step), rows of one kind added as they meet, and the sum
handed out in the counts file's order a row group at a time. Memory is a chunk a shard and one
row group of the sum; no row is written twice. (It replaced DuckDB's GROUP BY, cut into slices
of battles to fit memory: a histogram pass, a partitioned copy of every row and a grouping of
each slice, 10 minutes of 1x13's wall.) A shard whose rows are out of order is refused, naming
its file, rather than summed wrong.
"""

from __future__ import annotations

import resource

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..engines.compiled import tally as tallies
from ..errors import WarError
from ..log.counts import rows_table
from ..model.schema import OUTCOMES

CHUNK_ROWS = 1 << 14   # rows of a shard's file held at a time (a chunk: its five words, 640 KB)
READ_BUFFER = 1 << 16  # bytes read at a time from a shard's file, a column's (not its whole column chunk)


class UnsortedTally(WarError):
    """A shard's counts file whose rows are not in the order of their keys, each kind once."""


def sum_tallies(paths: list[str], write, group_rows: int, chunk: int = CHUNK_ROWS) -> int:
    """Sum the tally files `paths` (each in the order of its keys: games added, the least first
    deal kept) in one merge; hand `write` the sum's tables (counts files' schema), in its order,
    each of `group_rows` rows but the last. The number of rows."""
    _room_for(len(paths))
    leaves = 1
    while leaves < len(paths):
        leaves *= 2
    high, middle, key, games, first = (np.zeros(leaves * chunk, np.int64) for _ in range(5))
    heads = np.zeros((leaves, 3), np.int64)
    heads[:, 0] = tallies.SPENT
    at, end = np.zeros(leaves, np.int64), np.zeros(leaves, np.int64)
    state = np.array([0, -1], np.int64)
    out = [np.empty(group_rows, np.int64) for _ in range(5)]
    files = [pq.ParquetFile(p, buffer_size=READ_BUFFER, pre_buffer=False) for p in paths]  # not a whole file each
    try:
        batches = [f.iter_batches(batch_size=chunk) for f in files]

        def fill(s: int) -> bool:
            """Stream s's next rows into its buffer; False when it has none left."""
            for batch in batches[s]:
                if batch.num_rows:
                    base, n = s * chunk, batch.num_rows
                    _words_into(batch, high, middle, key, games, first, base)
                    at[s], end[s] = base, base + n
                    return True
            heads[s, 0] = tallies.SPENT
            return False

        for s in range(len(paths)):
            if fill(s):
                heads[s] = high[at[s]], middle[at[s]], key[at[s]]
        tree = np.zeros(leaves, np.int64)
        tallies.merge_start(tree, heads)
        rows = 0
        while True:
            code = tallies.merge_step(tree, heads, high, middle, key, games, first, at, end, state, *out)
            if code >= 0:
                fill(int(code))
                continue
            if code <= -3:
                raise UnsortedTally(f"the counts file {paths[-3 - int(code)]!r} does not hold its rows in the order "
                                    f"of their kinds, each once: it cannot be summed")
            held = int(state[0])
            if held:
                write(_table(*(column[:held] for column in out)))
                rows += held
                state[0] = 0
            if code == tallies.MERGE_DONE:
                return rows
    finally:
        for f in files:
            f.close()


def _words_into(batch: pa.RecordBatch, high, middle, key, games, first, base: int) -> None:
    """A batch of a counts file's rows into the merge's buffers at base.. (tally.words_into), its
    columns read as they are stored (nulls filled), not widened one by one."""
    import pyarrow.compute as pc

    columns = dict(zip(batch.schema.names, batch.columns))
    outcome = columns["outcome"]
    if pa.types.is_dictionary(outcome.type):
        lookup = np.array([OUTCOMES.index(o) for o in outcome.dictionary.to_pylist()] or [0], np.int64)
        outcome = outcome.indices
    else:
        lookup = np.arange(len(OUTCOMES), dtype=np.int64)
        outcome = pa.array([OUTCOMES.index(o) for o in outcome.to_pylist()], pa.int8())

    def values(name, null):
        column = columns[name]
        if name == "first_of_class":
            column = column.cast(pa.int8())
        return (pc.fill_null(column, null) if column.null_count else column).to_numpy()

    tallies.words_into(outcome.to_numpy(), lookup, values("winner", -1), values("first_of_class", -1),
                       values("battles", 0), values("cards_laid", 0), values("cycle_length", -1),
                       values("cycle_key", 0), values("games", 0), values("first_deal", 0), high, middle, key, games,
                       first, np.int64(base))


def _table(high: np.ndarray, middle: np.ndarray, key: np.ndarray, games: np.ndarray, first: np.ndarray) -> pa.Table:
    """Rows of the sum as a counts table (tally._sort_words's words unpacked into KEY's columns,
    each column contiguous)."""
    keys = np.empty((7, len(high)), np.int64)
    np.right_shift(high, 48, out=keys[0])
    keys[1] = ((high >> 42) & 63) - 1
    keys[2] = ((high >> 40) & 3) - 1
    np.bitwise_and(high, (1 << 40) - 1, out=keys[3])
    np.right_shift(middle, 32, out=keys[4])
    keys[5] = (middle & 0xFFFFFFFF) - 1
    keys[6] = key
    return rows_table(keys.T, games.copy(), first.copy())


def _room_for(files: int) -> None:
    """Raise this process's limit of open files (to its hard limit) when the shards' files, held
    open together, need it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = files + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        top = wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)
        resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))
