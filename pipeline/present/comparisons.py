"""The report's comparisons between rule sets: every pair of the dataset's rule sets (the rows of
the named query rule_set_pairs: paired by deal where the two share deals), five tests a pair
(the length by ranks, the mean length, a seat's share, draws, cycles), and which of them hold
when every test of the table is judged together (Holm's step-down correction, claims.holm), so
that "which rule set is longest, and how sure" is one line of one table.

The table is its own family of claims, apart from the findings': it grows with the square of the
rule sets, and a finding's sentence should not weaken because a dataset holds more of them. Each
family holds its family-wise error at 5% (docs/decisions.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .claims import ALPHA, holm
from .report import ReportData

QUERY = "rule_set_pairs"

# Each test: its p-value's column, and what it compares.
TESTS = (("median", "median_p", "length (ranks; ratio of medians)"), ("mean", "mean_p", "mean length"),
         ("seat", "seat_p", "seat's share of decided games"), ("draw", "draw_p", "draws"),
         ("cycle", "cycle_p", "cycles"))


@dataclass
class Cell:
    """One comparison of a pair as the table shows it: its estimate with its interval, what that
    says (the length's: which rule set is longer, or not told apart), whether the claim holds
    among the table's others, and its numbers exactly (for a test to read back)."""

    estimate: str
    holds: bool
    values: dict = field(default_factory=dict)
    words: str = ""

    @property
    def text(self) -> str:
        return f"{self.estimate}: {self.words}" if self.words else self.estimate


@dataclass
class Pair:
    a: str
    b: str
    paired: bool
    n: str
    cells: dict[str, Cell]
    row: dict = field(default_factory=dict)  # its rule_set_pairs row, every column exactly


@dataclass
class Comparisons:
    pairs: list[Pair]
    claims: int  # the tests judged together
    adjusted: dict  # (rule_set_a, rule_set_b, test) -> Holm-adjusted p
    seat: int | None


def judged(rows: list[dict]) -> tuple[dict, dict]:
    """Each test's p-value of `rows` (rule_set_pairs') by (rule_set_a, rule_set_b, test), and
    its Holm-adjusted value over all of them: a test with no p-value (a seat of rule sets of
    different players) is no claim."""
    p = {(r["rule_set_a"], r["rule_set_b"], test): r[column] for r in rows for test, column, _ in TESTS
         if r.get(column) is not None}
    return p, holm(p)


def ratio_said(r: float | None, lo: float | None, hi: float | None) -> str:
    if r is None:
        return "–"
    if lo is None or hi is None:
        return f"{r:.3f}"
    return f"{r:.3f} [{lo:.3f}, {hi:.3f}]"


def points(d: float | None, lo: float | None, hi: float | None) -> str:
    """A difference of shares in percentage points with its interval, `+1.2 [-0.3, +2.7] pts`."""
    if d is None:
        return "–"
    return f"{100 * d:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}] pts"


def comparisons(data: ReportData) -> Comparisons | None:
    """The comparisons table of the report, or None when the dataset has fewer than two rule
    sets with games (the report ran no rule_set_pairs)."""
    rows = data.rows(QUERY)
    if not rows:
        return None
    p, adjusted = judged(rows)
    pairs = []
    for r in rows:
        a, b = r["rule_set_a"], r["rule_set_b"]

        def held(test: str) -> bool:
            return adjusted.get((a, b, test), 1.0) < ALPHA

        def values(test: str, **more) -> dict:
            return {"p": p.get((a, b, test)), "p_holm": adjusted.get((a, b, test)), **more}

        cells = {}
        longer = (r["median_z"] or 0) > 0
        words = (f"{a if longer else b} longer" if held("median") else "not told apart") \
            if r["median_ratio"] is not None else ""
        cells["median"] = Cell(ratio_said(r["median_ratio"], r["median_ratio_low"], r["median_ratio_high"]),
                               held("median"), values("median", ratio=r["median_ratio"], low=r["median_ratio_low"],
                                                      high=r["median_ratio_high"], method=r["median_test"]), words)
        cells["mean"] = Cell(ratio_said(r["mean_ratio"], r["mean_ratio_low"], r["mean_ratio_high"]), held("mean"),
                             values("mean", ratio=r["mean_ratio"], low=r["mean_ratio_low"],
                                    high=r["mean_ratio_high"]))
        for test in ("seat", "draw", "cycle"):
            d, lo, hi = r[f"{test}_share_diff"], r[f"{test}_share_low"], r[f"{test}_share_high"]
            none = test != "seat" and r[f"{test}_share_a"] == 0 and r[f"{test}_share_b"] == 0
            text = "none in either" if none else points(d, lo, hi)
            cells[test] = Cell(text, held(test), values(test, diff=d, low=lo, high=hi,
                                                          share_a=r[f"{test}_share_a"], share_b=r[f"{test}_share_b"]))
        n = f"{r['pairs']:,} pairs" if r["paired"] else f"{r['games_a']:,} and {r['games_b']:,}"
        pairs.append(Pair(a, b, bool(r["paired"]), n, cells, r))
    seat = next((r["seat"] for r in rows if r.get("seat") is not None), None)
    return Comparisons(pairs, len(p), adjusted, seat)
