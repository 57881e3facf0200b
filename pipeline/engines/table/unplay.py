"""Battles played backwards: deals whose games reach a position of a given game later than its
own deal does, so that they play all of its future after a longer past (docs/decisions.md,
"Records by search").

In open play (no card face down) a seat that won the last battle holds the cards of that battle
at the bottom of its pile, in its pickup's order: under the natural pickup a war of k steps left
k pairs there, ties below a pair whose first card is the higher. Taking them off the bottom and
giving each seat its own cards back on top gives the position before that battle, and playing
it gives the position back. A position has at most one such past a seat (the run of tied pairs
from the bottom decides k), so the positions before it form a tree of at most two branches a
battle, and any of its positions where both seats hold half the cards is a deal (card i to
seat i mod 2) whose game passes through the position `depth` battles later.

The tree is searched as a beam: every position one battle further back, the `width` that can
go furthest back kept, judged by how many battles their piles can be taken back without a
choice (the run of winning blocks from each pile's bottom), and the balanced ones met on the
way kept as candidate deals. The other fixed pickups lay a plain battle's pair in the same
order (high then low; table order aside, which this search does not take back); their wars are
not taken back, which only leaves some pasts unexplored: every deal found is played forward
again before it is kept.
"""

from __future__ import annotations

import numpy as np

from ..compiled.jit import njit
from ..compiled.layout import PICKUP_NATURAL
from ..compiled.rng import _bounded
from .open_duel import _battle, _deal, _ring_cap



@njit(cache=True, inline="always", _nrt=False)
def _last_won(pile, n, pickup):
    """The number of steps k of the battle this pile's seat won last, read from its bottom, or 0
    when its bottom holds no battle it could have won (a plain battle under a pickup other than
    natural: k is 1 or 0)."""
    j = 0
    while 2 * j + 2 <= n:
        high = pile[n - 2 * j - 2]
        low = pile[n - 2 * j - 1]
        if high > low:
            return j + 1
        if high < low or pickup != PICKUP_NATURAL:
            return 0
        j += 1
    return 0


@njit(cache=True, inline="always", _nrt=False)
def _runway(pile, n, pickup):
    """How many battles this seat's pile can be taken back as won by it, block after block from
    its bottom, whatever the other seat does: the beam's measure of a position's promise."""
    blocks = 0
    while n >= 2:
        k = _last_won(pile, n, pickup)
        if k == 0:
            return blocks
        blocks += 1
        n -= 2 * k
    return blocks


@njit(cache=True, inline="always", _nrt=False)
def _take_back(src, sizes, w, k, dst, dst_sizes):
    """dst: the position before seat w won the k-step battle at the bottom of its pile in src.
    Its cards of each step go back on top of both piles: the tied ranks t1..t(k-1), then its
    winning card on its own pile and the losing card on the other's."""
    lose = 1 - w
    nw = sizes[w]
    nl = sizes[lose]
    block = nw - 2 * k
    for i in range(k - 1):
        tied = src[w, nw - 1 - 2 * i]  # the bottom pair is the first step's tie
        dst[w, i] = tied
        dst[lose, i] = tied
    dst[w, k - 1] = src[w, block]
    dst[lose, k - 1] = src[w, block + 1]
    for i in range(block):
        dst[w, k + i] = src[w, i]
    for i in range(nl):
        dst[lose, k + i] = src[lose, i]
    dst_sizes[w] = nw - k
    dst_sizes[lose] = nl + k


@njit(cache=True, _nrt=False)
def position_at(deal, half, pickup, battles, ring, table, piles, sizes):
    """The piles (top first, ranks) after `battles` battles of the deal's game, or fewer when it
    ends sooner; returns the battles played."""
    cap = ring.shape[0] // 2
    mask = cap - 1
    _deal(ring, mask, cap, deal, half)
    h0 = h1 = 0
    n0 = n1 = half
    played = 0
    while played < battles and n0 > 0 and n1 > 0:
        h0, h1, n0, n1, _w, _d, _l, _e, _a = _battle(ring, mask, cap, h0, h1, n0, n1, pickup, table)
        played += 1
    for i in range(n0):
        piles[0, i] = ring[(h0 + i) & mask]
    for i in range(n1):
        piles[1, i] = ring[cap + ((h1 + i) & mask)]
    sizes[0] = n0
    sizes[1] = n1
    return played


