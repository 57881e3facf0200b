"""A tally of games, compiled: how many games of each kind a range of deals gives, and the first
deal of each, without a row a game (`--log counts`, jobs.counts).

A kind of game is its outcome, winner, battles, cards laid, cycle length and cycle key, and
whether its deal is the first of its class (two seats; -1 otherwise): every column an exact
query counts over. The tally is an open-addressing table of those keys, one row each, with the
count and the least deal number; it grows when half full (the engine returns to Python, which
grows it and plays on from the game it stopped at). Tallies add: the tally of a range of deals
is the sum of its parts', so shards, slices and machines combine by `merge`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .jit import njit
from .rng import HASH_START, _fold, _mix

KEY = ("outcome", "winner", "first_of_class", "battles", "cards_laid", "cycle_length", "cycle_key")
WIDTH = len(KEY)
WORDS = 4  # a key packed: outcome, winner, first of class and battles; cards laid; cycle length; cycle key
FIRST_SLOTS = 1 << 10
_K = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9),
      np.uint64(0xD6E8FEB86659FD93))


class Tally(NamedTuple):
    """keys [slots, WORDS] int64 (pack), games [slots] int64 (0: an empty slot), first [slots]
    int64: the least deal number of the row's games; fill[0]: the rows in use."""

    keys: np.ndarray
    games: np.ndarray
    first: np.ndarray
    fill: np.ndarray


def new_tally(slots: int = FIRST_SLOTS) -> Tally:
    return Tally(np.zeros((slots, WORDS), np.int64), np.zeros(slots, np.int64), np.zeros(slots, np.int64),
                 np.zeros(1, np.int64))


@njit(cache=True, inline="always", _nrt=False)
def pack(outcome, winner, first_of_class, battles):
    """A key's first word: outcome (0..3), winner (-1..62), first of class (-1, 0, 1), battles."""
    return outcome + 4 * (winner + 1) + 256 * (first_of_class + 1) + 1024 * battles


@njit(cache=True, inline="always", _nrt=False)
def slot_of(keys, games, w0, w1, w2, w3):
    """The slot of this key: its row, or the empty slot where it goes. The words are hashed by
    independent multiplications, which the processor does side by side."""
    h = (np.uint64(w0) * _K[0]) ^ (np.uint64(w1) * _K[1]) ^ (np.uint64(w2) * _K[2]) ^ (np.uint64(w3) * _K[3])
    mask = keys.shape[0] - 1
    slot = np.int64((h ^ (h >> np.uint64(29))) & np.uint64(mask))
    while games[slot] != 0:
        if keys[slot, 0] == w0 and keys[slot, 1] == w1 and keys[slot, 2] == w2 and keys[slot, 3] == w3:
            return slot
        slot = (slot + 1) & mask
    return slot


@njit(cache=True, inline="always", _nrt=False)
def put(keys, games, first, fill, slot, w0, w1, w2, w3, count, deal):
    """`count` games of the key at `slot` (slot_of's), the least of whose deals is `deal`; the
    caller has made sure of room for a new row."""
    if games[slot] == 0:
        keys[slot, 0] = w0
        keys[slot, 1] = w1
        keys[slot, 2] = w2
        keys[slot, 3] = w3
        games[slot] = count
        first[slot] = deal
        fill[0] += 1
    else:
        games[slot] += count
        if deal < first[slot]:
            first[slot] = deal


@njit(cache=True, _nrt=False)
def add(keys, games, first, fill, outcome, winner, first_of_class, battles, cards_laid, cycle_length, cycle_key,
        count, deal):
    """`count` games of this key, the least of whose deals is `deal`. Returns False, having added
    nothing, when the table is half full (grow it and add again)."""
    w0 = pack(outcome, winner, first_of_class, battles)
    slot = slot_of(keys, games, w0, cards_laid, cycle_length, cycle_key)
    if games[slot] == 0 and 2 * (fill[0] + 1) > keys.shape[0]:
        return False
    put(keys, games, first, fill, slot, w0, cards_laid, cycle_length, cycle_key, count, deal)
    return True


@njit(cache=True)
def _rehash(keys, games, first, new_keys, new_games, new_first, fill):
    for slot in range(keys.shape[0]):
        if games[slot]:
            k = keys[slot]
            at = slot_of(new_keys, new_games, k[0], k[1], k[2], k[3])
            put(new_keys, new_games, new_first, fill, at, k[0], k[1], k[2], k[3], games[slot], first[slot])


