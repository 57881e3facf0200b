"""Exact values of a chain in rationals (docs/solve.md, "Fractions").

Each row says x_i = sum_j a_ij x_j + b_i, a_ij = 1/D for each of its D successors (a successor
that is a row's twin gives its W1 to the row's W0 and back). Two ways:

- `solve_exact` (the default, to about 10^5 rows): refine the float solution in exact integer
  arithmetic (the residual of the balance equations computed exactly, the correction solved in
  floats, about 40 bits more a step), read each value as the simplest fraction near it, and keep
  the fractions only when they satisfy every balance equation exactly. The equations have one
  solution (the chain is transient on the rows solved), so fractions that satisfy them are the
  values: certified, whatever the floats were.
- `solve_by_elimination` (chains not halved, a check in the tests): Gaussian elimination in
  Fractions, each row substituted into the rows that still name it, then solved back.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .chain import GOES_ON, WIN0, WIN1

FLOAT_BITS = 60  # the residual is scaled to this many bits before the float solve
MOST_STEPS = 40  # refinement steps before giving up (about 40 bits each)
GUESS_BITS = 16  # bits of max E[N] allowed for when guessing how many bits of a value are right


def elimination_order(chain):
    """The rows with the most uneven piles first: they lead to few others, so eliminating them
    early keeps the rows short (1 suit of 6 ranks: 4.2 s of CPU against 20 s in index order and
    over 60 s with the even piles first; docs/solve.md)."""
    import numpy as np

    k = chain.ids // chain.sequences + 1
    return np.argsort(-np.abs(2 * k - chain.cards), kind="stable")


def solve_by_elimination(chain, rows_solved, sure, interrupted=lambda: None, order=None):
    """Exact (P(seat 0 wins), P(seat 1 wins), E[battles], E[cards laid]) of every row in
    `rows_solved` (the rows that can end), as lists of Fractions indexed like the rows (None
    elsewhere; the expectations None where the game may never end, `sure` False). Only for a
    chain not halved (build_chain(halve=False)): each value's equations stand alone there."""
    if chain.halved:
        raise ValueError("elimination solves a chain whose rows are not halved by the seat swap")
    kind, laid, start, succ = chain.kind, chain.laid, chain.start, chain.succ // 2
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


class NotCertified(Exception):
    """The refinement found no fractions that satisfy every balance equation within its steps."""


def _constants(chain, chances, sure):
    """Each row's b: (W0, W1, N, L) of a battle that ends the game, (0, 0, 1, laid) of one that
    goes on; zero where the value is not solved (chances off the rows that can end, N and L off
    the rows that surely end)."""
    kind = chain.kind
    goes_on = kind == GOES_ON
    C = np.zeros((chain.rows, 4), np.int64)
    C[:, 0] = kind == WIN0
    C[:, 1] = kind == WIN1
    C[:, 2] = 1
    C[:, 3] = chain.laid
    C[:, :2] *= chances[:, None]
    C[:, 2:] *= sure[:, None]
    return C, goes_on


def _residual(X, s, C, chain, goes_on, on):
    """D_i * 2^s * (b_i + (A x)_i - x_i) for x = X / 2^s, exactly (object arrays of ints), as a
    (rows, 4) object array; zero where a value is not solved."""
    start, succ = chain.start, chain.succ
    ys, flips = succ >> 1, (succ & 1).astype(bool)
    gathered = X[ys]  # (moves, 4)
    gathered[flips, 0], gathered[flips, 1] = X[ys[flips], 1], X[ys[flips], 0]
    D = np.diff(start).astype(object)
    R = np.zeros(X.shape, object)
    rows = np.flatnonzero(goes_on & (D > 0))
    if rows.size:
        sums = np.add.reduceat(gathered, start[rows], axis=0)
        d = D[rows][:, None]
        R[rows] = d * (C[rows].astype(object) << s) + sums - d * X[rows]
    ends = np.flatnonzero(~goes_on)
    R[ends] = (C[ends].astype(object) << s) - X[ends]
    R[~on] = 0
    return R