@njit(cache=True, _nrt=False)
def _keep_best(promise, c, width, rng, order, tally):
    """Into order[:m] (m = min(c, width)): the positions 0..c-1 of greatest promise, those of
    the least promise kept drawn at random among their equals. A count by promise (runways are
    at most the deck's size) then one partial shuffle of the tied ones: linear, where a sort of
    the level was most of the beam's time."""
    if c <= width:
        for i in range(c):
            order[i] = i
        return c
    tally[:] = 0
    for i in range(c):
        tally[promise[i]] += 1
    above = 0
    least = tally.shape[0] - 1
    while above + tally[least] < width:
        above += tally[least]
        least -= 1
    m = 0
    t = c  # the tied ones gather at the end of order
    for i in range(c):
        if promise[i] > least:
            order[m] = i
            m += 1
        elif promise[i] == least:
            t -= 1
            order[t] = i
    ties = c - t
    for j in range(width - m):  # a partial Fisher-Yates: width - m of the ties, at random
        r = t + j + np.int64(_bounded(rng, np.uint64(ties - j)))
        order[t + j], order[r] = order[r], order[t + j]
        order[m + j] = order[t + j]
    return width


@njit(cache=True)
def beam(start, start_sizes, half, width, levels, pickup, by_laid, rng, found, found_depth, found_laid):
    """Positions ever further before `start` (piles top first, ranks), `width` kept a level;
    the balanced ones of greatest depth (or, `by_laid`, of most cards laid on the way back)
    into `found` (rows of two piles), with their depth and cards laid. Returns how many it
    found and how many positions it took back."""
    size = start.shape[1]
    keep = found.shape[0]
    level = np.zeros((width, 2, size), np.uint8)
    level_sizes = np.zeros((width, 2), np.int64)
    level_laid = np.zeros(width, np.int64)
    nxt = np.zeros((2 * width, 2, size), np.uint8)
    nxt_sizes = np.zeros((2 * width, 2), np.int64)
    nxt_laid = np.zeros(2 * width, np.int64)
    promise = np.zeros(2 * width, np.int64)
    order = np.zeros(2 * width, np.int64)
    tally = np.zeros(2 * size + 2, np.int64)
    level[0] = start
    level_sizes[0] = start_sizes
    m = 1
    count = 0
    taken = 0
    for depth in range(1, levels + 1):
        c = 0
        for i in range(m):
            for w in range(2):
                k = _last_won(level[i, w], level_sizes[i, w], pickup)
                if k > 0:
                    _take_back(level[i], level_sizes[i], w, k, nxt[c], nxt_sizes[c])
                    nxt_laid[c] = level_laid[i] + 2 * k
                    c += 1
        taken += c
        if c == 0:
            break
        for i in range(c):
            if nxt_sizes[i, 0] == half and nxt_sizes[i, 1] == half:
                value = nxt_laid[i] if by_laid else depth
                at = -1
                if count < keep:
                    at = count
                    count += 1
                else:
                    least = 0
                    for j in range(1, keep):
                        if (found_laid[j] if by_laid else found_depth[j]) < \
                                (found_laid[least] if by_laid else found_depth[least]):
                            least = j
                    if (found_laid[least] if by_laid else found_depth[least]) < value:
                        at = least
                if at >= 0:
                    found[at] = nxt[i]
                    found_depth[at] = depth
                    found_laid[at] = nxt_laid[i]
            promise[i] = _runway(nxt[i, 0], nxt_sizes[i, 0], pickup) + _runway(nxt[i, 1], nxt_sizes[i, 1], pickup)
        m = _keep_best(promise, c, width, rng, order, tally)
        for j in range(m):
            level[j] = nxt[order[j]]
            level_sizes[j] = nxt_sizes[order[j]]
            level_laid[j] = nxt_laid[order[j]]
    return count, taken


def takes_back(pickup: str) -> bool:
    """Whether the beam can take battles back under this pickup (docstring above)."""
    return pickup in ("natural", "winner_first", "sorted")


def ring_for(size: int) -> np.ndarray:
    """A ring of the open-play engine's shape for a deck of `size` cards."""
    return np.zeros(2 * int(_ring_cap(size)), np.uint8)
