"""The search for record deals of the open duel (two seats, open play, a fixed pickup), compiled:
rounds of random deals played on table.open_duel, the best kept in a pool (compiled.search_pool),
and the best of the pool given a longer past by table.unplay (docs/decisions.md, "Records by
search"). A round is the fast path's (open_play.search_round), which a searcher finds through the
family's declaration (Family.fast).

A deal is its ranks, card i to seat i mod 2. A searcher's whole state is its generator, its pool
and its counters, so a round played after a resumed search is the round it would have played
without the stop.
"""

from __future__ import annotations

import numpy as np

from ...model.schema import RuleSet
from ..compiled.jit import njit
from ..compiled.layout import SUMMARY_COLUMNS
from ..compiled.rng import _bounded, _shuffle
from ..compiled.search_pool import (  # noqa: F401 (the pool's names, as this module gave them)
    EMPTY, GOAL_CYCLE, GOAL_LONGEST, MEASURE_BATTLES, MEASURE_LAID, ROW_BATTLES, ROW_COLUMNS, ROW_LAID, ROW_OUTCOME,
    ROW_SCORE, ROW_WINNER, offer, score_of, shuffles,
)
from .open_duel import PICKUPS_CODE, _game, _ring_cap
from .unplay import beam, position_at, takes_back

ROUND_OPEN = 1 << 14     # deals a round
POLISH_TOP = 4            # only the best few deals of a pool are polished
POLISH_WIDTH = 3000       # positions the beam keeps a battle back (docs/decisions.md has the trials)
REPOLISH = 16             # once the top is polished, one round in this many (drawn) polishes one of it again,
REPOLISH_AFTER = 1 << 25  # in a searcher that has played this many deals: sampling then gains little


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


# ---------------------------------------------------------------- a searcher's round

def polish_starts(size: int) -> np.ndarray:
    """The battles of a deal's game from whose positions the beam looks for a longer past: the
    first battles, where the deal's own past is short enough for the beam to reach round it
    (up to 12 decks of battles: past that, what it finds lies before the deal's own)."""
    return np.unique(np.array([0, size // 4, size // 2, size, 2 * size, 3 * size, 5 * size, 8 * size, 12 * size],
                              np.int64))


def search_round(rules: RuleSet, deck, rng, goal, measure, pool, rows, polished, deals=0):
    """A searcher's round (jobs.searcher): ROUND_OPEN random deals, then one polish of the best
    deal of the pool's top not yet polished. Once the top is all polished, in a searcher that
    has played `deals` >= REPOLISH_AFTER, one round in REPOLISH (drawn) polishes one of the top
    again, drawn: the beam's ties drawn afresh find other pasts. Returns the games played, the
    positions taken back and what the polish added to its deal's score."""
    pickup = np.int64(PICKUPS_CODE[rules.pickup])
    cap = np.int64(rules.max_battles)
    played = sample(deck, rng, ROUND_OPEN, pickup, cap, goal, measure, pool, rows, polished)
    if goal != GOAL_LONGEST or not takes_back(rules.pickup):
        return played, 0, 0
    scores = rows[:, ROW_SCORE]
    top = [i for i in np.argsort(-scores, kind="stable")[:POLISH_TOP] if scores[i] != EMPTY]
    row = next((int(i) for i in top if not polished[i]), -1)
    if row < 0 and REPOLISH and deals >= REPOLISH_AFTER and top and _draw(rng, REPOLISH) == 0:
        row = int(top[_draw(rng, len(top))])  # its beam's ties drawn afresh: other pasts (docs/decisions.md)
    if row < 0:
        return played, 0, 0
    before = int(scores[row])
    more, taken, found = polish(row, pool, rows, polished, pickup, cap, goal, measure,
                                polish_starts(deck.shape[0]), POLISH_WIDTH, rng)
    return played + more, taken, max(int(found) - before, 0)


@njit(cache=True)
def _draw(rng, n):
    """A number from 0 to n - 1 drawn from the searcher's generator."""
    return np.int64(_bounded(rng, np.uint64(n)))


def warm_search(rules: RuleSet, deck, rng, rows) -> None:
    """Load (or compile) what a round runs: a deal sampled into a pool of one row, polished."""
    pool, polished = np.array([deck]), np.zeros(1, np.bool_)
    pickup, cap = np.int64(PICKUPS_CODE[rules.pickup]), np.int64(rules.max_battles)
    sample(deck, rng, 1, pickup, cap, 0, 0, pool, rows, polished)
    rows[0, 0] = 0
    polish(0, pool, rows, polished, pickup, cap, 0, 0, np.zeros(1, np.int64), 2, rng)
    _draw(rng, 1)
