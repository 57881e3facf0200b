"""What a variant's section of the report found, in words: three to five sentences computed from
the report's named queries, each stating its number with its 95% interval and naming the query
that gives it, so a reader gets the point before the charts and can check it with `war query`.

A sentence only says what its interval supports: a seat has an advantage only when its
interval lies wholly above the fair share, a rule set is longer than another only when their
median intervals do not overlap, the first battle is a war "as chance says" when the exact
probability lies inside the observed interval. Otherwise the sentence says the data cannot tell.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model.rules import build_rules
from ..model.names import short_policies
from .report import FEW_GAMES, ReportData, RuleSetInfo

MOST = 5


@dataclass(frozen=True)
class Finding:
    """One sentence, the named query whose rows give its numbers, and those numbers exactly."""

    text: str
    query: str
    values: dict = field(default_factory=dict)


# ----------------------------------------------------------------------------- how numbers read

def share(x: float) -> str:
    """A share as a percentage: one decimal, two below 1% (so 0.4% is not shown as 0%)."""
    return f"{100 * x:.2f}%" if 0 < x < 0.01 else f"{100 * x:.1f}%"


def interval(lo: float, hi: float, small: bool = False) -> str:
    """A share's interval in percentage points, `[49.6, 51.0]`."""
    digits = 2 if small else 1
    return f"[{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def share_with_interval(x: float, lo: float, hi: float) -> str:
    return f"{share(x)} {interval(lo, hi, 0 < x < 0.01 or 0 < hi < 0.01)}"


