"""The search for record deals of the open duel (two seats, open play, a fixed pickup), compiled:
rounds of random deals played on table.open_duel, the best kept in a pool, and the best of the
pool given a longer past by table.unplay (docs/decisions.md, "Records by search").

A deal is its ranks, card i to seat i mod 2. A pool row is (score, battles, cards laid, outcome, winner);
the score is what the search ranks deals by: battles or cards laid of a game that ends, or 1 for
a game that cycles. A searcher's whole state is its generator, its pool and its counters, so a
round played after a resumed search is the round it would have played without the stop.
"""

from __future__ import annotations

import numpy as np

from ..compiled.jit import njit
from ..compiled.layout import (
    OUTCOME_CYCLE, OUTCOME_DRAW, OUTCOME_WIN, SUMMARY_BATTLES, SUMMARY_CARDS_LAID, SUMMARY_COLUMNS, SUMMARY_OUTCOME,
    SUMMARY_WINNER,
)
from ..compiled.rng import _shuffle
from .open_duel import _game, _ring_cap
from .unplay import beam, position_at

# What a search looks for (GOAL_*) and ranks its deals by (MEASURE_*).
GOAL_LONGEST, GOAL_CYCLE = 0, 1
MEASURE_BATTLES, MEASURE_LAID = 0, 1
# The columns of a pool row.
ROW_SCORE, ROW_BATTLES, ROW_LAID, ROW_OUTCOME, ROW_WINNER = 0, 1, 2, 3, 4
ROW_COLUMNS = 5
EMPTY = -1  # the score of a pool row that holds no deal


@njit(cache=True, inline="always")
def score_of(summary, goal, measure):
    """A game's score (module docstring), or EMPTY when the search does not keep it."""
    outcome = summary[SUMMARY_OUTCOME]
    if goal == GOAL_CYCLE:
        return 1 if outcome == OUTCOME_CYCLE else EMPTY
    if outcome != OUTCOME_WIN and outcome != OUTCOME_DRAW:
        return EMPTY
    return summary[SUMMARY_CARDS_LAID] if measure == MEASURE_LAID else summary[SUMMARY_BATTLES]


@njit(cache=True)
def offer(pool, rows, polished, deal, score, summary, done):
    """Keep the deal in the pool when it beats the pool's least and is not there already (by its
    ranks). Returns the row it took, or -1."""
    least = 0
    for i in range(1, rows.shape[0]):
        if rows[i, ROW_SCORE] < rows[least, ROW_SCORE]:
            least = i
    if score <= rows[least, ROW_SCORE]:
        return -1
    size = deal.shape[0]
    for i in range(rows.shape[0]):
        if rows[i, ROW_SCORE] == score:
            same = True
            for j in range(size):
                if pool[i, j] != deal[j]:
                    same = False
                    break
            if same:
                return -1
    pool[least] = deal
    rows[least, ROW_SCORE] = score
    rows[least, ROW_BATTLES] = summary[SUMMARY_BATTLES]
    rows[least, ROW_LAID] = summary[SUMMARY_CARDS_LAID]
    rows[least, ROW_OUTCOME] = summary[SUMMARY_OUTCOME]
    rows[least, ROW_WINNER] = summary[SUMMARY_WINNER]
    polished[least] = done
    return least


@njit(cache=True)
def _buffers(size):
    """What open_duel._game plays a deck of `size` cards in: its rings, table, counts and one
    summaries row."""
    ring = np.zeros(2 * _ring_cap(size), np.uint8)
    return (ring, np.zeros_like(ring), np.empty(size + 2, np.uint8), np.zeros(32, np.int64),
            np.zeros((1, len(SUMMARY_COLUMNS)), np.int64), np.zeros((1, 2), np.int32), np.zeros((1, 2), np.int32))


@njit(cache=True)
def sample(deck, rng, deals, pickup, max_battles, goal, measure, pool, rows, polished):
    """Play `deals` random deals (each a shuffle of `deck`, ranks in any order) and offer each to
    the pool. Returns how many it played."""
    size = deck.shape[0]
    half = size // 2
    ring, snap, table, out, summaries, wins, final = _buffers(size)
    deal = deck.copy()
    for _ in range(deals):
        _shuffle(rng, deal, size)  # Fisher-Yates, as model.rng's shuffle
        _game(deal, half, 0, size - 2 * half, pickup, max_battles, ring, snap, table, out, 0, summaries, wins, final)
        score = score_of(summaries[0], goal, measure)
        if score != EMPTY:
            offer(pool, rows, polished, deal, score, summaries[0], False)
    return deals


@njit(cache=True)
def polish(row, pool, rows, polished, pickup, max_battles, goal, measure, starts, width, rng):
    """Give the pool's deal `row` a longer past: from the position after each of `starts`
    battles of its game, the beam of table.unplay finds the deals that reach it later; each is
    played, and the best offered to the pool. Marks the row polished. Returns the deals played, the
    positions taken back and the best score of the deals found (EMPTY: none)."""
    size = pool.shape[1]
    half = size // 2
    aside = size - 2 * half
    deal = pool[row].copy()
    polished[row] = True
    ring, snap, table, out, summaries, wins, final = _buffers(size)
    piles = np.zeros((2, size), np.uint8)
    sizes = np.zeros(2, np.int64)
    keep = 4
    found = np.zeros((keep, 2, size), np.uint8)
    found_depth = np.zeros(keep, np.int64)
    found_laid = np.zeros(keep, np.int64)
    grafted = deal.copy()
    chosen = deal.copy()
    chosen_summary = np.zeros(len(SUMMARY_COLUMNS), np.int64)
    played = 0
    taken = 0
    best = EMPTY
    for s in starts:
        if position_at(deal, half, pickup, s, ring, table, piles, sizes) < s or sizes[0] == 0 or sizes[1] == 0:
            break
        count, more = beam(piles, sizes, half, width, s + 8 * size, pickup, measure == MEASURE_LAID, rng, found,
                           found_depth, found_laid)
        taken += more
        for f in range(count):
            if found_depth[f] <= s and measure == MEASURE_BATTLES:
                continue  # no later than the deal itself
            for i in range(half):
                grafted[2 * i] = found[f, 0, i]
                grafted[2 * i + 1] = found[f, 1, i]
            for i in range(aside):
                grafted[2 * half + i] = deal[2 * half + i]
            _game(grafted, half, 0, aside, pickup, max_battles, ring, snap, table, out, 0, summaries, wins, final)
            played += 1
            score = score_of(summaries[0], goal, measure)
            if score > best:
                best = score
                chosen[:] = grafted
                chosen_summary[:] = summaries[0]
    if best != EMPTY:  # one deal a polish: the others found play the same game after a few battles
        offer(pool, rows, polished, chosen, best, chosen_summary, True)
    return played, taken, best


@njit(cache=True)
def shuffles(deck, rng, games):
    """`games` shuffles of `deck` (one a row), drawn as `sample` draws them: the deals of a
    rule set that another compiled engine plays."""
    size = deck.shape[0]
    decks = np.empty((games, size), deck.dtype)
    deal = deck.copy()
    for g in range(games):
        _shuffle(rng, deal, size)
        decks[g] = deal
    return decks
