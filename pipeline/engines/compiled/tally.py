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
FIRST_SLOTS = 1 << 10


class Tally(NamedTuple):
    """keys [slots, WIDTH] int64, games [slots] int64 (0: an empty slot), first [slots] int64:
    the least deal number of the row's games; fill[0]: the rows in use."""

    keys: np.ndarray
    games: np.ndarray
    first: np.ndarray
    fill: np.ndarray


def new_tally(slots: int = FIRST_SLOTS) -> Tally:
    return Tally(np.zeros((slots, WIDTH), np.int64), np.zeros(slots, np.int64), np.zeros(slots, np.int64),
                 np.zeros(1, np.int64))


@njit(cache=True, inline="always", _nrt=False)
def _slot(keys, games, key0, key1, key2, key3, key4, key5, key6):
    """The slot of this key: its row, or the empty slot where it goes."""
    h = HASH_START
    h = _fold(h, key0)
    h = _fold(h, key1)
    h = _fold(h, key2)
    h = _fold(h, key3)
    h = _fold(h, key4)
    h = _fold(h, key5)
    h = _fold(h, key6)
    mask = keys.shape[0] - 1
    slot = np.int64(_mix(h) & np.uint64(mask))
    while games[slot] != 0:
        row = keys[slot]
        if (row[0] == key0 and row[1] == key1 and row[2] == key2 and row[3] == key3 and row[4] == key4
                and row[5] == key5 and row[6] == key6):
            return slot
        slot = (slot + 1) & mask
    return slot


@njit(cache=True, _nrt=False)
def add(keys, games, first, fill, outcome, winner, first_of_class, battles, cards_laid, cycle_length, cycle_key,
        count, deal):
    """`count` games of this key, the least of whose deals is `deal`. Returns False, having added
    nothing, when the table is half full (grow it and add again)."""
    slot = _slot(keys, games, outcome, winner, first_of_class, battles, cards_laid, cycle_length, cycle_key)
    if games[slot] == 0:
        if 2 * (fill[0] + 1) > keys.shape[0]:
            return False
        row = keys[slot]
        row[0], row[1], row[2], row[3] = outcome, winner, first_of_class, battles
        row[4], row[5], row[6] = cards_laid, cycle_length, cycle_key
        games[slot] = count
        first[slot] = deal
        fill[0] += 1
    else:
        games[slot] += count
        if deal < first[slot]:
            first[slot] = deal
    return True


@njit(cache=True, _nrt=False)
def first_of_row(keys, games, first, outcome, winner, first_of_class, battles, cards_laid, cycle_length,
                 cycle_key):
    """The least deal of the row of this key so far; -1 for a row not in the tally."""
    slot = _slot(keys, games, outcome, winner, first_of_class, battles, cards_laid, cycle_length, cycle_key)
    return first[slot] if games[slot] else -1


@njit(cache=True)
def _rehash(keys, games, first, new_keys, new_games, new_first, fill):
    for slot in range(keys.shape[0]):
        if games[slot]:
            k = keys[slot]
            add(new_keys, new_games, new_first, fill, k[0], k[1], k[2], k[3], k[4], k[5], k[6], games[slot],
                first[slot])


def grown(tally: Tally) -> Tally:
    """The same rows in a table twice as large."""
    bigger = new_tally(2 * tally.keys.shape[0])
    _rehash(tally.keys, tally.games, tally.first, bigger.keys, bigger.games, bigger.first, bigger.fill)
    return bigger


def rows(tally: Tally) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows in use, in the order of their keys (column by column): (keys, games, first)."""
    used = np.flatnonzero(tally.games)
    keys = tally.keys[used]
    order = np.lexsort(keys.T[::-1]) if len(used) else np.zeros(0, np.int64)
    return keys[order], tally.games[used][order], tally.first[used][order]


def from_rows(keys: np.ndarray, games: np.ndarray, first: np.ndarray) -> Tally:
    """A tally holding these rows (rows' output, or a stored table's)."""
    slots = FIRST_SLOTS
    while slots < 2 * (len(games) + 1):
        slots *= 2
    tally = new_tally(slots)
    _rehash(np.ascontiguousarray(keys, np.int64), np.ascontiguousarray(games, np.int64),
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