def battles(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"


def battles_with_interval(row: dict) -> str:
    return f"{battles(row['median_battles'])} [{battles(row['ci_low'])}, {battles(row['ci_high'])}]"


def ratio(a: dict, b: dict) -> tuple[str, float]:
    """How `a`'s median length compares with `b`'s, as words the intervals support, and the
    ratio of the medians."""
    r = a["median_battles"] / b["median_battles"]
    if a["ci_high"] < b["ci_low"]:
        return f"{b['median_battles'] / a['median_battles']:.1f}x shorter than", r
    if a["ci_low"] > b["ci_high"]:
        return f"{r:.1f}x longer than", r
    return "about as long as", r


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
    default = build_rules("classic").options()
    return next((r for r in classic if r.rules == default), classic[0] if classic else None)


def length(data: ReportData, variant: str, infos: list[RuleSetInfo]) -> list[Finding]:
    """The first rule set's median length (against Classic War's, for another variant), then
    the other rule sets' against it."""
    medians = {r["rule_set"]: r for r in data.rows("median_interval") if r["median_battles"] is not None}
    base = infos[0]
    first = medians.get(base.name)
    if first is None:
        return []
    who = f"{base.title} games" if len(infos) == 1 else f"Games of {base.label}"
    text = f"{who} that end last {battles_with_interval(first)} battles at the median"
    unended = first["cycles"] + first["capped"]
    if unended:
        text += f" ({share(unended / (unended + first['ended']))} never end and are not counted)"
    values = {"rule_set": base.name, "median_battles": first["median_battles"], "ci_low": first["ci_low"],
              "ci_high": first["ci_high"], "ended": first["ended"], "cycles": first["cycles"],
              "capped": first["capped"]}
    reference = _reference(data)
    if variant != "classic" and reference is not None and reference.name in medians:
        other = medians[reference.name]
        words, r = ratio(first, other)
        text += f", {words} Classic War's {battles_with_interval(other)}"
        values.update(reference=reference.name, reference_median=other["median_battles"], ratio=r)
    out = [Finding(text + ".", "median_interval", values)]
    others = [(info, medians[info.name]) for info in infos[1:] if info.name in medians]
    if others:
        parts, values = [], {"rule_set": base.name, "others": {}}
        for info, row in others:
            words, r = ratio(row, first)
            parts.append(f"{info.label} {battles_with_interval(row)}, {words} {base.label}")
            values["others"][info.name] = {"median_battles": row["median_battles"], "ci_low": row["ci_low"],
                                               "ci_high": row["ci_high"], "ratio": r}
        out.append(Finding("At the median: " + "; ".join(parts) + ".", "median_interval", values))
    return out


ENDINGS = {"draw": "end in a draw", "capped": "stop at the battle cap", "cycle": "never end: a position repeats"}


def outcomes(data: ReportData, variant: str, infos: list[RuleSetInfo]) -> list[Finding]:
    """How games end: every game with a winner, or each rule set's most common other ending."""
    rows = _by_rules(data, "outcome_interval", variant)
    wins = {rid: next(r for r in rs if r["outcome"] == "win") for rid, rs in rows.items()}
    if all(w["ended"] == w["games"] for w in wins.values()):
        least = min(wins.values(), key=lambda w: w["games"])  # the widest interval
        games = sum(w["games"] for w in wins.values())
        return [Finding(f"All {games:,} games end with a winner: {share_with_interval(1.0, least['ci_low'], 1.0)}.",
                        "outcome_interval", {"games": games, "ci_low": least["ci_low"]})]
    parts, values = [], {}
    for info in infos:
        others = [r for r in rows.get(info.name, []) if r["outcome"] != "win" and r["ended"]]
        if not others:
            continue
        top = max(others, key=lambda r: r["ended"])
        who = f"{info.label} games" if len(infos) > 1 else f"{info.title} games"
        parts.append(f"{share_with_interval(top['share'], top['ci_low'], top['ci_high'])} of {who} "
                     f"{ENDINGS.get(top['outcome'], top['outcome'])}")
        values[info.name] = {k: top[k] for k in ("outcome", "share", "ci_low", "ci_high")}
    text = "; ".join(parts)
    return [Finding(text[0].upper() + text[1:] + ".", "outcome_interval", values)]


def seats(data: ReportData, variant: str, infos: list[RuleSetInfo]) -> list[Finding]:
    """Whether a seat of the first rule set whose seats play alike wins more (or less) than its
    fair share (in a seating of different policies, a seat's share is its policy's)."""
    alike = [i for i in infos if all(len(set(s)) <= 1 for s in i.seatings)]
    if not alike:
        return []
    rows = [r for r in _by_rules(data, "seat_win_interval", variant).get(alike[0].name, [])
            if r["share"] is not None]
    if not rows:
        return []
    best, worst = max(rows, key=lambda r: r["share"]), min(rows, key=lambda r: r["share"])
    fair = best["fair_share"]
    where = f" under {alike[0].label}" if len(infos) > 1 else ""
    if best["ci_low"] > fair:
        row, verdict = best, f"more than the fair {share(fair)}: an advantage"
    elif worst["ci_high"] < fair:
        row, verdict = worst, f"less than the fair {share(fair)}: a disadvantage"
    else:
        row, verdict = best, f"no advantage: every seat's interval holds the fair {share(fair)}"
    text = (f"Seat {row['seat']}{where} wins {share_with_interval(row['share'], row['ci_low'], row['ci_high'])} "
            f"of decided games, {verdict}.")
    return [Finding(text, "seat_win_interval", {k: row[k] for k in ("rule_set", "seat", "share", "ci_low",
                                                                     "ci_high", "fair_share")})]


def first_battle(data: ReportData, variant: str, infos: list[RuleSetInfo]) -> list[Finding]:
    """The first battle's war against its exact probability, for the first rule set."""
    row = next(iter(_by_rules(data, "first_battle_war_exact", variant).get(infos[0].name, [])), None)
    if row is None or row["exact"] is None:
        return []
    if row["ci_low"] <= row["exact"] <= row["ci_high"]:
        verdict = "as chance says"
    else:
        verdict = "more often than chance says" if row["ci_low"] > row["exact"] else "less often than chance says"
    text = (f"The first battle is a war in {share_with_interval(row['share'], row['ci_low'], row['ci_high'])} "
            f"of games, {verdict} ({row['exact_fraction']} = {share(row['exact'])}).")
    return [Finding(text, "first_battle_war_exact", {k: row[k] for k in ("rule_set", "share", "ci_low", "ci_high",
                                                                          "exact")})]


def deal(data: ReportData, variant: str, infos: list[RuleSetInfo]) -> list[Finding]:
    """What the top cards dealt do to a seat's chances: the fewest against the most, among
    buckets of FEW_GAMES decided seats or more (those the chart joins)."""
    rows = [r for r in _by_rules(data, "deal_win_rate", variant).get(infos[0].name, [])
            if r["by"] == "top_cards" and r["share"] is not None and r["decided_seats"] >= FEW_GAMES]
    if len(rows) < 2:
        return []
    low, high = min(rows, key=lambda r: r["low"]), max(rows, key=lambda r: r["low"])
    top_ranks = int(data.params.get("deal_win_rate", {}).get("top_ranks", "1"))
    card = "Ace" if top_ranks == 1 else f"card of the top {top_ranks} ranks"
    many = f"{high['low']} {card}s" if high["low"] != 1 else f"one {card}"
    none = "none" if low["low"] == 0 else f"{low['low']}"
    if high["ci_low"] > low["ci_high"]:
        verdict = "the Aces count" if top_ranks == 1 else "the top cards count"
    elif high["ci_high"] < low["ci_low"]:
        verdict = "fewer do better"
    else:
        verdict = "the data cannot tell them apart"
    text = (f"A seat dealt {many} wins {share_with_interval(high['share'], high['ci_low'], high['ci_high'])} of "
            f"decided games, one dealt {none} {share_with_interval(low['share'], low['ci_low'], low['ci_high'])}: "
            f"{verdict}.")
    return [Finding(text, "deal_win_rate", {"rule_set": infos[0].name,
                                             "most": {k: high[k] for k in ("low", "share", "ci_low", "ci_high")},
                                             "fewest": {k: low[k] for k in ("low", "share", "ci_low", "ci_high")}})]


def matchups(data: ReportData, variant: str, infos: list[RuleSetInfo]) -> list[Finding]:
    """The tournament's most one-sided pairing, said as its interval allows."""
    rows = [r for r in data.rows("policy_matchup", variant) if r["share_a"] is not None]
    if not rows:
        return []
    top = max(rows, key=lambda r: (abs(r["share_a"] - 0.5), r["policy_a"], r["policy_b"]))
    a, b, p, lo, hi = top["policy_a"], top["policy_b"], top["share_a"], top["ci_low"], top["ci_high"]
    if p < 0.5:
        a, b, p, lo, hi = b, a, 1 - p, 1 - hi, 1 - lo
    names = short_policies(sorted({r[k] for r in rows for k in ('policy_a', 'policy_b')}))
    if lo > 0.5:
        verdict = f"{names[a]} beats {names[b]}"
    else:
        verdict = f"even the most one-sided pairing, {names[a]} against {names[b]}, is not told apart from 50%"
    text = (f"In the tournament {verdict}: {share_with_interval(p, lo, hi)} of their "
            f"{top['decided_games']:,} decided games.")
    return [Finding(text, "policy_matchup", {"rules_name": top["rules_name"], "winner": a, "loser": b, "share": p,
                                              "ci_low": lo, "ci_high": hi})]


def jokers(data: ReportData, variant: str, infos: list[RuleSetInfo]) -> list[Finding]:
    """How often a Joker wins a war (depth 1 or more), for the first rule set with Jokers."""
    rows = [r for r in data.rows("joker_wars", variant) if r["war_depth"] == 1 and r["joker_share"] is not None]
    if not rows:
        return []
    row = rows[0]
    text = (f"A Joker wins {share_with_interval(row['joker_share'], row['ci_low'], row['ci_high'])} of the "
            f"{row['battles']:,} battles with a single war.")
    return [Finding(text, "joker_wars", {k: row[k] for k in ("rule_set", "joker_share", "ci_low", "ci_high")})]


ORDER = (length, outcomes, seats, matchups, jokers, first_battle, deal)


def findings(data: ReportData, variant: str) -> list[Finding]:
    """The variant's findings, at most MOST, in ORDER."""
    infos = [r for r in data.rule_sets_of(variant) if not r.counted]  # counts alone have their exact block
    out: list[Finding] = []
    if not infos:
        return out
    for make in ORDER:
        out += make(data, variant, infos)
    return out[:MOST]
