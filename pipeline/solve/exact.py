"""Exact values of a small chain in rationals, by Gaussian elimination (docs/solve.md).

Each row says x_i = sum_j a_ij x_j + b_i, a_ij = 1/D for each of its D successors. The rows are
eliminated one at a time, each substituted into the rows that still name it, then solved back
from the last: no pivoting is needed (every diagonal 1 - a_ii is positive, the chain being
transient on the rows solved) and every number stays an exact Fraction.
"""

from __future__ import annotations

from fractions import Fraction

from .chain import GOES_ON, WIN0, WIN1


def elimination_order(chain):
    """The rows with the most uneven piles first: they lead to few others, so eliminating them
    early keeps the rows short (1 suit of 6 ranks: 4.2 s of CPU against 20 s in index order and
    over 60 s with the even piles first; docs/solve.md)."""
    import numpy as np

    k = chain.ids // chain.sequences + 1
    return np.argsort(-np.abs(2 * k - chain.cards), kind="stable")


def solve_exact(chain, rows_solved, sure, interrupted=lambda: None, order=None):
    """Exact (P(seat 0 wins), P(seat 1 wins), E[battles], E[cards laid]) of every row in
    `rows_solved` (the rows that can end), as lists of Fractions indexed like the rows (None
    elsewhere; the expectations None where the game may never end, `sure` False)."""
    kind, laid, start, succ = chain.kind, chain.laid, chain.start, chain.succ
    solved = [bool(v) for v in rows_solved]
    if order is None:
        order = elimination_order(chain)
    order = [int(r) for r in order if solved[r]]
    coef: dict[int, dict[int, Fraction]] = {}
    rhs: dict[int, list] = {}
    preds: dict[int, set] = {r: set() for r in order}
    for r in order:
        kd = int(kind[r])
        if kd != GOES_ON:
            coef[r] = {}
            rhs[r] = [Fraction(int(kd == WIN0)), Fraction(int(kd == WIN1)), Fraction(1), Fraction(int(laid[r]))]
            continue
        a, b = int(start[r]), int(start[r + 1])
        share = Fraction(1, b - a)
        row: dict[int, Fraction] = {}
        for e in range(a, b):
            y = int(succ[e])
            if solved[y]:
                row[y] = row.get(y, 0) + share
        coef[r] = row
        rhs[r] = [Fraction(0), Fraction(0), Fraction(1), Fraction(int(laid[r]))]
        for y in row:
            if y != r:
                preds[y].add(r)
    done = set()
    for count, i in enumerate(order):
        if count % 256 == 0:
            interrupted()
        row_i, b_i = coef[i], rhs[i]
        self_loop = row_i.pop(i, None)
        if self_loop is not None:
            scale = 1 / (1 - self_loop)
            for j in row_i:
                row_i[j] *= scale
            b_i[:] = [v * scale for v in b_i]
        done.add(i)
        for p in preds.pop(i):
            if p in done:
                continue
            row_p = coef[p]
            a_pi = row_p.pop(i)
            for j, v in row_i.items():
                row_p[j] = row_p.get(j, 0) + a_pi * v
                if j != p:
                    preds[j].add(p)
            b_p = rhs[p]
            for m in range(4):
                b_p[m] += a_pi * b_i[m]
    values: list[list] = [[None] * chain.rows for _ in range(4)]
    for i in reversed(order):
        row_i, b_i = coef[i], rhs[i]
        for m in range(4):
            v = b_i[m]
            for j, a in row_i.items():
                v += a * values[m][j]
            values[m][i] = v
    for r in range(chain.rows):
        if solved[r] and not sure[r]:
            values[2][r] = values[3][r] = None
    return values
