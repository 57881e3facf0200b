"""Float values of the chain by iterating the battle distribution (docs/solve.md, "Method").

After t sweeps, F[i] = P(the game from row i has ended within t battles), W0 and W1 the chances
that seat 0 and seat 1 have won within t battles, S[i] = E[min(N, t)] and L[i] the expected cards
laid in those battles. Each sweep is one battle more (Jacobi: every row from the last sweep's
values), so the sweeps are the distribution of N itself and the error is bounded by the mass not
yet ended (docs/solve.md, "Error bound"). Every row of a sweep is independent of the others, so
a sweep is spread over the cores (numba's prange over blocks of rows of about equal moves); each
row's value is computed the same way whichever thread takes it, so the result does not depend on
the number of threads.

A successor is a code 2 * row + flip (chain.py): flip 1 is the row's twin, the seats swapped,
whose W0 is the row's W1 and back.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .chain import GOES_ON, WIN0, WIN1

BLOCKS = 256  # blocks of rows a sweep is cut into, shared out among the threads


@njit(cache=True, inline="always")
def _add(total, carry, x):
    """Neumaier's compensated sum: total + x, the rounding kept in `carry`."""
    t = total + x
    if abs(total) >= abs(x):
        carry += (total - t) + x
    else:
        carry += (x - t) + total
    return t, carry


def blocks_of(start, blocks: int = BLOCKS) -> np.ndarray:
    """Row boundaries cutting the rows into `blocks` pieces of about equal moves (and rows)."""
    rows = start.shape[0] - 1
    if rows == 0:
        return np.zeros(1, np.int64)
    work = start + np.arange(rows + 1)  # a row costs its moves and a little more
    cuts = np.searchsorted(work, np.linspace(0, work[-1], blocks + 1)[1:-1])
    return np.unique(np.concatenate([[0], cuts, [rows]])).astype(np.int64)


@njit(cache=True, parallel=True)
def sweep(kind, laid, start, succ, V, nV, live, bounds, S, quant, qs, t):
    """One battle more for every row that can end (`live`): nV from V; S += P(N > t), the mass
    not yet ended before it; the quantiles of N reached at t + 1 noted. Returns the largest mass
    not ended within t + 1 battles. V[r] holds the row's F, W0, W1, L side by side, so a
    successor's values are one cache line, not four. Each row's mean is a compensated sum, so a
    sweep adds at most a few units of roundoff whatever the number of successors
    (docs/solve.md, "Error bound")."""
    blocks = bounds.shape[0] - 1
    worst = np.zeros(max(blocks, 1))
    for block in prange(blocks):
        most = 0.0
        for r in range(bounds[block], bounds[block + 1]):
            if not live[r]:
                continue
            S[r] += 1.0 - V[r, 0]
            kd = kind[r]
            if kd != GOES_ON:
                nV[r, 0] = 1.0
                nV[r, 1] = 1.0 if kd == WIN0 else 0.0
                nV[r, 2] = 1.0 if kd == WIN1 else 0.0
                nV[r, 3] = laid[r]
            elif start[r + 1] - start[r] == 2:  # a plain battle: one addition, rounded once as
                # the compensated sum would round it, and halving is exact
                c0, c1 = succ[start[r]], succ[start[r] + 1]
                y0, y1 = c0 >> 1, c1 >> 1
                nV[r, 0] = (V[y0, 0] + V[y1, 0]) / 2
                a0, a1 = V[y0, 2 if c0 & 1 else 1], V[y0, 1 if c0 & 1 else 2]
                b0, b1 = V[y1, 2 if c1 & 1 else 1], V[y1, 1 if c1 & 1 else 2]
                nV[r, 1] = (a0 + b0) / 2
                nV[r, 2] = (a1 + b1) / 2
                nV[r, 3] = laid[r] + (V[y0, 3] + V[y1, 3]) / 2
                if 1.0 - nV[r, 0] > most:
                    most = 1.0 - nV[r, 0]
            else:
                a, b = start[r], start[r + 1]
                f = w0 = w1 = ll = 0.0
                cf = cw0 = cw1 = cl = 0.0
                for e in range(a, b):
                    code = succ[e]
                    y = code >> 1
                    f, cf = _add(f, cf, V[y, 0])
                    if code & 1:
                        w0, cw0 = _add(w0, cw0, V[y, 2])
                        w1, cw1 = _add(w1, cw1, V[y, 1])
                    else:
                        w0, cw0 = _add(w0, cw0, V[y, 1])
                        w1, cw1 = _add(w1, cw1, V[y, 2])
                    ll, cl = _add(ll, cl, V[y, 3])
                d = b - a
                nV[r, 0] = (f + cf) / d
                nV[r, 1] = (w0 + cw0) / d
                nV[r, 2] = (w1 + cw1) / d
                nV[r, 3] = laid[r] + (ll + cl) / d
                if 1.0 - nV[r, 0] > most:
                    most = 1.0 - nV[r, 0]
            fr = nV[r, 0]
            for j in range(qs.shape[0]):
                if quant[r, j] < 0 and fr >= qs[j]:
                    quant[r, j] = t + 1
        worst[block] = most
    return worst.max()


