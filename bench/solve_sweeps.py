"""How `war solve` sweeps, measured: Jacobi (what it runs) against Gauss-Seidel and successive
over-relaxation in place, on one deck's chain (halved by the seat swap), each to the same error
bound; and Jacobi's sweeps on 1 and on 2 threads. CPU seconds of this process (user + sys).

    python bench/solve_sweeps.py [--ranks 3 --suits 4] [--tol 1e-13] [--omega 1.2 --omega 1.5]

The bound each stops at (docs/solve.md, "Error bound"):
- Jacobi: max over rows of P(N > t), a priori (the production iterate);
- Gauss-Seidel from zero: each value is the game's stopped at a stopping time tau >= t, the same
  for every value, so a chance is off by at most 1 - F (F the row's P(ended by tau));
- SOR (omega > 1): not monotone, so a posteriori: |error| <= K * max residual, K = max E[N]
  <= max S / (1 - rho) with rho the largest residual of the battles' equations (S = 1 + A S).
E[N]'s bound is the residual one for both in-place methods (one more pass at the end).
"""

from __future__ import annotations

import argparse
import resource
import time

import numba
import numpy as np
from numba import njit

import pipeline as war
from pipeline.solve.chain import GOES_ON, WIN0, WIN1
from pipeline.solve.iterate import iterate
from pipeline.solve.solver import QUANTILES, build_chain


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@njit(cache=True)
def in_place(kind, start, succ, X, omega):
    """One sweep in place over rows in index order: X[r] = (1 - omega) X[r] + omega (b + A X)[r]
    for F, W0, W1, S; returns max(1 - F) and the largest change."""
    worst = 0.0
    change = 0.0
    for r in range(kind.shape[0]):
        kd = kind[r]
        if kd != GOES_ON:
            X[r, 0] = 1.0
            X[r, 1] = 1.0 if kd == WIN0 else 0.0
            X[r, 2] = 1.0 if kd == WIN1 else 0.0
            X[r, 3] = 1.0
            continue
        a, b = start[r], start[r + 1]
        f = w0 = w1 = sn = 0.0
        for e in range(a, b):
            code = succ[e]
            y = code >> 1
            f += X[y, 0]
            if code & 1:
                w0 += X[y, 2]
                w1 += X[y, 1]
            else:
                w0 += X[y, 1]
                w1 += X[y, 2]
            sn += X[y, 3]
        d = b - a
        new = (f / d, w0 / d, w1 / d, 1.0 + sn / d)
        for m in range(4):
            v = (1.0 - omega) * X[r, m] + omega * new[m]
            if abs(v - X[r, m]) > change:
                change = abs(v - X[r, m])
            X[r, m] = v
        if 1.0 - X[r, 0] > worst:
            worst = 1.0 - X[r, 0]
    return worst, change


@njit(cache=True)
def residuals(kind, start, succ, X):
    """The largest residual of the chances' equations and of the battles' (S = 1 + A S)."""
    rc = rn = 0.0
    for r in range(kind.shape[0]):
        if kind[r] != GOES_ON:
            continue
        a, b = start[r], start[r + 1]
        w0 = w1 = sn = 0.0
        for e in range(a, b):
            code = succ[e]
            y = code >> 1
            w0 += X[y, 2] if code & 1 else X[y, 1]
            w1 += X[y, 1] if code & 1 else X[y, 2]
            sn += X[y, 3]
        d = b - a
        rc = max(rc, abs(w0 / d - X[r, 1]), abs(w1 / d - X[r, 2]))
        rn = max(rn, abs(1.0 + sn / d - X[r, 3]))
    return rc, rn


def in_place_solve(chain, omega, tol, most=100_000):
    """Sweeps in place until the chances' bound is under tol: (sweeps, chance bound, E[N] bound, X)."""
    X = np.zeros((chain.rows, 4))
    for sweeps in range(1, most + 1):
        worst, change = in_place(chain.kind, chain.start, chain.succ, X, omega)
        if not np.isfinite(change) or change > 1e6:
            break  # diverged (over-relaxation of these chains does: see docs/solve.md)
        if omega == 1.0:
            if worst <= tol:
                break
        elif change <= tol:  # cheap screen, then the a posteriori bound
            rc, rn = residuals(chain.kind, chain.start, chain.succ, X)
            if rn < 1 and X[:, 3].max() / (1.0 - rn) * rc <= tol:
                break
    rc, rn = residuals(chain.kind, chain.start, chain.succ, X)
    if not (rn < 1 and np.all(np.isfinite(X)) and X[:, 3].min() >= 0):
        return sweeps, np.inf, np.inf, X  # diverged: no bound
    k = X[:, 3].max() / (1.0 - rn)
    chance = worst if omega == 1.0 else k * rc
    return sweeps, chance, k * rn, X


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=3)
    parser.add_argument("--suits", type=int, default=4)
    parser.add_argument("--tol", type=float, default=1e-13)
    parser.add_argument("--omega", type=float, action="append", default=None, help="over-relaxations to try [1.05, 1.2]")
    args = parser.parse_args()
    rules = war.build_rules("classic", {"ranks": args.ranks, "suits": args.suits, "war_down": 0})
    chain = build_chain(rules)
    print(f"{args.suits}x{args.ranks}: {chain.rows:,} rows, {chain.succ.shape[0]:,} moves "
          f"(chain {chain.seconds:.1f} s CPU)")
    weights = np.bincount(chain.deal_rows, minlength=chain.rows).astype(np.float64)
    live = np.ones(chain.rows, np.bool_)
    iterate(chain, live, 1e-3, 3, QUANTILES, 10_000, weights)  # compile
    in_place_solve(chain, 1.0, 1e-3, most=2)
    in_place_solve(chain, 1.2, 1e-3, most=2)
    rows, flips = chain.deal_rows, chain.deal_flips

    def seat0(X, w0, w1):  # the deck's P(seat 0 wins): a deal dealt as its row's twin takes W1
        return float(np.mean(np.where(flips, X[rows, w1], X[rows, w0])))
    for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        numba.set_num_threads(threads)
        began, wall = cpu(), time.perf_counter()
        it = iterate(chain, live, args.tol, 10**6, QUANTILES, 10_000, weights)
        spent, walled = cpu() - began, time.perf_counter() - wall
        print(f"Jacobi, {threads} thread(s): {it['sweeps']} sweeps, {spent:.2f} s CPU, {walled:.2f} s wall, "
              f"bound {it['worst']:.2g}, P(seat 0) {seat0(np.stack([it['W0'], it['W1']], 1), 0, 1):.15g}")
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for omega in [1.0] + (args.omega or [1.05, 1.2]):
        began = cpu()
        sweeps, chance, battles, X = in_place_solve(chain, omega, args.tol)
        spent = cpu() - began
        print(f"{'Gauss-Seidel' if omega == 1.0 else f'SOR omega={omega}'}: {sweeps} sweeps, {spent:.2f} s CPU, "
              f"bound {chance:.2g} on chances, {battles:.2g} on E[N], P(seat 0) {seat0(X, 1, 2):.15g}")
    print(f"max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