def grown(tally: Tally) -> Tally:
    """The same rows in a table twice as large."""
    bigger = new_tally(2 * tally.keys.shape[0])
    _rehash(tally.keys, tally.games, tally.first, bigger.keys, bigger.games, bigger.first, bigger.fill)
    return bigger


def rows(tally: Tally) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows in use, in the order of their keys (column by column, KEY's columns): (keys
    [rows, WIDTH], games, first)."""
    used = np.flatnonzero(tally.games)
    packed = tally.keys[used]
    w0 = packed[:, 0]
    keys = np.stack([w0 % 4, (w0 // 4) % 64 - 1, (w0 // 256) % 4 - 1, w0 // 1024, packed[:, 1], packed[:, 2],
                     packed[:, 3]], axis=1) if len(used) else np.zeros((0, WIDTH), np.int64)
    order = np.lexsort(_sort_words(keys)) if len(used) else np.zeros(0, np.int64)
    return keys[order], tally.games[used][order], tally.first[used][order]


def _sort_words(keys: np.ndarray) -> tuple:
    """KEY's columns packed into three words whose order (lexsort's: the last word first) is
    the columns' order, column by column: one sort of three words rather than of seven (a tally
    of millions of rows). Outcome, winner and first of class above battles (< 2^40); cards laid
    (< 2^31) above the cycle length (+1, < 2^32); the key."""
    high = (keys[:, 0] << 48) | ((keys[:, 1] + 1) << 42) | ((keys[:, 2] + 1) << 40) | keys[:, 3]
    middle = (keys[:, 4] << 32) | (keys[:, 5] + 1)
    return keys[:, 6], middle, high


def from_rows(keys: np.ndarray, games: np.ndarray, first: np.ndarray) -> Tally:
    """A tally holding these rows (rows' output, or a stored table's: KEY's columns)."""
    slots = FIRST_SLOTS
    while slots < 2 * (len(games) + 1):
        slots *= 2
    tally = new_tally(slots)
    keys = np.ascontiguousarray(keys, np.int64).reshape(-1, WIDTH)
    packed = np.stack([keys[:, 0] + 4 * (keys[:, 1] + 1) + 256 * (keys[:, 2] + 1) + 1024 * keys[:, 3], keys[:, 4],
                       keys[:, 5], keys[:, 6]], axis=1)
    _rehash(np.ascontiguousarray(packed), np.ascontiguousarray(games, np.int64),
            np.ascontiguousarray(first, np.int64), tally.keys, tally.games, tally.first, tally.fill)
    return tally


def merge(*tallies: Tally) -> Tally:
    """The sum of tallies: each key's games added, its least first deal kept."""
    parts = [rows(t) for t in tallies]
    keys = np.concatenate([p[0] for p in parts]) if parts else np.zeros((0, WIDTH), np.int64)
    games = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int64)
    first = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0, np.int64)
    return from_rows(keys, games, first)


@njit(cache=True)
def _digest(keys, games, first):
    h = HASH_START
    for i in range(games.shape[0]):
        for j in range(keys.shape[1]):
            h = _fold(h, keys[i, j])
        h = _fold(h, games[i])
        h = _fold(h, first[i])
    return _mix(h)


def digest(tally: Tally) -> int:
    """A 64-bit hash of the tally's rows in key order, as a signed number: two tallies of the
    same games have the same digest."""
    keys, games, first = rows(tally)
    value = int(_digest(keys, games, first)) if len(games) else 0
    return value - (1 << 64) if value >= 1 << 63 else value


@njit(cache=True)
def _add_each(keys, games, first, fill, columns, deals, start):
    """Add games start.. of `columns` (a row a game, in KEY's order) dealt `deals`; returns the
    first game not added (the table must grow first), or the number of games."""
    for g in range(start, columns.shape[0]):
        c = columns[g]
        if not add(keys, games, first, fill, c[0], c[1], c[2], c[3], c[4], c[5], c[6], 1, deals[g]):
            return g
    return columns.shape[0]


