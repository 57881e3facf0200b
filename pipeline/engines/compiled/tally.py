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


# Sorted tallies merged: the rows of many tallies, each already in the order of its keys (tally.rows',
# a shard's counts file), summed in one streaming pass with a loser tree over their sort words
# (_sort_words: high, middle, key), rather than grouped whole (a billion rows do not fit memory).

MERGE_DONE = -1   # every stream is spent: the sum is whole
MERGE_FULL = -2   # the output holds `cap` rows and the next row is another kind: write them first
# a code >= 0 is a stream whose buffer is spent: fill it (or mark it spent) and call again;
# a code <= -3 is the stream -code - 3 whose rows are out of order (or repeat a kind)


@njit(cache=True, inline="always", _nrt=False)
def _not_after(high, middle, key, i, j):
    """Whether row j does not come after row i (in one stream: out of order, or a kind again)."""
    if high[j] != high[i]:
        return high[j] < high[i]
    if middle[j] != middle[i]:
        return middle[j] < middle[i]
    return key[j] <= key[i]


@njit(cache=True, inline="always", _nrt=False)
def _before(high, middle, key, spent, a, b, at_a, at_b):
    """Whether stream a's head row comes before stream b's (a spent stream comes last)."""
    if spent[a]:
        return False
    if spent[b]:
        return True
    i = at_a
    j = at_b
    if high[i] != high[j]:
        return high[i] < high[j]
    if middle[i] != middle[j]:
        return middle[i] < middle[j]
    return key[i] < key[j]


@njit(cache=True, _nrt=False)
def _replay(tree, high, middle, key, spent, at, stream):
    """Stream `stream`'s new head played up the loser tree to its root (tree[0]: the winner)."""
    leaves = tree.shape[0]
    node = (stream + leaves) // 2
    winner = stream
    while node >= 1:
        other = tree[node]
        if _before(high, middle, key, spent, other, winner, at[other], at[winner]):
            tree[node] = winner
            winner = other
        node //= 2
    tree[0] = winner


@njit(cache=True)
def merge_start(tree, high, middle, key, spent, at):
    """The loser tree of the streams' heads (`tree` as many slots as leaves, a power of two at
    least the streams; spent[s] for the leaves past them)."""
    leaves = tree.shape[0]
    won = np.empty(2 * leaves, np.int64)
    for s in range(leaves):
        won[leaves + s] = s
    for node in range(leaves - 1, 0, -1):
        a, b = won[2 * node], won[2 * node + 1]
        if _before(high, middle, key, spent, b, a, at[b], at[a]):
            won[node], tree[node] = b, a
        else:
            won[node], tree[node] = a, b
    tree[0] = won[1]


@njit(cache=True, _nrt=False)
def merge_step(tree, high, middle, key, games, first, spent, at, end, last, state, out_high, out_middle, out_key,
               out_games, out_first):
    """Merge the streams' rows into out_* (state[0]: the rows held there, out_high's size at
    most), each kind once, its games added and its least first deal kept, until a stream's
    buffer is spent or the output full; returns the code (MERGE_*, or a stream). state[1]: a
    stream refilled since the last call (its new head checked and played up the tree), else -1.
    last[s]: the three words of stream s's last row taken, to hold its rows in order."""
    n = state[0]
    cap = out_high.shape[0]
    s = state[1]
    if s >= 0:
        state[1] = -1
        if not spent[s]:
            i = at[s]
            if high[i] < last[s, 0] or (high[i] == last[s, 0] and (
                    middle[i] < last[s, 1] or (middle[i] == last[s, 1] and key[i] <= last[s, 2]))):
                return -3 - s
        _replay(tree, high, middle, key, spent, at, s)
    while True:
        w = tree[0]
        if spent[w]:
            state[0] = n
            return MERGE_DONE
        i = at[w]
        if n > 0 and high[i] == out_high[n - 1] and middle[i] == out_middle[n - 1] and key[i] == out_key[n - 1]:
            out_games[n - 1] += games[i]
            if first[i] < out_first[n - 1]:
                out_first[n - 1] = first[i]
        else:
            if n == cap:
                state[0] = n
                return MERGE_FULL
            out_high[n] = high[i]
            out_middle[n] = middle[i]
            out_key[n] = key[i]
            out_games[n] = games[i]
            out_first[n] = first[i]
            n += 1
        last[w, 0] = high[i]
        last[w, 1] = middle[i]
        last[w, 2] = key[i]
        at[w] = i + 1
        if at[w] == end[w]:
            state[0] = n
            state[1] = w
            return w
        if _not_after(high, middle, key, i, i + 1):
            state[0] = n
            return -3 - w
        _replay(tree, high, middle, key, spent, at, w)
