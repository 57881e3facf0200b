"""What a variant's section of the report found, in words: three to five sentences computed from
the report's named queries, each stating its number with its 95% interval and naming the query
that gives it, so a reader gets the point before the charts and can check it with `war query`.

A sentence only says what its numbers support. A claim of a difference (a seat's advantage, a
rule set longer than another, the first battle a war more or less often than chance, the top
cards deciding, a policy beating another) is a test the report judges with all its others
(claims.Judge: Holm's correction), so that a report of twenty findings does not state one by
chance; otherwise the sentence says the data cannot tell. Two rule sets' lengths are the
comparisons table's to judge (comparisons.py, a Holm family of its own): a sentence comparing
them says the table's verdict on the pair, so the report never gives a pair two. A rule set
that plays every deal (RuleSetInfo.all_deals) has exact numbers: its sentences give fractions
of the deals with no interval, and a difference between exact numbers is a fact, stated
without a test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction

import pyarrow as pa

from ..model.names import short_policies
from .claims import ALPHA, EXACT_TRIALS, MEDIAN_GAMES, Judge, exact_interval, p_medians, p_share, p_two_shares
from .comparisons import capped, chosen, judged, seating_pairs
from .report import FEW_GAMES, ReportData, RuleSetInfo, by_rank_variants

MOST = 5


@dataclass(frozen=True)
class Finding:
    """One sentence, the named query whose rows give its numbers, and those numbers exactly."""

    text: str
    query: str
    values: dict = field(default_factory=dict)
    claims: tuple = ()  # the keys of the differences it tested (claims.Judge)


# ----------------------------------------------------------------------------- how numbers read

def share(x: float) -> str:
    """A share as a percentage: one decimal, two below 1% (so 0.4% is not shown as 0%)."""
    return f"{100 * x:.2f}%" if 0 < x < 0.01 else f"{100 * x:.1f}%"


def interval(lo: float, hi: float, small: bool = False) -> str:
    """A share's interval in percentage points, `[49.6, 51.0]`."""
    digits = 2 if small else 1
    return f"[{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def bound(x: float, up: bool) -> str:
    """A bound of an interval at a share's edge, rounded away from the edge (a lower bound down,
    an upper up) to the first decimal that keeps it off the edge: 0.99981 is `99.98%`, never
    `100.0%`, which would read as exact."""
    gap = 100 * (x if up else 1 - x)
    digits = max(1, math.ceil(-math.log10(gap))) if gap > 0 else 1
    scaled = 100 * x * 10 ** digits
    value = (math.ceil(scaled - 1e-9) if up else math.floor(scaled + 1e-9)) / 10 ** digits
    return f"{value:.{digits}f}%"


def share_with_interval(x: float, lo: float, hi: float) -> str:
    """A share with its interval, `50.3% [49.6, 51.0]`; a share of all or none with the one
    bound its interval has, `100% (>= 99.98%)`."""
    if x >= 1 and lo < 1:
        return f"100% (≥ {bound(lo, False)})"
    if x <= 0 < hi:
        return f"0% (≤ {bound(hi, True)})"
    return f"{share(x)} {interval(lo, hi, 0 < x < 0.01 or 0 < hi < 0.01)}"


def fraction(k: int, n: int) -> str:
    """An exact share as a reader takes it in: `2/11` when it is a small fraction, else
    `184,636 of 369,272`."""
    f = Fraction(int(k), int(n)) if n else Fraction(0)
    return f"{f.numerator}/{f.denominator}" if 1 < f.denominator <= 100 else f"{int(k):,} of {int(n):,}"


def exact_share(k: int, n: int) -> str:
    """An exact share, with no interval: `18.2% (exactly 2/11)`, `100% (all 67,200)`."""
    if n and k == n:
        return f"100% (all {int(n):,})"
    if not k:
        return f"0% (none of {int(n):,})"
    return f"{share(k / n)} (exactly {fraction(k, n)})"


def share_said(row: dict, exact: bool, k: str, n: str, key: str = "share") -> str:
    """A row's share as the report says it: exact (a fraction of every deal) or with its interval."""
    if exact:
        return exact_share(row[k], row[n])
    return share_with_interval(row[key], row["ci_low"], row["ci_high"])


def exactly_shown(row: dict, k: str, n: str) -> dict:
    """`row` as a sentence that tests its share shows it: up to EXACT_TRIALS with the exact
    (Clopper-Pearson) interval that the exact test inverts, in place of the query's Wilson
    interval, so that the interval leaves the tested share out exactly when the test alone
    rejects it (5 wins of 5 showed "(>= 56.5%)" beside "no advantage found")."""
    if not 0 < (row.get(n) or 0) <= EXACT_TRIALS or row.get(k) is None:
        return row
    low, high = exact_interval(int(row[k]), int(row[n]))
    return {**row, "ci_low": low, "ci_high": high}