def add_games(tally: Tally, columns: np.ndarray, deals: np.ndarray) -> Tally:
    """The tally with these games added: `columns` [games, WIDTH] in KEY's order (-1 for a null
    winner, cycle length or first_of_class; 0 for the cycle key of a game that does not cycle),
    `deals` each game's deal number."""
    columns = np.ascontiguousarray(columns, np.int64)
    deals = np.ascontiguousarray(deals, np.int64)
    done = 0
    while done < len(deals):
        done = _add_each(tally.keys, tally.games, tally.first, tally.fill, columns, deals, np.int64(done))
        if done < len(deals):
            tally = grown(tally)
    return tally


@njit(cache=True)
def _members(keys, games, columns, out):
    for g in range(columns.shape[0]):
        c = columns[g]
        slot = slot_of(keys, games, pack(c[0], c[1], c[2], c[3]), c[4], c[5], c[6])
        out[g] = games[slot] > 0


def members(tally: Tally, columns: np.ndarray) -> np.ndarray:
    """Whether each game of `columns` (add_games's) is of a kind the tally holds."""
    columns = np.ascontiguousarray(columns, np.int64)
    out = np.zeros(len(columns), np.bool_)
    if len(columns):
        _members(tally.keys, tally.games, columns, out)
    return out


try:
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic
except ImportError:  # no numba: nothing to ask of the processor
    def _prefetch(array, at):
        pass
else:
    @intrinsic
    def _prefetch(typingctx, array, at):
        """Ask the processor for the cache line of a C-contiguous array's element `at` (its flat
        index), without waiting for it (LLVM's prefetch: read, kept close)."""
        def codegen(context, builder, signature, args):
            data = context.make_array(signature.args[0])(context, builder, args[0]).data
            byte = ir.IntType(8).as_pointer()
            fetch = cgutils.get_or_insert_function(builder.module, ir.FunctionType(
                ir.VoidType(), [byte, ir.IntType(32), ir.IntType(32), ir.IntType(32)]), "llvm.prefetch.p0")
            builder.call(fetch, [builder.bitcast(builder.gep(data, [args[1]]), byte), ir.Constant(ir.IntType(32), 0),
                                 ir.Constant(ir.IntType(32), 3), ir.Constant(ir.IntType(32), 1)])
            return context.get_dummy_value()
        return types.void(array, at), codegen


# Sorted tallies merged: the rows of many tallies, each already in the order of its keys (tally.rows',
# a shard's counts file), summed in one streaming pass with a loser tree over their sort words
# (_sort_words: high, middle, key), rather than grouped whole (a billion rows do not fit memory).
# Each stream's head row is copied into three dense arrays, and a spent stream's head is past
# every row (SPENT), so a comparison is three loads and no branch: a merge's comparisons go
# either way at random, and a mispredicted branch a level cost more than the loads.

MERGE_DONE = -1   # every stream is spent: the sum is whole
MERGE_FULL = -2   # the output holds `cap` rows and the next row is another kind: write them first
# a code >= 0 is a stream whose buffer is spent: fill it (or mark it spent) and call again;
# a code <= -3 is the stream -code - 3 whose rows are out of order (or repeat a kind)
SPENT = np.iinfo(np.int64).max  # a spent stream's head, high word (a kind's is below 2^50)


@njit(cache=True, inline="always", _nrt=False)
def _before(heads, a, b):
    """Whether stream a's head comes before stream b's (heads [streams, 3]: high, middle, key)."""
    ha, hb = heads[a, 0], heads[b, 0]
    ma, mb = heads[a, 1], heads[b, 1]
    return (ha < hb) | ((ha == hb) & ((ma < mb) | ((ma == mb) & (heads[a, 2] < heads[b, 2]))))


@njit(cache=True, _nrt=False)
def _replay(tree, heads, stream):
    """Stream `stream`'s new head played up the loser tree to its root (tree[0]: the winner)."""
    leaves = tree.shape[0]
    node = (stream + leaves) >> 1
    winner = stream
    wh, wm, wk = heads[stream, 0], heads[stream, 1], heads[stream, 2]  # the winner's head, carried up
    while node >= 1:
        other = tree[node]
        oh, om, ok = heads[other, 0], heads[other, 1], heads[other, 2]
        # all ones where the other head comes first: selects by masks, which the compiler keeps
        # (a select it made a branch, mispredicted half the time, cost ~12 ns a level)
        swap = -np.int64((oh < wh) | ((oh == wh) & ((om < wm) | ((om == wm) & (ok < wk)))))
        keep = ~swap
        tree[node] = (winner & swap) | (other & keep)
        winner = (other & swap) | (winner & keep)
        wh = (oh & swap) | (wh & keep)
        wm = (om & swap) | (wm & keep)
        wk = (ok & swap) | (wk & keep)
        node >>= 1
    tree[0] = winner


