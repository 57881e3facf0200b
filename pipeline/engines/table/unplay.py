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

Under the sorted pickup a war of k steps left its 2k cards at the bottom sorted, highest rank
first: the tied ranks come in pairs, so the deciding pair is the two ranks the block holds an
odd number of (the higher the winner's), and the steps' tied ranks may have come in any order.
A position then has a past for each block at its bottom that sorts and holds exactly two odd
ranks, and for each order of that block's tied ranks (_sorted_pasts, at most FAN a seat).

The tree is searched as a beam: every position one battle further back, the `width` that can
go furthest back kept, judged by how many battles their piles can be taken back without a
choice (the run of winning blocks from each pile's bottom), and the balanced ones met on the
way kept as candidate deals. Winner first lays a plain battle's pair in the same order (high
then low; table order aside, which this search does not take back); its wars are not taken
back, which only leaves some pasts unexplored: every deal found is played forward again before
it is kept.
"""

from __future__ import annotations

import numpy as np

from ..compiled.jit import njit
from ..compiled.layout import PICKUP_NATURAL, PICKUP_SORTED
from ..compiled.rng import _bounded
from .open_duel import _battle, _deal, _ring_cap

FAN = 32      # the most pasts a seat's pile gives under the sorted pickup (its wars' orders of ties)
MOST_STEPS = 8  # the longest war the sorted pickup's pasts take back


@njit(cache=True, inline="always", _nrt=False)
def _last_won(pile, n, pickup):
    """The number of steps k of the battle this pile's seat won last, read from its bottom, or 0
    when its bottom holds no battle it could have won (a plain battle under a pickup other than
    natural: k is 1 or 0)."""
    if pickup == PICKUP_SORTED:
        return _sorted_war(pile, n)
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
def _odd_ranks(pile, start, end):
    """How many ranks the sorted block pile[start:end] holds an odd number of."""
    odd = 0
    i = start
    while i < end:
        j = i + 1
        while j < end and pile[j] == pile[i]:
            j += 1
        odd += (j - i) & 1
        i = j
    return odd


@njit(cache=True, inline="always", _nrt=False)
def _sorted_war(pile, n):
    """Under the sorted pickup, the fewest steps k of a battle this pile's seat can have won
    last: its bottom 2k cards sorted, highest first, with exactly two ranks an odd number of
    times (the deciding pair; the ties come in pairs). 0 when none can."""
    k = 1
    while 2 * k <= n and k <= MOST_STEPS:
        at = n - 2 * k
        if pile[at] < pile[at + 1] or (k > 1 and pile[at + 1] < pile[at + 2]):
            return 0
        if _odd_ranks(pile, at, n) == 2:
            return k
        k += 1
    return 0


@njit(cache=True, _nrt=False)
def _sorted_pasts(src, sizes, w, dst, dst_sizes, c, most, ties):
    """Under the sorted pickup, every position before seat w won the battle whose cards lie
    sorted at the bottom of its pile in src (module docstring), into dst[c:], at most `most`
    (FAN a seat). For a block of 2k cards: the deciding pair is its two odd ranks, the higher
    the winner's; the k - 1 tied ranks go back on top of both piles in each of their distinct
    orders. Returns the new c and the cards laid of each past (2k, by its index)."""
    lose = 1 - w
    nw = sizes[w]
    nl = sizes[lose]
    made = 0
    k = 1
    while 2 * k <= nw and k <= MOST_STEPS and made < most:
        at = nw - 2 * k
        if src[w, at] < src[w, at + 1] or (k > 1 and src[w, at + 1] < src[w, at + 2]):
            break
        # the block's runs: the two odd ranks decide, half of each run's rest are tied steps
        high = -1
        low = -1
        odd = 0
        t = 0
        i = at
        while i < nw:
            j = i + 1
            while j < nw and src[w, j] == src[w, i]:
                j += 1
            run = j - i
            if run & 1:
                odd += 1
                if high < 0:
                    high = src[w, i]
                else:
                    low = src[w, i]
            for _ in range(run // 2):
                ties[t] = src[w, i]
                t += 1
            i = j
        if odd == 2:
            # ties[:k-1] descending; their distinct orders from ascending, by next permutation
            for a in range(t // 2):
                ties[a], ties[t - 1 - a] = ties[t - 1 - a], ties[a]
            while made < most:
                for a in range(t):
                    dst[c, w, a] = ties[a]
                    dst[c, lose, a] = ties[a]
                dst[c, w, t] = high
                dst[c, lose, t] = low
                for a in range(at):
                    dst[c, w, k + a] = src[w, a]
                for a in range(nl):
                    dst[c, lose, k + a] = src[lose, a]
                dst_sizes[c, w] = nw - k
                dst_sizes[c, lose] = nl + k
                c += 1
                made += 1
                # the next order of the ties (none: done)
                p = t - 2
                while p >= 0 and ties[p] >= ties[p + 1]:
                    p -= 1
                if p < 0:
                    break
                q = t - 1
                while ties[q] <= ties[p]:
                    q -= 1
                ties[p], ties[q] = ties[q], ties[p]
                a, b = p + 1, t - 1
                while a < b:
                    ties[a], ties[b] = ties[b], ties[a]
                    a += 1
                    b -= 1
        k += 1
    return c


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
    """Positions ever further before `start` (piles top first, ranks), `width` kept a level
    (chosen among the pasts of the level before: up to two each, 2 FAN under the sorted pickup);
    the balanced ones of greatest depth (or, `by_laid`, of most cards laid on the way back)
    into `found` (rows of two piles), with their depth and cards laid. Returns how many it
    found and how many positions it took back."""
    size = start.shape[1]
    keep = found.shape[0]
    fan = FAN if pickup == PICKUP_SORTED else 1  # pasts a seat
    level = np.zeros((width, 2, size), np.uint8)
    level_sizes = np.zeros((width, 2), np.int64)
    level_laid = np.zeros(width, np.int64)
    nxt = np.empty((2 * fan * width, 2, size), np.uint8)  # each row written before it is read
    nxt_sizes = np.empty((2 * fan * width, 2), np.int64)
    nxt_laid = np.empty(2 * fan * width, np.int64)
    promise = np.empty(2 * fan * width, np.int64)
    order = np.empty(2 * fan * width, np.int64)
    tally = np.zeros(2 * size + 2, np.int64)
    ties = np.zeros(size, np.uint8)
    level[0] = start
    level_sizes[0] = start_sizes
    m = 1
    count = 0
    taken = 0
    for depth in range(1, levels + 1):
        c = 0
        for i in range(m):
            for w in range(2):
                if pickup == PICKUP_SORTED:
                    was = c
                    c = _sorted_pasts(level[i], level_sizes[i], w, nxt, nxt_sizes, c, fan, ties)
                    for j in range(was, c):
                        nxt_laid[j] = level_laid[i] + 2 * (nxt_sizes[j, 1 - w] - level_sizes[i, 1 - w])
                    continue
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
