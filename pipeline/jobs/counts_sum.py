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
from ..log.counts import rows_table, table_rows

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
    spent = np.ones(leaves, np.bool_)
    at, end = np.zeros(leaves, np.int64), np.zeros(leaves, np.int64)
    last = np.zeros((leaves, 3), np.int64)
    state = np.array([0, -1], np.int64)
    out = [np.empty(group_rows, np.int64) for _ in range(5)]
    files = [pq.ParquetFile(p, buffer_size=READ_BUFFER) for p in paths]
    try:
        batches = [f.iter_batches(batch_size=chunk) for f in files]

        def fill(s: int) -> None:
            for batch in batches[s]:
                if batch.num_rows:
                    keys, g, f = table_rows(pa.Table.from_batches([batch]))
                    base, n = s * chunk, batch.num_rows
                    for column, words in zip((key, middle, high), tallies._sort_words(keys)):
                        column[base:base + n] = words
                    games[base:base + n], first[base:base + n] = g, f
                    at[s], end[s], spent[s] = base, base + n, False
                    return
            spent[s] = True

        for s in range(len(paths)):
            fill(s)
        tree = np.zeros(leaves, np.int64)
        tallies.merge_start(tree, high, middle, key, spent, at)
        rows = 0
        while True:
            code = tallies.merge_step(tree, high, middle, key, games, first, spent, at, end, last, state, *out)
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


def _table(high: np.ndarray, middle: np.ndarray, key: np.ndarray, games: np.ndarray, first: np.ndarray) -> pa.Table:
    """Rows of the sum as a counts table (tally._sort_words's words unpacked into KEY's columns)."""
    keys = np.stack([high >> 48, ((high >> 42) & 63) - 1, ((high >> 40) & 3) - 1, high & ((1 << 40) - 1),
                     middle >> 32, (middle & 0xFFFFFFFF) - 1, key], axis=1)
    return rows_table(keys, games.copy(), first.copy())


def _room_for(files: int) -> None:
    """Raise this process's limit of open files (to its hard limit) when the shards' files, held
    open together, need it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = files + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        top = wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)
        resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))
