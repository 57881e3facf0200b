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

from .claims import ALPHA, MEDIAN_GAMES, holm
from .report import ReportData, by_rank_variants

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


def judged(rows: list[dict], chosen_sets=frozenset(), seatings=frozenset()) -> tuple[dict, dict]:
    """Each test's p-value of `rows` (rule_set_pairs') by (rule_set_a, rule_set_b, test), and
    its Holm-adjusted value over all of them: a test with no p-value (a seat of rule sets of
    different players) is no claim, nor is a test of lengths where either rule set has too few
    games that end for an interval (few_ended), nor any test of a rule set whose games were
    chosen (`chosen_sets`, chosen(): not a sample of its rules), nor a share that no count could
    tell apart (untestable), nor a seat's share between two seatings of the same rules
    (`seatings`: pairs (a, b) whose difference is the policies', not the seat's)."""
    p = {(r["rule_set_a"], r["rule_set_b"], test): r[column] for r in rows for test, column, _ in TESTS
         if r.get(column) is not None and not (test in LENGTHS and (few_ended(r) or capped(r)))
         and r["rule_set_a"] not in chosen_sets and r["rule_set_b"] not in chosen_sets
         and not untestable(r, test) and not (test == "seat" and (r["rule_set_a"], r["rule_set_b"]) in seatings)}
    return p, holm(p)


def untestable(row: dict, test: str) -> bool:
    """Whether a share's test cannot reject whatever the games: none in either rule set, or all
    in both (draws or cycles none in either: p is 1 by construction). Counted in Holm's family it
    only weakened the tests that can (30 of a tournament's 75 tests were such)."""
    if test in LENGTHS:
        return False
    a, b = row.get(f"{test}_share_a"), row.get(f"{test}_share_b")
    return a is not None and b is not None and a == b and a in (0, 1)


def seating_pairs(data: ReportData) -> frozenset[tuple[str, str]]:
    """The pairs of rule sets that are two seatings of the same rules (a tournament's): a seat's
    share differs between them as the policies seated there differ."""
    by_name = {i.name: i for i in data.rule_sets}
    return frozenset((a.name, b.name) for a in by_name.values() for b in by_name.values()
                     if a.name != b.name and a.rules_id == b.rules_id and a.seatings != b.seatings)


LENGTHS = ("median", "mean")  # the tests of the games that end

# A rule set whose games compared were stopped at the battle cap this often or more has no length
# compared: the games that end leave out its longest, and the median of the rest is not its own.
CAPPED_SHARE = 0.01


def capped(row: dict) -> str:
    """Why a rule_set_pairs row's lengths are not compared, when a side's games were stopped at
    the cap CAPPED_SHARE of the time or more (`64.1% of b's games stopped at the cap`), else ""."""
    said = [f"{100 * row[f'capped_share_{side}']:.1f}% of {row[f'rule_set_{side}']}'s games"
            for side in ("a", "b") if (row.get(f"capped_share_{side}") or 0) >= CAPPED_SHARE]
    return f"{' and '.join(said)} stopped at the battle cap: lengths not compared" if said else ""


def few_ended(row: dict) -> bool:
    """Whether a rule_set_pairs row compares the lengths of too few games that end (fewer than
    MEDIAN_GAMES of either rule set): its medians have no 95% interval, so its ratios have none."""
    return any(row.get(k) is not None and row[k] < MEDIAN_GAMES for k in ("ended_a", "ended_b"))


def chosen(data: ReportData) -> dict[str, str]:
    """The rule sets whose games were chosen rather than drawn at random, each with how: a rule
    set that says so (RuleSetInfo.chosen, where the report knows it from its manifest entry:
    games taken from another dataset, `war generate --from`, perhaps by a condition, or explicit
    deals, `--deals`), and one whose games first_battle_war_exact finds not shuffled although
    its variant's deals would be (explicit deals). Their numbers describe those games alone: no
    share, length or difference of them is an estimate of their rules, nor a test."""
    out: dict[str, str] = {}
    known = set(by_rank_variants())
    first = {r["rule_set"]: r for r in data.rows("first_battle_war_exact")}
    for info in data.rule_sets:
        how = info.chosen
        row = first.get(info.name)
        if how:
            out[info.name] = str(how)
        elif (row is not None and row.get("exact") is None and info.variant in known and not info.all_deals
              and info.deals is None and not (info.rules or {}).get("hand_size")):
            out[info.name] = "explicit deals (`--deals`)"
    return out


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
    picked = chosen(data)
    seated = seating_pairs(data)
    p, adjusted = judged(rows, frozenset(picked), seated)
    pairs = []
    for r in rows:
        a, b = r["rule_set_a"], r["rule_set_b"]

        def held(test: str) -> bool:
            return adjusted.get((a, b, test), 1.0) < ALPHA

        def values(test: str, **more) -> dict:
            return {"p": p.get((a, b, test)), "p_holm": adjusted.get((a, b, test)), **more}

        cells = {}
        longer = (r["median_z"] or 0) > 0
        few = few_ended(r)
        if a in picked or b in picked:
            unjudged = "chosen games, not a sample: not compared"
        elif few:
            unjudged = f"{r['ended_a']:,} and {r['ended_b']:,} games that end: too few for an interval, not compared"
        else:
            unjudged = capped(r)
        words = unjudged or ((f"{a if longer else b} longer" if held("median") else "not told apart")
                             if r["median_ratio"] is not None else "")
        cut = bool(capped(r))  # no ratio said: the games that end leave out the longest
        few = few or cut
        low, high = (None, None) if few else (r["median_ratio_low"], r["median_ratio_high"])
        cells["median"] = Cell(ratio_said(None if cut else r["median_ratio"], low, high),
                               held("median"), values("median", ratio=r["median_ratio"], low=low,
                                                      high=high, method=r["median_test"]), words)
        low, high = (None, None) if few else (r["mean_ratio_low"], r["mean_ratio_high"])
        cells["mean"] = Cell(ratio_said(None if cut else r["mean_ratio"], low, high), held("mean"),
                             values("mean", ratio=r["mean_ratio"], low=low, high=high))
        for test in ("seat", "draw", "cycle"):
            d, lo, hi = r[f"{test}_share_diff"], r[f"{test}_share_low"], r[f"{test}_share_high"]
            none = test != "seat" and r[f"{test}_share_a"] == 0 and r[f"{test}_share_b"] == 0
            text = "none in either" if none else points(d, lo, hi)
            policies = test == "seat" and (a, b) in seated and d is not None
            cells[test] = Cell(text, held(test), values(test, diff=d, low=lo, high=hi,
                                                          share_a=r[f"{test}_share_a"], share_b=r[f"{test}_share_b"]),
                               "the seatings' policies differ: their effect, not the seat's" if policies else "")
        n = f"{r['pairs']:,} pairs" if r["paired"] else f"{r['games_a']:,} and {r['games_b']:,}"
        pairs.append(Pair(a, b, bool(r["paired"]), n, cells, r))
    seat = next((r["seat"] for r in rows if r.get("seat") is not None), None)
    return Comparisons(pairs, len(p), adjusted, seat)
