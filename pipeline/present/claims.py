"""The report's claims of a difference, judged together.

A report states some twenty findings; judged each at 95 %, about one in twenty claims that a
seat has an advantage, that a rule set lasts longer or that the first battle is a war more
often than chance would be chance itself. So a finding that claims a difference names its test
(a key and a two-sided p-value from its query's counts) and the report holds it only when it
survives Holm's step-down correction over every claim the report makes: the chance that any
claim of the report is chance is then at most ALPHA (docs/decisions.md says why Holm).

The findings are made twice over the same rows (findings.all_findings): the first pass gathers
the claims they test (`Judge.holds` records each p-value), the second, after `Judge.settle`,
words each finding by whether its claim holds. A number of a rule set that plays every deal is
exact, and a difference between exact numbers is a fact: it is stated, never tested.
"""

from __future__ import annotations

import functools
import math

import numpy as np

ALPHA = 0.05

# The fewest games that end whose median has a 95% interval: the widest interval of order
# statistics, the shortest game to the longest, holds the median with chance 1 - 2 / 2**n, at
# least 95% from 6 games on (96.9%); of 5 it is 93.75%, of one game no interval at all. A median
# of fewer has no interval, and no comparison of lengths is made with it. The named queries
# median_interval and rule_set_pairs apply the same rule at their own z (null bounds below it).
MEDIAN_GAMES = 6


def _two_sided(z: float) -> float:
    """The two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


# Up to this many trials a share is tested exactly (p_share) and shown with the interval that test
# inverts (exact_interval); beyond, by the score test and Wilson's interval, which invert each other
# too, and whose p-value is then within a few per cent of the exact one
EXACT_TRIALS = 10_000


@functools.lru_cache(maxsize=64)
def _log_choose(n: int) -> np.ndarray:
    """log C(n, i), i = 0 .. n (made once for each n: an interval's bisection asks it ninety times)."""
    head = math.lgamma(n + 1)
    return np.array([head - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in range(n + 1)])


def _tails(k: int, n: int, p: float) -> tuple[float, float]:
    """P(X <= k) and P(X >= k) of a binomial of n trials of chance p."""
    if p <= 0:
        return 1.0, 1.0 if k == 0 else 0.0
    if p >= 1:
        return (1.0 if k == n else 0.0), 1.0
    i = np.arange(n + 1)
    pmf = np.exp(_log_choose(n) + i * math.log(p) + (n - i) * math.log1p(-p))
    return min(1.0, float(pmf[:k + 1].sum())), min(1.0, float(pmf[k:].sum()))  # numpy sums pairwise


def p_share(k: int, n: int, p0: float) -> float:
    """The two-sided test of `k` successes in `n` against the share `p0`: exact up to
    EXACT_TRIALS (twice the smaller binomial tail, the test whose acceptance region is the
    Clopper-Pearson interval exact_interval shows), else the score test (whose is Wilson's).
    The score test alone was anti-conservative on few games: 6 wins of 6 gave p = 0.014 where
    the exact p is 0.031, and a report claimed a seat's advantage from 6 games."""
    if n <= 0 or not 0 < p0 < 1:
        return 1.0
    if n > EXACT_TRIALS:
        return _two_sided((k / n - p0) / math.sqrt(p0 * (1 - p0) / n))
    below, above = _tails(k, n, p0)
    return min(1.0, 2 * min(below, above))


def exact_interval(k: int, n: int, alpha: float = ALPHA) -> tuple[float, float]:
    """The Clopper-Pearson interval of k successes in n at level 1 - alpha: the shares p0 that
    p_share's exact test keeps (both tails above alpha / 2), by bisection to 1e-12."""
    def solve(tail) -> float:  # the p where tail(p) = alpha / 2, tail rising in p
        lo, hi = 0.0, 1.0
        for _ in range(45):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if tail(mid) < alpha / 2 else (lo, mid)
        return (lo + hi) / 2
    low = 0.0 if k == 0 else solve(lambda p: _tails(k, n, p)[1])
    high = 1.0 if k == n else 1 - solve(lambda q: _tails(n - k, n, q)[1])
    return low, high


def p_two_shares(k1: int, n1: int, k2: int, n2: int) -> float:
    """The pooled two-proportion z-test of k1/n1 against k2/n2."""
    if n1 <= 0 or n2 <= 0:
        return 1.0
    pooled = (k1 + k2) / (n1 + n2)
    spread = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
    if spread <= 0:
        return 1.0 if k1 / n1 == k2 / n2 else 0.0
    return _two_sided((k1 / n1 - k2 / n2) / math.sqrt(spread))


def p_medians(a: tuple[float, float, float], b: tuple[float, float, float], z: float = 1.96) -> float:
    """Two medians, each (median, ci_low, ci_high) with its distribution-free interval at level z,
    compared as normal estimates whose standard error is the interval's half-width over z (an
    exact median, of every deal, has an interval of no width)."""
    se = math.hypot((a[2] - a[1]) / (2 * z), (b[2] - b[1]) / (2 * z))
    if se == 0:
        return 1.0 if a[0] == b[0] else 0.0
    return _two_sided((a[0] - b[0]) / se)


def holm(p: dict) -> dict:
    """Holm's step-down adjusted p-values of `p` (key -> p-value): the i-th smallest of m is
    multiplied by m - i + 1, each at least the one before, at most 1."""
    adjusted, running = {}, 0.0
    m = len(p)
    for i, (key, value) in enumerate(sorted(p.items(), key=lambda kv: kv[1])):
        running = max(running, min(1.0, (m - i) * value))
        adjusted[key] = running
    return adjusted


class Judge:
    """The claims of one report: `holds(key, p)` is asked by a finding for each difference it
    would claim; before `settle` it records p (and answers as one test at ALPHA would), after
    it answers whether the claim survives Holm's correction over every claim settled."""

    def __init__(self) -> None:
        self.p: dict = {}
        self.adjusted: dict | None = None

    def holds(self, key, p: float) -> bool:
        if self.adjusted is None:
            self.p[key] = p
            return p < ALPHA
        return self.adjusted.get(key, p) < ALPHA  # a claim judged alone: Holm's correction of one p is p

    def settle(self, stated) -> None:
        """Judge together the claims of `stated` (the keys of the findings the report states)."""
        self.p = {k: v for k, v in self.p.items() if k in set(stated)}
        self.adjusted = holm(self.p)

    def caveat(self, *keys) -> str:
        """Words for a claim that the report does not make although one of its tests alone
        would pass: ` (alone beyond chance, not among the report's 14 claims)`; else ""."""
        if self.adjusted is None or not any(self.p.get(k, 1.0) < ALPHA <= self.adjusted.get(k, 1.0) for k in keys):
            return ""
        return f" (alone beyond chance, not among the report's {self.claims} claims judged together)"

    @property
    def claims(self) -> int:
        return len(self.p)

    def values(self, key) -> dict:
        """A claim's p-value and its Holm-adjusted one, for a finding's values."""
        return {"p": self.p.get(key), "p_holm": (self.adjusted or {}).get(key)}
