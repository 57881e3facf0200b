"""A record search's pool (jobs.searcher), compiled: the deals a searcher keeps, each with its
game's row, and the random deals it draws, shared by every engine a search runs on (the compiled
engines through play_arrays, a family's fast path in its own kernel).

A deal is its ranks, card i to seat i mod n. A pool row is (score, battles, cards laid, outcome,
winner); the score is what the search ranks deals by: battles or cards laid of a game that ends,
or 1 for a game that cycles.
"""

from __future__ import annotations

import numpy as np

from .jit import njit
from .layout import (
    OUTCOME_CYCLE, OUTCOME_DRAW, OUTCOME_WIN, SUMMARY_BATTLES, SUMMARY_CARDS_LAID, SUMMARY_OUTCOME, SUMMARY_WINNER,
)
from .rng import _shuffle

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
