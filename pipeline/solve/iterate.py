"""Float values of the chain by iterating the battle distribution (docs/solve.md, "Method").

After t sweeps, F[i] = P(the game from row i has ended within t battles), W0 and W1 the chances
that seat 0 and seat 1 have won within t battles, S[i] = E[min(N, t)] and L[i] the expected cards
laid in those battles. Each sweep is one battle more (Jacobi: every row from the last sweep's
values), so the sweeps are the distribution of N itself and the error is bounded by the mass not
yet ended (docs/solve.md, "Error bound").
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .chain import GOES_ON, WIN0, WIN1


@njit(cache=True, inline="always")
def _add(total, carry, x):
    """Neumaier's compensated sum: total + x, the rounding kept in `carry`."""
    t = total + x
    if abs(total) >= abs(x):
        carry += (total - t) + x
    else:
        carry += (x - t) + total
    return t, carry


@njit(cache=True)
def sweep(kind, laid, start, succ, V, nV, live):
    """One battle more for every row that can end (`live`); the largest mass not yet ended.
    V[r] holds the row's F, W0, W1, L side by side, so a successor's values are one cache line,
    not four (4x3: 26 ms a sweep). Each row's mean is a compensated sum, so
    a sweep adds at most a few units of roundoff whatever the number of successors
    (docs/solve.md, "Error bound")."""
    rows = kind.shape[0]
    worst = 0.0
    for r in range(rows):
        if not live[r]:
            continue
        kd = kind[r]
        if kd != GOES_ON:
            nV[r, 0] = 1.0
            nV[r, 1] = 1.0 if kd == WIN0 else 0.0
            nV[r, 2] = 1.0 if kd == WIN1 else 0.0
            nV[r, 3] = laid[r]
            continue
        a, b = start[r], start[r + 1]
        f = w0 = w1 = ll = 0.0
        cf = cw0 = cw1 = cl = 0.0
        for e in range(a, b):
            y = succ[e]
            f, cf = _add(f, cf, V[y, 0])
            w0, cw0 = _add(w0, cw0, V[y, 1])
            w1, cw1 = _add(w1, cw1, V[y, 2])
            ll, cl = _add(ll, cl, V[y, 3])
        d = b - a
        nV[r, 0] = (f + cf) / d
        nV[r, 1] = (w0 + cw0) / d
        nV[r, 2] = (w1 + cw1) / d
        nV[r, 3] = laid[r] + (ll + cl) / d
        if 1.0 - nV[r, 0] > worst:
            worst = 1.0 - nV[r, 0]
    return worst


@njit(cache=True)
def _add_tail(F, S, live):
    """S += P(N > t), the mass not yet ended."""
    for r in range(F.shape[0]):
        if live[r]:
            S[r] += 1.0 - F[r]


@njit(cache=True)
def _quantiles(F, t, qs, quant, live):
    """Note the battles t where F first reaches each quantile."""
    for r in range(F.shape[0]):
        if not live[r]:
            continue
        for j in range(qs.shape[0]):
            if quant[r, j] < 0 and F[r] >= qs[j]:
                quant[r, j] = t


def iterate(chain, live, tol: float, most_sweeps: int, qs, cap: int, deal_weights):
    """Sweep until every row that can end has ended with probability >= 1 - tol (or most_sweeps):
    the values, their bound, the quantiles of N, the deck's distribution of N (averaged over
    deals with `deal_weights`) and each row's P(N > cap)."""
    rows = chain.rows
    V, nV = np.zeros((rows, 4)), np.zeros((rows, 4))  # F, W0, W1, L side by side
    S = np.zeros(rows)
    F = V[:, 0]
    quant = np.full((rows, len(qs)), -1, np.int64)
    qs = np.asarray(qs, np.float64)
    weights = deal_weights / deal_weights.sum()
    cdf = [0.0]  # the deck's P(N <= t), t = 0, 1, ...
    over_cap = np.zeros(rows)
    t, worst = 0, 1.0
    while t < most_sweeps:
        _add_tail(F, S, live)
        worst = sweep(chain.kind, chain.laid, chain.start, chain.succ, V, nV, live)
        V, nV = nV, V
        F = V[:, 0]
        t += 1
        _quantiles(F, t, qs, quant, live)
        cdf.append(float(weights @ F))
        if t == cap:
            over_cap = 1.0 - F
        if worst <= tol:
            break
    if t < cap:
        over_cap = 1.0 - F  # P(N > cap) <= P(N > t)
    return dict(F=V[:, 0].copy(), W0=V[:, 1].copy(), W1=V[:, 2].copy(), L=V[:, 3].copy(), S=S, quant=quant, cdf=np.array(cdf), sweeps=t, worst=worst,
                over_cap=over_cap)