def _recover(X, s, on, bits):
    """The simplest fractions within about 2^-bits of X / 2^s, as (column, Q, Y) with every
    value Y/Q: one common denominator for the two chances (a twin swaps them), one for N, one
    for L. Each value is tried first on the denominator found so far (most share it) while that
    is well within the bits known, else read alone as the simplest fraction near it (which
    needs about twice its denominator's bits); the common one is the least common multiple."""
    out = []
    largest = 1 << max(bits // 2 - 2, 1)
    half = 1 << (s - 1)
    for columns in ((0, 1), (2,), (3,)):
        Q = 1
        found: dict[tuple[int, int], tuple[int, int]] = {}  # (row, column) -> (numerator, denominator)
        for m in columns:
            for r in np.flatnonzero(on[:, m]).tolist():
                x = X[r, m]
                if Q.bit_length() < bits - 8:
                    n = (x * Q + half) >> s  # round(x * Q / 2^s)
                    if abs(x * Q - (n << s)) << bits <= Q << s:
                        found[r, m] = n, Q
                        continue
                f = Fraction(x, 1 << s).limit_denominator(largest)
                found[r, m] = f.numerator, f.denominator
                Q = Q * f.denominator // math.gcd(Q, f.denominator)
                if Q.bit_length() > 4 * bits:
                    raise NotCertified
        for m in columns:
            col = np.zeros(X.shape[0], object)
            rows = np.flatnonzero(on[:, m]).tolist()
            col[rows] = [found[r, m][0] * (Q // found[r, m][1]) for r in rows]
            out.append((m, Q, col))
    return out


def _certified(recovered, C, chain, goes_on, on) -> bool:
    """Whether the fractions satisfy every balance equation exactly: D_i Y_i = D_i b_i Q + the
    sum of the successors' Y (a twin's chances swapped); Y_i = b_i Q where the battle ends."""
    Y = np.zeros((chain.rows, 4), object)
    Q = [1] * 4
    for m, q, col in recovered:
        Y[:, m], Q[m] = col, q
    if Q[0] != Q[1]:
        return False
    start, succ = chain.start, chain.succ
    ys, flips = succ >> 1, (succ & 1).astype(bool)
    gathered = Y[ys]
    gathered[flips, 0], gathered[flips, 1] = Y[ys[flips], 1], Y[ys[flips], 0]
    D = np.diff(start)
    rows = np.flatnonzero(goes_on & (D > 0))
    Qs = np.array(Q, dtype=object)
    if rows.size:
        sums = np.add.reduceat(gathered, start[rows], axis=0)
        d = D[rows].astype(object)[:, None]
        bad = d * Y[rows] - d * C[rows].astype(object) * Qs - sums
        if np.any((bad != 0) & on[rows]):
            return False
    ends = np.flatnonzero(~goes_on)
    bad = Y[ends] - C[ends].astype(object) * Qs
    return not np.any((bad != 0) & on[ends])


def solve_exact(chain, chances, sure, floats, interrupted=lambda: None, tol: float = 2.0**-45):
    """Exact (P(seat 0 wins), P(seat 1 wins), E[battles], E[cards laid]) of every row, as lists
    of Fractions indexed like the rows (None where not solved: chances off the rows that can end
    (`chances`), expectations where the game may never end), by refining `floats` (the four
    float values side by side) until the fractions near them are certified (the module's
    docstring). Raises NotCertified after MOST_STEPS steps."""
    from .iterate import affine_sweep, blocks_of

    on = np.stack([chances, chances, sure, sure], axis=1)
    C, goes_on = _constants(chain, chances, sure)
    s = FLOAT_BITS
    X = np.zeros((chain.rows, 4), object)
    X[on] = [int(v) for v in np.rint(np.where(np.isfinite(floats), floats, 0.0)[on] * 2.0**s).tolist()]
    bounds = blocks_of(chain.start)
    D = np.maximum(np.diff(chain.start), 1).astype(np.float64)
    for _ in range(MOST_STEPS):
        interrupted()
        R = _residual(X, s, C, chain, goes_on, on)
        big = max((abs(v).bit_length() for v in R.ravel().tolist()), default=0)
        # about the bits of X / 2^s that are right: |error| <= max E[N] * |residual| (a guess
        # of E[N] within 2^GUESS_BITS; the certification decides, not this)
        bits = s + 1 if big == 0 else s - big - GUESS_BITS
        if bits >= 2 * GUESS_BITS:
            try:
                recovered = _recover(X, s, on, bits)
            except NotCertified:
                recovered = None
            if recovered is not None and _certified(recovered, C, chain, goes_on, on):
                return _fractions(recovered, chain.rows, on)
        if big == 0:
            raise NotCertified
        shift = big - FLOAT_BITS  # the residual R = D 2^s r scaled to FLOAT_BITS bits
        scaled = np.array([float(v >> shift if shift >= 0 else v << -shift) for v in R.ravel().tolist()]
                          ).reshape(R.shape) / D[:, None]
        # scaled = 2^(s - shift) r, so the correction is delta * 2^(shift - s)
        delta = _solve_float(chain, scaled, chances, sure, bounds, tol, affine_sweep)
        if shift <= 0:
            X = (X << -shift) + _ints(delta)
            s -= shift
        else:
            X = X + _ints(delta * 2.0**shift)
    raise NotCertified


def _ints(values) -> np.ndarray:
    """Floats rounded to Python ints, as an object array of the same shape."""
    out = np.empty(values.shape, object)
    out.ravel()[:] = [int(v) for v in np.rint(values).ravel().tolist()]
    return out


def _solve_float(chain, c, chances, sure, bounds, tol, affine_sweep, most_sweeps: int = 100_000):
    """x = c + A x in floats by Jacobi sweeps from zero, until a sweep changes nothing by more
    than `tol` of the largest value."""
    X, nX = np.zeros(c.shape), np.zeros(c.shape)
    for _ in range(most_sweeps):
        change = affine_sweep(chain.start, chain.succ, c, X, nX, chances, sure, bounds)
        X, nX = nX, X
        if change <= tol * max(float(np.abs(X).max()), 1e-300):
            break
    return X


def _fractions(recovered, rows, on) -> list[list]:
    values: list[list] = [[None] * rows for _ in range(4)]
    for m, q, col in recovered:
        column = values[m]
        for r in np.flatnonzero(on[:, m]).tolist():
            column[r] = Fraction(int(col[r]), q)
    return values