@njit(cache=True)
def merge_start(tree, heads):
    """The loser tree of the streams' heads (`tree` as many slots as leaves, a power of two at
    least the streams; the leaves past them SPENT)."""
    leaves = tree.shape[0]
    won = np.empty(2 * leaves, np.int64)
    for s in range(leaves):
        won[leaves + s] = s
    for node in range(leaves - 1, 0, -1):
        a, b = won[2 * node], won[2 * node + 1]
        if _before(heads, b, a):
            won[node], tree[node] = b, a
        else:
            won[node], tree[node] = a, b
    tree[0] = won[1]


@njit(cache=True, inline="always", _nrt=False)
def _head(heads, s, high, middle, key, i):
    """Stream s's head set to row i; whether it comes after the head it replaces."""
    h, m, k = high[i], middle[i], key[i]
    after = (h > heads[s, 0]) | ((h == heads[s, 0]) & ((m > heads[s, 1]) | ((m == heads[s, 1]) & (k > heads[s, 2]))))
    heads[s, 0], heads[s, 1], heads[s, 2] = h, m, k
    return after


@njit(cache=True, _nrt=False)
def merge_step(tree, heads, high, middle, key, games, first, at, end, state, out_high, out_middle, out_key,
               out_games, out_first):
    """Merge the streams' rows into out_* (state[0]: the rows held there, out_high's size at
    most), each kind once, its games added and its least first deal kept, until a stream's
    buffer is spent or the output full; returns the code (MERGE_*, or a stream). state[1]: a
    stream refilled since the last call, its new head at[s] (or SPENT: heads[s, 0] set so) to
    be played up the tree, else -1. heads[s]: stream s's head (its last row taken while it is
    refilled, to hold its rows in order)."""
    n = state[0]
    cap = out_high.shape[0]
    s = state[1]
    if s >= 0:
        state[1] = -1
        if heads[s, 0] != SPENT and not _head(heads, s, high, middle, key, at[s]):
            return -3 - s
        _replay(tree, heads, s)
    while True:
        w = tree[0]
        if heads[w, 0] == SPENT:
            state[0] = n
            return MERGE_DONE
        i = at[w]
        if n > 0 and heads[w, 0] == out_high[n - 1] and heads[w, 1] == out_middle[n - 1] and \
                heads[w, 2] == out_key[n - 1]:
            out_games[n - 1] += games[i]
            if first[i] < out_first[n - 1]:
                out_first[n - 1] = first[i]
        else:
            if n == cap:
                state[0] = n
                return MERGE_FULL
            out_high[n] = heads[w, 0]
            out_middle[n] = heads[w, 1]
            out_key[n] = heads[w, 2]
            out_games[n] = games[i]
            out_first[n] = first[i]
            n += 1
        at[w] = i + 1
        if at[w] == end[w]:
            state[0] = n
            state[1] = w
            return w
        if (i + 1) % 8 == 0:  # a new cache line of this stream's rows: the next one asked for meanwhile
            for column in (high, middle, key, games, first):
                _prefetch(column, i + 9)
        if not _head(heads, w, high, middle, key, i + 1):
            state[0] = n
            return -3 - w
        _replay(tree, heads, w)


@njit(cache=True, _nrt=False)
def words_into(outcome, lookup, winner, first_of_class, battles, cards_laid, cycle_length, cycle_key, games, first,
               high, middle, key, to_games, to_first, base):
    """A counts table's columns (outcome as dictionary indices and `lookup` their codes; the
    nullable ones with nulls as -1, a null key as 0) into _sort_words's words and the games and
    first deals, at base.. : one pass, no array between."""
    for r in range(outcome.shape[0]):
        i = base + r
        high[i] = (lookup[outcome[r]] << 48) | ((np.int64(winner[r]) + 1) << 42) | \
            ((np.int64(first_of_class[r]) + 1) << 40) | np.int64(battles[r])
        middle[i] = (np.int64(cards_laid[r]) << 32) | (np.int64(cycle_length[r]) + 1)
        key[i] = cycle_key[r]
        to_games[i] = games[r]
        to_first[i] = first[r]