def battles(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"


def battles_with_interval(row: dict, exact: bool = False) -> str:
    """A median length with its 95% interval, `500 [480, 520]`; exact, `500 (exact)`; from
    fewer games that end than a 95% interval of the median needs (too_few), none:
    `500 (1 game: no interval)`."""
    if exact:
        return f"{battles(row['median_battles'])} (exact)"
    if too_few(row):
        return f"{battles(row['median_battles'])} ({no_interval(row.get('ended'))})"
    return f"{battles(row['median_battles'])} [{battles(row['ci_low'])}, {battles(row['ci_high'])}]"


def too_few(row: dict, key: str = "ended") -> bool:
    """Whether a median_interval row has too few games that end for a 95% interval of the median
    (MEDIAN_GAMES, the query's own least n at its default z = 1.96, where its bounds are null):
    said as too few rather than as a missing number."""
    n = row.get(key)
    return n is not None and n < MEDIAN_GAMES


def no_interval(n: int | None) -> str:
    """The words for a median of too few games for an interval: `1 game: no interval`."""
    if n == 1:
        return "1 game: no interval"
    return f"{n or 0:,} games: too few for an interval"


def _bounds(row: dict, exact: bool) -> tuple[float, float, float]:
    """A median row as (median, low, high): an exact median has no interval."""
    m = row["median_battles"]
    return (m, m, m) if exact else (m, row["ci_low"], row["ci_high"])


def times(r: float) -> str:
    """How much longer or shorter a ratio of lengths is, in one style for every ratio: `8%
    shorter than` (0.92), `50% longer than`, `2.5 times as long as`; a percentage under 10 keeps
    a decimal (`0.4% longer`, never `0% longer`)."""
    if r >= 2:
        return f"{r:.1f} times as long as"
    d = 100 * abs(r - 1)
    said = f"{d:.0f}%" if d >= 9.5 else f"{d:.1f}%"
    return f"{said} longer than" if r > 1 else f"{said} shorter than"


def pair_row(data: ReportData, a: str, b: str) -> dict | None:
    """The rule_set_pairs row of rule sets `a` and `b`, turned to compare `a` with `b` (its
    median_z > 0: a's games tend to be longer), with the comparisons table's judgement of their
    lengths (comparisons.judged: Holm over every test of the table): `table_held`, whether the
    table tells them apart, `table_p` and `table_p_holm`, its test's p-values, `table_tests`, how
    many tests the table judges together. A finding comparing the two follows that judgement, so
    that the report says one thing of a pair, not one verdict in the findings and another in the
    table."""
    rows = data.rows("rule_set_pairs")
    for row in rows:
        if (row["rule_set_a"], row["rule_set_b"]) in ((a, b), (b, a)):
            p, adjusted = judged(rows, frozenset(chosen(data)), seating_pairs(data))
            key = (row["rule_set_a"], row["rule_set_b"], "median")
            out = dict(row)
            if (row["rule_set_a"], row["rule_set_b"]) == (b, a):
                out["median_z"] = None if row["median_z"] is None else -row["median_z"]
                out["median_ratio"] = 1 / row["median_ratio"] if row["median_ratio"] else None
            out.update(table_held=adjusted.get(key, 1.0) < ALPHA, table_p=p.get(key), table_p_holm=adjusted.get(key),
                       table_tests=len(p))
            return out
    return None


def ratio(a: dict, b: dict, judge: Judge | None = None, key=None, exact: tuple[bool, bool] = (False, False),
          pair: dict | None = None) -> tuple[str, float]:
    """How `a`'s median length compares with `b`'s, as words their numbers support, and the
    ratio of the medians. Two exact medians differ as they are; otherwise a difference is the
    comparisons table's verdict where `pair` (pair_row's, a against b) carries it (a test of
    ranks, paired by deal where they share deals, judged among the table's tests: the finding
    makes no claim of its own), else a claim (`key`) that `judge` holds or not, tested by ranks
    (`pair`'s median_p) or, without a row, by the medians' intervals. A difference the ranks
    find whose medians go the other way (or are equal) is said as both."""
    r = a["median_battles"] / b["median_battles"]
    (ma, _, _), (mb, _, _) = _bounds(a, exact[0]), _bounds(b, exact[1])
    if _too_few_to_compare(a, b, exact):
        return "too few games that end to be compared with", r
    if pair is not None and not all(exact) and capped(pair):  # the games that end leave out the longest
        return f"not compared ({capped(pair).removesuffix(': lengths not compared')}) with", r
    if all(exact):
        differs, longer = ma != mb, ma > mb
    elif pair is not None and "table_held" in pair:
        differs, longer = pair["table_held"], (pair.get("median_z") or 0) > 0
        if not differs:  # as the table says it: not a finding that they are alike
            return "not told apart from", r
        if longer != (ma > mb) or ma == mb:  # the ranks and the medians disagree
            median = "as long as" if ma == mb else times(ma / mb)
            return f"{'longer' if longer else 'shorter'} by ranks, though at the median {median}", r
    else:
        judge = judge or Judge()
        if pair is not None and pair.get("median_p") is not None:
            differs = judge.holds(key, pair["median_p"])
            longer = (pair.get("median_z") or 0) > 0
            differs = differs and longer == (ma > mb) and ma != mb  # the ranks and the medians agree
        else:
            differs = judge.holds(key, p_medians(_bounds(a, exact[0]), _bounds(b, exact[1])))
            longer = ma > mb
    if differs:
        return times(ma / mb), r
    return "about as long as", r


def _too_few_to_compare(a: dict, b: dict, exact: tuple[bool, bool]) -> bool:
    """Whether two medians cannot be compared: one of them (not exact) is of too few games that
    end to have an interval (too_few), so no difference of them is a finding, nor is their
    likeness."""
    return (not exact[0] and too_few(a)) or (not exact[1] and too_few(b))


def _by_table(pair: dict | None, exact: tuple[bool, bool]) -> bool:
    """Whether ratio() says the comparisons table's verdict on a pair (not a claim of the findings')."""
    return pair is not None and "table_held" in pair and not all(exact) and not _pair_too_few(pair) \
        and not capped(pair)


def _pair_too_few(pair: dict) -> bool:
    """Whether a rule_set_pairs row compares lengths of too few games that end (too_few)."""
    return too_few(pair, "ended_a") or too_few(pair, "ended_b")


def _table_said(pairs: list[dict]) -> str:
    """The words that say a comparison follows the comparisons table's verdict."""
    if not pairs:
        return ""
    tests = pairs[0]["table_tests"]
    return (f" ({'told' if len(pairs) == 1 else 'each told'} apart or not as the comparisons table judges "
            f"{'the pair' if len(pairs) == 1 else 'its pair'}: by ranks, among the table's {tests} tests)")


# ----------------------------------------------------------------------------- the sentences

def _by_rules(data: ReportData, query: str, variant: str | None = None) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in data.rows(query, variant):
        out.setdefault(r["rule_set"], []).append(r)
    return out


def _reference(data: ReportData) -> RuleSetInfo | None:
    """The rule set other variants are compared with: Classic War's default rules, else its
    first rule set."""
    classic = data.rule_sets_of("classic")
    return next((r for r in classic if r.plays_defaults), classic[0] if classic else None)


def _claimed(judge: Judge, *keys) -> dict:
    """The p-values of a finding's claims, for its values."""
    return {"claims": {repr(k): judge.values(k) for k in keys}} if keys else {}


def length(data: ReportData, variant: str, infos: list[RuleSetInfo], judge: Judge) -> list[Finding]:
    """The first rule set's median length (against Classic War's, for another variant), then
    the other rule sets' against it."""
    medians = {r["rule_set"]: r for r in data.rows("median_interval") if r["median_battles"] is not None}
    base = infos[0]
    first = medians.get(base.name)
    if first is None:
        return []
    exact = data.is_exact
    who = f"{base.title} games" if len(infos) == 1 else f"Games of {base.label}"
    over = " over every deal" if exact(base.name) else ""
    text = f"{who} that end last {battles_with_interval(first, exact(base.name))} battles at the median{over}"
    text += _unended(first, base)
    values = {"rule_set": base.name, "median_battles": first["median_battles"], "ci_low": first["ci_low"],
              "ci_high": first["ci_high"], "ended": first["ended"], "cycles": first["cycles"],
              "capped": first["capped"], "exact": exact(base.name)}
    keys, tabled = [], []
    reference = _reference(data)
    if variant != "classic" and reference is not None and reference.name in medians:
        other = medians[reference.name]
        key = ("median", base.name, reference.name)
        both = (exact(base.name), exact(reference.name))
        pair = pair_row(data, base.name, reference.name)
        words, r = ratio(first, other, judge, key, both, pair)
        values.update(reference=reference.name, reference_median=other["median_battles"], ratio=r)
        if _by_table(pair, both):
            tabled.append(pair)
            values["table"] = _table_values(pair)
        elif not all(both) and not _too_few_to_compare(first, other, both) and not (pair and capped(pair)):
            keys.append(key)
        text += f", {words} Classic War's {battles_with_interval(other, exact(reference.name))}{_table_said(tabled)}"
    out = [Finding(text + ".", "median_interval", {**values, **_claimed(judge, *keys)}, tuple(keys))]
    others = [(info, medians[info.name]) for info in infos[1:] if info.name in medians]
    if others:
        parts, values, keys, tabled = [], {"rule_set": base.name, "others": {}}, [], []
        for info, row in others:
            key = ("median", info.name, base.name)
            both = (exact(info.name), exact(base.name))
            pair = pair_row(data, info.name, base.name)
            words, r = ratio(row, first, judge, key, both, pair)
            parts.append(f"{info.label} {battles_with_interval(row, exact(info.name))}{_unended(row, info)}, "
                         f"{words} {base.label}")
            values["others"][info.name] = {"median_battles": row["median_battles"], "ci_low": row["ci_low"],
                                           "ci_high": row["ci_high"], "ratio": r, "exact": exact(info.name)}
            if _by_table(pair, both):
                tabled.append(pair)
                values["others"][info.name]["table"] = _table_values(pair)
            elif not all(both) and not _too_few_to_compare(row, first, both) and not (pair and capped(pair)):
                keys.append(key)
        out.append(Finding("At the median: " + "; ".join(parts) + _table_said(tabled) + ".", "median_interval",
                           {**values, **_claimed(judge, *keys)}, tuple(keys)))
    return out


def _unended(row: dict, info: RuleSetInfo) -> str:
    """The games a median leaves out, as what is known of them: a cycle never ends (a position
    repeats), a capped game was stopped at the battle cap (whether it would end is not known)."""
    total = row["cycles"] + row["capped"] + row["ended"]
    parts = []
    if row["cycles"]:
        parts.append(f"{share(row['cycles'] / total)} never end: a position repeats")
    if row["capped"]:
        parts.append(f"{share(row['capped'] / total)} {_stopped(info)}")
    if not parts:
        return ""
    return f" ({'; '.join(parts)}; {'neither is' if len(parts) > 1 else 'they are not'} counted)"


def _stopped(info: RuleSetInfo | None) -> str:
    """Capped games as what is known of them: `were stopped at the cap of 50 battles`."""
    cap = (info.rules or {}).get("max_battles") if info is not None else None
    return f"were stopped at the cap of {int(cap):,} battles" if cap else "were stopped at the battle cap"


def _table_values(pair: dict) -> dict:
    """The comparisons table's judgement of a pair's lengths, for a finding's values."""
    return {"rule_set_a": pair["rule_set_a"], "rule_set_b": pair["rule_set_b"], "held": pair["table_held"],
            "p": pair["table_p"], "p_holm": pair["table_p_holm"], "tests": pair["table_tests"]}


ENDINGS = {"draw": "end in a draw", "capped": "were stopped at the battle cap", "cycle": "never end: a position repeats"}


def outcomes(data: ReportData, variant: str, infos: list[RuleSetInfo], judge: Judge) -> list[Finding]:
    """How games end: every game with a winner, or each rule set's most common other ending."""
    rows = _by_rules(data, "outcome_interval", variant)
    wins = {name: next(r for r in rs if r["outcome"] == "win") for name, rs in rows.items()}
    if all(w["ended"] == w["games"] for w in wins.values()):
        games = sum(w["games"] for w in wins.values())
        if all(data.is_exact(name) for name in wins):
            return [Finding(f"Every one of the {games:,} deals ends with a winner.", "outcome_interval",
                            {"games": games, "exact": True})]
        least = min(wins.values(), key=lambda w: w["games"])  # the widest interval
        if len(wins) == 1:
            text = f"All {games:,} games end with a winner: {share_with_interval(1.0, least['ci_low'], 1.0)}."
        else:  # each rule set's own bound: the fewest games' is the lowest, and holds of every one
            text = (f"All {games:,} games of the {len(wins)} rule sets end with a winner: 100% "
                    f"(≥ {bound(least['ci_low'], False)}) of each rule set's games, the bound of the fewest, "
                    f"{least['rule_set']}'s {least['games']:,}.")
        return [Finding(text, "outcome_interval", {"games": games, "ci_low": least["ci_low"],
                                                   "rule_set": least["rule_set"]})]
    parts, values = [], {}
    for info in infos:
        others = [r for r in rows.get(info.name, []) if r["outcome"] != "win" and r["ended"]]
        if not others:
            continue
        top = max(others, key=lambda r: r["ended"])
        exact = data.is_exact(info.name)
        noun = "deals" if exact else "games"
        who = f"{info.label} {noun}" if len(infos) > 1 else f"{info.title} {noun}"
        ending = _stopped(info) if top["outcome"] == "capped" else ENDINGS.get(top["outcome"], top["outcome"])
        parts.append(f"{share_said(top, exact, 'ended', 'games')} of {who} {ending}")
        values[info.name] = {k: top[k] for k in ("outcome", "share", "ci_low", "ci_high", "ended", "games")}
        values[info.name]["exact"] = exact
    text = "; ".join(parts)
    return [Finding(text[0].upper() + text[1:] + ".", "outcome_interval", values)]


def seats(data: ReportData, variant: str, infos: list[RuleSetInfo], judge: Judge) -> list[Finding]:
    """Whether a seat of the first rule set whose seats play alike wins more (or less) than its
    fair share: exactly, over every deal, or as claims judged with the report's others, every
    seat one (two seats: one claim, seat 1's share being 1 - seat 0's). Where no seat is told
    apart, the sentence says how large an advantage the intervals leave room for."""
    alike = [i for i in infos if all(len(set(s)) <= 1 for s in i.seatings)]
    if not alike:
        return []
    name = alike[0].name
    rows = [r for r in _by_rules(data, "seat_win_interval", variant).get(name, []) if r["share"] is not None]
    if not rows:
        return []
    if not data.is_exact(name):
        rows = [exactly_shown(r, "wins", "decided_games") for r in rows]
    best, worst = max(rows, key=lambda r: r["share"]), min(rows, key=lambda r: r["share"])
    fair = best["fair_share"]
    where = f" under {alike[0].label}" if len(infos) > 1 else ""
    exact = data.is_exact(name)
    tested = rows[:1] if len(rows) == 2 else rows
    keys = [] if exact else [("seat", name, r["seat"]) for r in tested]
    if exact:
        players = best["players"]
        above, below = best["wins"] * players > best["decided_games"], worst["wins"] * players < worst["decided_games"]
        row = best if above else worst if below else best
    else:
        held = {r["seat"]: judge.holds(("seat", name, r["seat"]), p_share(r["wins"], r["decided_games"], fair))
                for r in tested}
        if len(rows) == 2:  # one test for both seats: seat 1's share is 1 - seat 0's
            held[rows[1]["seat"]] = held[rows[0]["seat"]]
        ups = [r for r in rows if held.get(r["seat"]) and r["share"] > fair]
        downs = [r for r in rows if held.get(r["seat"]) and r["share"] < fair]
        above, below = bool(ups), bool(downs)
        row = max(ups, key=lambda r: r["share"]) if ups else min(downs, key=lambda r: r["share"]) if downs else best
    decided = "decided deals" if exact else "decided games"
    if above:
        verdict = f"more than the fair {share(fair)}: an advantage"
    elif below:
        verdict = f"less than the fair {share(fair)}: a disadvantage"
    elif exact:
        verdict = f"the fair {share(fair)} exactly: no advantage"
    else:
        room = max(r["ci_high"] for r in rows) - fair
        of = f" under {alike[0].label}" if len(infos) > 1 else ""
        first = f" (the first of the section's {len(infos)} rule sets; the others' are not bounded here)" \
            if len(infos) > 1 else ""
        verdict = (f"no advantage found: no seat's share{of} is told apart from the fair {share(fair)}"
                   f"{judge.caveat(*keys)}; any advantage{of} is under {math.ceil(1000 * room - 1e-9) / 10:.1f} "
                   f"points{first}")
    text = f"Seat {row['seat']}{where} wins {share_said(row, exact, 'wins', 'decided_games')} of {decided}, {verdict}."
    values = {k: row[k] for k in ("rule_set", "seat", "share", "ci_low", "ci_high", "fair_share")}
    if not exact and not above and not below:
        values["at_most"] = max(r["ci_high"] for r in rows) - fair
    return [Finding(text, "seat_win_interval", {**values, "exact": exact, **_claimed(judge, *keys)}, tuple(keys))]


def first_battle(data: ReportData, variant: str, infos: list[RuleSetInfo], judge: Judge) -> list[Finding]:
    """The first battle's war against its exact probability, for the first rule set; over every
    deal, its share is that probability. The probability is that of the top cards tying for the
    highest rank, the chance of a war only where cards compare by rank and a tie is a war: war
    knows that of its own families' rules alone (report.by_rank_variants), so a rule set of
    another family's gets its share and interval, compared with no chance."""
    name = infos[0].name
    row = next(iter(_by_rules(data, "first_battle_war_exact", variant).get(name, [])), None)
    if row is None:
        return []
    if data.is_exact(name):
        text = (f"{_under(infos)}the first battle is a war in {exact_share(row['first_battle_wars'], row['games'])} "
                f"of the deals.")
        text = text[0].upper() + text[1:]
        return [Finding(text, "first_battle_war_exact", {"rule_set": name, "share": row["share"], "exact": True,
                                                          "first_battle_wars": row["first_battle_wars"],
                                                          "games": row["games"]})]
    if infos[0].variant not in by_rank_variants():
        # war does not know this chance: a family of another package may compare cards or settle
        # a tie otherwise (a tie of ranks need not be a war): the share alone, compared with nothing
        text = (f"{_under(infos)}the first battle is a war in "
                f"{share_with_interval(row['share'], row['ci_low'], row['ci_high'])} "
                f"of games; war knows the chance of that only for its own families' rules, where cards compare "
                f"by rank and a tie is a war, so this share is not compared with chance.")
        text = text[0].upper() + text[1:]
        values = {k: row[k] for k in ("rule_set", "share", "ci_low", "ci_high")}
        return [Finding(text, "first_battle_war_exact", {**values, "exact": None, "chance_known": False})]
    if row["exact"] is None:
        return []
    key = ("first_battle", _first_battle_twin(data, name, row) or name)
    row = exactly_shown(row, "first_battle_wars", "games")
    if judge.holds(key, p_share(row["first_battle_wars"], row["games"], row["exact"])):
        verdict = "more often than chance says" if row["share"] > row["exact"] else "less often than chance says"
    else:
        verdict = "not told apart from what chance says" + judge.caveat(key)  # a failure to find, not a match
    text = (f"{_under(infos)}the first battle is a war in "
            f"{share_with_interval(row['share'], row['ci_low'], row['ci_high'])} "
            f"of games, {verdict} ({row['exact_fraction']} = {share(row['exact'])}).")
    text = text[0].upper() + text[1:]
    values = {k: row[k] for k in ("rule_set", "share", "ci_low", "ci_high", "exact")}
    return [Finding(text, "first_battle_war_exact", {**values, **_claimed(judge, key)}, (key,))]


def _first_battle_twin(data: ReportData, name: str, row: dict) -> str | None:
    """The earlier rule set whose first battles are this one's (`name`'s): it shares its deals
    (rule_set_pairs' paired) and its first battles' count, games and chance are the same. Classic
    War and Război deal alike and a first battle is the deal's: one test, which the judge counts
    once (the same key), not two claims from the same games."""
    paired = {r["rule_set_a"] for r in data.rows("rule_set_pairs") if r["paired"] and r["rule_set_b"] == name}
    for other in data.rows("first_battle_war_exact"):
        if other["rule_set"] == name:
            return None
        if other["rule_set"] in paired and all(other[k] == row[k] for k in ("first_battle_wars", "games", "exact")):
            return other["rule_set"]
    return None


def deal(data: ReportData, variant: str, infos: list[RuleSetInfo], judge: Judge) -> list[Finding]:
    """What the top cards dealt do to a seat's chances: the fewest against the most, among
    buckets of FEW_GAMES decided seats or more (those the chart joins)."""
    name = infos[0].name
    rows = [r for r in _by_rules(data, "deal_win_rate", variant).get(name, [])
            if r["by"] == "top_cards" and r["share"] is not None and r["decided_seats"] >= FEW_GAMES]
    if len(rows) < 2:
        return []
    low, high = min(rows, key=lambda r: r["low"]), max(rows, key=lambda r: r["low"])
    top_ranks = int(data.params.get("deal_win_rate", {}).get("top_ranks", "1"))
    card = "Ace" if top_ranks == 1 else f"card of the top {top_ranks} ranks"
    many = f"{high['low']} {card}s" if high["low"] != 1 else f"one {card}"
    none = "none" if low["low"] == 0 else f"{low['low']}"
    exact = data.is_exact(name)
    key = ("deal", name)
    keys = [] if exact else [key]
    if _one_view(high, low, _top_cards(data.rule_set(name), top_ranks)):
        return _one_estimate(high, low, many, name, exact, judge, key, _under(infos))
    if exact:
        a, b = high["wins"] * low["decided_seats"], low["wins"] * high["decided_seats"]
        differs = a != b
    else:
        differs = judge.holds(key, p_two_shares(high["wins"], high["decided_seats"], low["wins"], low["decided_seats"]))
    if differs and high["share"] > low["share"]:
        verdict = "the Aces count" if top_ranks == 1 else "the top cards count"
    elif differs:
        verdict = "fewer do better"
    else:
        verdict = "they win alike" if exact else "the data cannot tell them apart" + judge.caveat(*keys)
    decided = "decided deals" if exact else "decided games"
    text = (f"{_under(infos)}a seat dealt {many} wins {share_said(high, exact, 'wins', 'decided_seats')} of "
            f"{decided}, one dealt {none} {share_said(low, exact, 'wins', 'decided_seats')}: {verdict}.")
    text = text[0].upper() + text[1:]
    values = {"rule_set": name, "exact": exact,
              "most": {k: high[k] for k in ("low", "share", "ci_low", "ci_high")},
              "fewest": {k: low[k] for k in ("low", "share", "ci_low", "ci_high")}}
    return [Finding(text, "deal_win_rate", {**values, **_claimed(judge, *keys)}, tuple(keys))]


def _top_cards(info: RuleSetInfo, top_ranks: int) -> int | None:
    """How many cards of the top `top_ranks` ranks the deck holds (4 Aces of 4 suits)."""
    suits = (info.rules or {}).get("suits")
    return int(suits) * top_ranks if suits else None


def _under(infos: list[RuleSetInfo]) -> str:
    """Where a section holds several rule sets, the words that name the first, whose numbers a
    finding of one rule set gives: `Under classic war_down=1, `; else ""."""
    return f"Under {infos[0].label} (the first of the section's {len(infos)} rule sets), " if len(infos) > 1 else ""


def _one_view(high: dict, low: dict, top: int | None = None) -> bool:
    """Whether two buckets of a 2-player rule set are the same games seen from each seat: every
    decided game has one seat dealt the most and the other the fewest, the two together every top
    card of the deck (4 Aces and none, 3 and 1), so one's wins are the other's losses."""
    together = low["low"] == 0 or (top is not None and high["low"] + low["low"] == top)
    return (high.get("players") == 2 and together and high["decided_seats"] == low["decided_seats"]
            and high["wins"] + low["wins"] == high["decided_seats"])


def _one_estimate(high: dict, low: dict, many: str, name: str, exact: bool, judge: Judge, key,
                  under: str = "") -> list[Finding]:
    """The most against the fewest where they are the same games: one share, the seat dealt the
    most, against an even game (its claim a share against 50%, not two samples compared)."""
    if exact:
        differs = 2 * high["wins"] != high["decided_seats"]
    else:
        differs = judge.holds(key, p_share(high["wins"], high["decided_seats"], 0.5))
    if differs and high["share"] > 0.5:
        verdict = "more than half: the " + ("Aces count" if "Ace" in many else "top cards count")
    elif differs:
        verdict = "less than half: fewer do better"
    else:
        verdict = "not told apart from half" + ("" if exact else judge.caveat(key))
    decided = "decided deals" if exact else "decided games"
    other = "none" if low["low"] == 0 else f"{low['low']}"
    text = (f"{under}a seat dealt {many} (the other seat {other}: the same games from each side) wins "
            f"{share_said(high, exact, 'wins', 'decided_seats')} of its {high['decided_seats']:,} {decided}, "
            f"{verdict}.")
    text = text[0].upper() + text[1:]
    values = {"rule_set": name, "exact": exact, "one_view": True,
              "most": {k: high[k] for k in ("low", "share", "ci_low", "ci_high")},
              "fewest": {k: low[k] for k in ("low", "share", "ci_low", "ci_high")}}
    keys = [] if exact else [key]
    return [Finding(text, "deal_win_rate", {**values, **_claimed(judge, *keys)}, tuple(keys))]


def _both_seatings(row: dict) -> bool:
    """Whether a policy_matchup row pools both seatings played equally often (as a tournament
    plays them): each policy sat in seat 0 in as many games, so a seat's advantage falls on both
    alike and the pooled share is the policies'. Otherwise the seat and the policy are not told
    apart."""
    return row["games_a_seat0"] == row["games_b_seat0"] > 0


def matchups(data: ReportData, variant: str, infos: list[RuleSetInfo], judge: Judge) -> list[Finding]:
    """The tournament's most one-sided pairing, said as its numbers allow. Every pairing of the
    tournament (both seatings played equally often, _both_seatings) is a claim judged (the most
    one-sided is picked from all of them). Where no pairing is, a policy beating another is no
    claim: the most one-sided pairing is said as it was measured, one policy in each seat."""
    rows = [r for r in data.rows("policy_matchup", variant) if r["share_a"] is not None]
    if not rows:
        return []
    fair = [r for r in rows if _both_seatings(r)]
    if not fair:
        return _seated(data, rows)
    rows = fair
    keys, held = [], {}
    for r in rows:
        if not data.rules_exact(r["rules_id"]):
            key = ("matchup", r["rules_name"], r["policy_a"], r["policy_b"])
            keys.append(key)
            held[key] = judge.holds(key, p_share(r["wins_a"], r["decided_games"], 0.5))
    top = max(rows, key=lambda r: (abs(r["share_a"] - 0.5), r["policy_a"], r["policy_b"]))
    exact = data.rules_exact(top["rules_id"])
    a, b, p, lo, hi = top["policy_a"], top["policy_b"], top["share_a"], top["ci_low"], top["ci_high"]
    wins, decided = top["wins_a"], top["decided_games"]
    if p < 0.5:
        a, b, p, lo, hi, wins = b, a, 1 - p, 1 - hi, 1 - lo, top["wins_b"]
    names = short_policies(sorted({r[k] for r in rows for k in ('policy_a', 'policy_b')}))
    beats = 2 * wins != decided if exact else held[("matchup", top["rules_name"], top["policy_a"], top["policy_b"])]
    if beats:
        verdict = f"{names[a]} beats {names[b]}"
    elif exact:
        verdict = f"even the most one-sided pairing, {names[a]} against {names[b]}, wins exactly half"
    else:
        verdict = (f"even the most one-sided pairing, {names[a]} against {names[b]}, is not told apart from 50%"
                   f"{judge.caveat(('matchup', top['rules_name'], top['policy_a'], top['policy_b']))}")
    said = exact_share(wins, decided) if exact else share_with_interval(p, lo, hi)
    text = (f"In the tournament (both seatings played equally often) {verdict}: {said} of their {decided:,} "
            f"decided {'deals' if exact else 'games'}.")
    values = {"rules_name": top["rules_name"], "winner": a, "loser": b, "share": p, "ci_low": lo, "ci_high": hi,
              "exact": exact, "both_seatings": True}
    return [Finding(text, "policy_matchup", {**values, **_claimed(judge, *keys)}, tuple(keys))]


def _seated(data: ReportData, rows: list[dict]) -> list[Finding]:
    """The most one-sided pairing of policies not played in both seatings equally often, said as
    it was measured and claiming nothing of the policies: with one seating, seat 0 playing one
    policy against seat 1 playing the other, whose seat and policy cannot be told apart; with
    both, unequally, the pooled share, whose seat is not balanced out."""
    top = max(rows, key=lambda r: (abs(r["share_a"] - 0.5), r["policy_a"], r["policy_b"]))
    exact = data.rules_exact(top["rules_id"])
    names = short_policies(sorted({r[k] for r in rows for k in ('policy_a', 'policy_b')}))
    decided, noun = top["decided_games"], "deals" if exact else "games"
    values = {"rules_name": top["rules_name"], "policy_a": top["policy_a"], "policy_b": top["policy_b"],
              "games_a_seat0": top["games_a_seat0"], "games_b_seat0": top["games_b_seat0"], "exact": exact,
              "both_seatings": False}
    if top["games_a_seat0"] and top["games_b_seat0"]:  # both, unequally: A's pooled share
        said = exact_share(top["wins_a"], decided) if exact else \
            share_with_interval(top["share_a"], top["ci_low"], top["ci_high"])
        text = (f"{names[top['policy_a']]} against {names[top['policy_b']]} won {said} of their {decided:,} decided "
                f"{noun}, over seatings played unequally ({top['games_a_seat0']:,} games with "
                f"{names[top['policy_a']]} in seat 0, {top['games_b_seat0']:,} with {names[top['policy_b']]}): the "
                f"seat is not balanced out, so the seat and the policy cannot be told apart and no policy is said "
                f"to beat the other.")
        values.update(share=top["share_a"], ci_low=top["ci_low"], ci_high=top["ci_high"])
        return [Finding(text, "policy_matchup", values)]
    if top["games_a_seat0"]:  # one seating: policy a in seat 0
        first, second, wins = top["policy_a"], top["policy_b"], top["wins_a"]
        share, lo, hi = top["share_a"], top["ci_low"], top["ci_high"]
    else:
        first, second, wins = top["policy_b"], top["policy_a"], top["wins_b"]
        share, lo, hi = 1 - top["share_a"], 1 - top["ci_high"], 1 - top["ci_low"]
    said = exact_share(wins, decided) if exact else share_with_interval(share, lo, hi)
    text = (f"Seat 0 playing {names[first]} against seat 1 playing {names[second]} won {said} of their "
            f"{decided:,} decided {noun}; only this seating was played, so the seat and the policy cannot be told "
            f"apart and no policy is said to beat the other.")
    values.update(seat0=first, seat1=second, share=share, ci_low=lo, ci_high=hi)
    return [Finding(text, "policy_matchup", values)]


def jokers(data: ReportData, variant: str, infos: list[RuleSetInfo], judge: Judge) -> list[Finding]:
    """How often a Joker wins a war (depth 1 or more), for the first rule set with Jokers."""
    rows = [r for r in data.rows("joker_wars", variant) if r["war_depth"] == 1 and r["joker_share"] is not None]
    if not rows:
        return []
    row = rows[0]
    exact = data.is_exact(row["rule_set"])
    said = exact_share(row["joker_battles"], row["battles"]) if exact else \
        share_with_interval(row["joker_share"], row["ci_low"], row["ci_high"])
    text = f"A Joker wins {said} of the {row['battles']:,} battles with a single war"
    sets = list(dict.fromkeys(r["rule_set"] for r in rows))
    if len(sets) > 1 or len(infos) > 1:
        text += (f" under {row['rule_set']}" + (f" (the first of the {len(sets)} rule sets with such battles; each "
                                                 f"rule set's are in joker_wars)" if len(sets) > 1 else ""))
    text += "."
    values = {k: row[k] for k in ("rule_set", "joker_share", "ci_low", "ci_high")}
    return [Finding(text, "joker_wars", {**values, "exact": exact})]


ORDER = (length, outcomes, seats, matchups, jokers, first_battle, deal)


def findings(data: ReportData, variant: str, judge: Judge | None = None) -> list[Finding]:
    """The variant's findings, at most MOST, in ORDER; each claim of a difference judged by
    `judge` (by default alone, as one test at 95%: all_findings judges a report's together)."""
    judge = judge or Judge()
    infos = [r for r in data.rule_sets_of(variant) if not r.counted]  # counts alone have their exact block
    out: list[Finding] = []
    if not infos:
        return out
    picked = chosen(data)
    left_out = [i for i in infos if i.name in picked]
    infos = [i for i in infos if i.name not in picked]
    if left_out:
        out.append(_chosen_note(left_out, picked, bool(infos)))
    if not infos:
        return out
    for make in ORDER:
        out += make(_sampled(data, picked), variant, infos, judge)
    return out[:MOST]


def _chosen_note(left_out: list[RuleSetInfo], picked: dict[str, str], others: bool) -> Finding:
    """What the findings say of rule sets whose games were chosen (comparisons.chosen): nothing
    inferred from them, and why."""
    hows = "; ".join(f"{i.name}: {picked[i.name]}" for i in left_out) if others or len(left_out) > 1 else \
        picked[left_out[0].name]
    which = "these games were" if not others else \
        f"the games of {', '.join(i.name for i in left_out)} {'was' if len(left_out) == 1 else 'were'}"
    text = (f"{which[0].upper() + which[1:]} chosen ({hows}), not drawn at random: they are not a sample of "
            f"their rules, so no seat advantage, comparison with chance or with other rules, nor length as an "
            f"estimate is inferred from them{' here' if not others else '; the findings below are of the rest'}; "
            f"the charts and tables describe these games alone.")
    return Finding(text, "outcomes", {"chosen": {i.name: picked[i.name] for i in left_out}})


def _sampled(data: ReportData, picked: dict[str, str]) -> ReportData:
    """`data` without the rows of the rule sets whose games were chosen (comparisons.chosen),
    so that no finding reads them (a section-wide row, a tournament's, goes with its rules)."""
    if not picked:
        return data
    gone = {i.rules_id for i in data.rule_sets if i.name in picked}
    results = {}
    for name, table in data.results.items():
        columns = set(table.column_names)
        if "rule_set" in columns:
            keep = [r not in picked for r in table.column("rule_set").to_pylist()]
        elif "rules_id" in columns:
            keep = [r not in gone for r in table.column("rules_id").to_pylist()]
        elif {"rule_set_a", "rule_set_b"} <= columns:
            keep = [a not in picked and b not in picked for a, b in zip(table.column("rule_set_a").to_pylist(),
                                                                         table.column("rule_set_b").to_pylist())]
        else:
            keep = None
        results[name] = table if keep is None else table.filter(pa.array(keep, pa.bool_()))
    return replace(data, results=results)


def all_findings(data: ReportData) -> tuple[dict[str, list[Finding]], Judge]:
    """Every variant's findings, their claims judged together (claims.Judge: Holm's correction
    over every claim the report states), and the judge that says how many there are."""
    judge = Judge()
    first = {v: findings(data, v, judge) for v in data.variants}
    judge.settle({key for found in first.values() for f in found for key in f.claims})
    return {v: findings(data, v, judge) for v in data.variants}, judge