def iterate(chain, live, tol: float, most_sweeps: int, qs, cap: int, deal_weights, progress=None):
    """Sweep until every row that can end has ended with probability >= 1 - tol (or most_sweeps):
    the values, their bound, the quantiles of N, the deck's distribution of N (averaged over
    deals with `deal_weights`) and each row's P(N > cap). `progress(t, worst)` is called every
    50 sweeps (a long solve says how far it is)."""
    rows = chain.rows
    V, nV = np.zeros((rows, 4)), np.zeros((rows, 4))  # F, W0, W1, L side by side
    S = np.zeros(rows)
    quant = np.full((rows, len(qs)), -1, np.int32)
    qs = np.asarray(qs, np.float64)
    dealt = np.flatnonzero(deal_weights)  # the deck's distribution needs only the deals' rows
    weights = deal_weights[dealt] / deal_weights.sum()
    bounds = blocks_of(chain.start)
    cdf = [0.0]  # the deck's P(N <= t), t = 0, 1, ...
    over_cap = None
    t, worst = 0, 1.0
    while t < most_sweeps:
        worst = sweep(chain.kind, chain.laid, chain.start, chain.succ, V, nV, live, bounds, S, quant, qs, t)
        V, nV = nV, V
        t += 1
        cdf.append(float(weights @ V[dealt, 0]))
        if t == cap:
            over_cap = 1.0 - V[:, 0]
        if progress is not None and t % 50 == 0:
            progress(t, worst)
        if worst <= tol:
            break
    del nV
    if over_cap is None:
        over_cap = 1.0 - V[:, 0]  # P(N > cap) <= P(N > t)
    return dict(F=V[:, 0].copy(), W0=V[:, 1].copy(), W1=V[:, 2].copy(), L=V[:, 3].copy(), S=S, quant=quant,
                cdf=np.array(cdf), sweeps=t, worst=worst, over_cap=over_cap)


@njit(cache=True, parallel=True)
def affine_sweep(start, succ, C, X, nX, chances, sure, bounds):
    """One Jacobi sweep of x = c + A x for the values W0, W1, N, L side by side (a successor's
    flip swaps W0 and W1): the chances on the rows that can end (`chances`), N and L on the rows
    that surely end (`sure`), zero elsewhere. The largest change. Used by exact.py to refine a
    float solution (the correction's equations have the residual as c)."""
    blocks = bounds.shape[0] - 1
    change = np.zeros(max(blocks, 1))
    for block in prange(blocks):
        most = 0.0
        for r in range(bounds[block], bounds[block + 1]):
            a, b = start[r], start[r + 1]
            v = np.zeros(4)
            if b > a:
                for e in range(a, b):
                    code = succ[e]
                    y = code >> 1
                    if code & 1:
                        v[0] += X[y, 1]
                        v[1] += X[y, 0]
                    else:
                        v[0] += X[y, 0]
                        v[1] += X[y, 1]
                    v[2] += X[y, 2]
                    v[3] += X[y, 3]
                for m in range(4):
                    v[m] /= b - a
            for m in range(4):
                on = chances[r] if m < 2 else sure[r]
                x = C[r, m] + v[m] if on else 0.0
                if abs(x - X[r, m]) > most:
                    most = abs(x - X[r, m])
                nX[r, m] = x
        change[block] = most
    return change.max()
