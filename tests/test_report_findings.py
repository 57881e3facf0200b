"""Each variant's section of the report opens with three to five sentences computed from the
data, each stating its number with its 95% interval and naming the query that gives it. The
numbers are checked against the same statistics computed here from the games files (pyarrow,
not DuckDB), and the words against the intervals: a sentence claims an advantage, a difference
or a departure from chance only when its interval supports it."""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from html.parser import HTMLParser
from pathlib import Path

import pyarrow as pa
import pytest
from scipy.stats import binomtest

from pipeline.jobs.generate import Plan, generate, make_plans
from pipeline.model.names import rule_set_names
from pipeline.model.rules import build_rules
from pipeline.storage.dataset import Dataset
from pipeline.present.findings import findings, ratio, share_with_interval
from pipeline.present.report import ReportData, RuleSetInfo, build_report_data
from pipeline.present.report_page import render_report
from reportkit import wilson
from rulekit import games_rows, quantile_cont

Z = 1.96
CLASSIC = build_rules("classic")
FIXED = build_rules("classic", {"pickup": "table_order", "max_battles": "400"})
STEAL = build_rules("steal")
RAZBOI = build_rules("razboi")


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    plans = [Plan(CLASSIC, 400), Plan(FIXED, 400), Plan(RAZBOI, 300),
             *make_plans([STEAL], games=150, tournament=["steal:always", "steal:never"])]
    out = tmp_path_factory.mktemp("findings") / "ds"
    generate(out, plans, seed=19)
    return out


@pytest.fixture(scope="module")
def data(root):
    return build_report_data(root)


@pytest.fixture(scope="module")
def by_rules(root):
    """Each rule set's games by its name (the tournament's two seatings apart), and each rules'
    games by rules_id (both seatings)."""
    names = rule_set_names(Dataset.open(root).manifest.rule_sets)
    out = defaultdict(list)
    for g in games_rows(root):
        out[names[g["game_id"] // 1_000_000_000]].append(g)
        out[g["rules_id"]].append(g)
    return dict(out)


FIXED_NAME = "classic pickup=table_order max_battles=400"
SEATING = "always vs never"  # the tournament's first rule set


def ended(games) -> list[int]:
    """The battles of the games that end: lengths are of those (cycles and capped games never end)."""
    return [g["battles"] for g in games if g["outcome"] in ("win", "draw")]


def median_interval(battles: list[int]) -> tuple[float, float, float]:
    """The median and its distribution-free 95% interval: the order statistics at ranks
    n/2 -+ z*sqrt(n)/2 (and + 1), counted from 1."""
    xs = sorted(battles)
    n = len(xs)
    low = max(1, math.floor(n / 2 - Z * math.sqrt(n) / 2))
    high = min(n, math.ceil(1 + n / 2 + Z * math.sqrt(n) / 2))
    return quantile_cont(xs, 0.5), xs[low - 1], xs[high - 1]


class Found(HTMLParser):
    """The findings of each section: (query, values, text, the command in its title)."""

    def __init__(self):
        super().__init__()
        self.section = None
        self.found: dict[str, list[dict]] = defaultdict(list)
        self.item = None
        self.in_code = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.section = a.get("id")
        elif tag == "li" and "data-values" in a:
            self.item = {"query": a["data-query"], "values": json.loads(a["data-values"]), "text": "", "code": ""}
        elif tag == "code" and self.item is not None:
            self.in_code = True
            self.item["command"] = a.get("title")

    def handle_data(self, text):
        if self.item is not None:
            self.item["code" if self.in_code else "text"] += text

    def handle_endtag(self, tag):
        if tag == "code":
            self.in_code = False
        elif tag == "li" and self.item is not None:
            self.found[self.section].append(self.item)
            self.item = None


@pytest.fixture(scope="module")
def found(data):
    parser = Found()
    parser.feed(render_report(data, "ds", None))
    return parser.found


def pct(x: float) -> str:
    return f"{100 * x:.2f}%" if 0 < x < 0.01 else f"{100 * x:.1f}%"


def test_each_variant_opens_with_three_to_five_findings_each_naming_its_query(found, data):
    assert set(found) == set(data.variants)
    for variant, items in found.items():
        assert 3 <= len(items) <= 5, (variant, items)
        for item in items:
            assert item["code"].strip() == item["query"]
            assert item["command"].startswith(f"war query ds {item['query']}")
            assert item["query"] in data.results
            # its interval, or the one bound an interval at a share's edge has
            assert re.search(r"\[[\d.,]+, [\d.,]+\]|\((≥|≤) [\d.]+%\)", item["text"]), item["text"]


def test_median_lengths_and_their_comparison(found, by_rules):
    steal = next(i for i in found["steal"] if i["query"] == "median_interval")
    m, lo, hi = median_interval(ended(by_rules[SEATING]))
    cm, clo, chi = median_interval(ended(by_rules["classic"]))
    v = steal["values"]
    assert (v["median_battles"], v["ci_low"], v["ci_high"]) == (m, lo, hi)
    assert v["reference_median"] == cm and v["ratio"] == pytest.approx(m / cm)
    assert steal["text"].startswith(f"Games of {SEATING} that end last {m:,.0f} [{lo:,}, {hi:,}] battles at the "
                                    "median")
    if hi < clo:  # the ranks test (rule_set_pairs) agrees where the intervals part this far
        assert f"{100 * (1 - m / cm):.0f}% shorter than Classic War's {cm:,.0f} [{clo:,}, {chi:,}]" in steal["text"]
    assert "x shorter" not in steal["text"]
    classic = [i for i in found["classic"] if i["query"] == "median_interval"]
    assert classic[0]["values"]["median_battles"] == cm
    other = classic[1]["values"]["others"][FIXED_NAME]
    fm, flo, fhi = median_interval(ended(by_rules[FIXED_NAME]))
    assert (other["median_battles"], other["ci_low"], other["ci_high"]) == (fm, flo, fhi)
    assert FIXED_NAME in classic[1]["text"]


def test_outcomes(found, by_rules):
    item = next(i for i in found["classic"] if i["query"] == "outcome_interval")
    games = by_rules[FIXED_NAME]
    counts = Counter(g["outcome"] for g in games)
    top = max((o for o in counts if o != "win"), key=lambda o: counts[o])
    v = item["values"][FIXED_NAME]
    lo, hi = wilson(counts[top], len(games))
    assert v["outcome"] == top and v["share"] == pytest.approx(counts[top] / len(games))
    assert (v["ci_low"], v["ci_high"]) == (pytest.approx(lo), pytest.approx(hi))
    assert f"{pct(counts[top] / len(games))} [" in item["text"]
    razboi = next(i for i in found["razboi"] if i["query"] == "outcome_interval")
    assert all(g["outcome"] == "win" for g in by_rules[RAZBOI.rules_id])
    assert razboi["text"].startswith(f"All {len(by_rules[RAZBOI.rules_id]):,} games end with a winner")
    assert razboi["values"]["ci_low"] == pytest.approx(wilson(300, 300)[0])


def shown_interval(k: int, n: int) -> tuple[float, float]:
    """The interval a tested share's sentence shows: up to 10,000 trials the exact one
    (Clopper-Pearson, scipy's), which the exact test inverts; beyond, Wilson's."""
    if n > 10_000:
        return wilson(k, n)
    ci = binomtest(k, n).proportion_ci(method="exact")
    return ci.low, ci.high


def test_seat_advantage_says_only_what_its_interval_supports(found, by_rules):
    # a seat of a seating of two policies wins by its policy: no seat finding for the tournament
    assert not any(i["query"] == "seat_win_interval" for i in found["steal"])
    for variant, name in (("razboi", "razboi"),):
        item = next(i for i in found[variant] if i["query"] == "seat_win_interval")
        decided = [g for g in by_rules[name] if g["outcome"] == "win"]
        wins = Counter(g["winner"] for g in decided)
        seat = item["values"]["seat"]
        lo, hi = shown_interval(wins[seat], len(decided))
        assert item["values"]["share"] == pytest.approx(wins[seat] / len(decided))
        assert (item["values"]["ci_low"], item["values"]["ci_high"]) == (pytest.approx(lo), pytest.approx(hi))
        text = item["text"]
        assert f"Seat {seat} wins {pct(wins[seat] / len(decided))} [{100 * lo:.1f}, {100 * hi:.1f}]" in text
        if lo <= 0.5 <= hi:
            assert "no advantage" in text and "an advantage" not in text
        else:
            assert ("an advantage" in text) == (lo > 0.5)


def test_first_battle_war_against_chance(found, by_rules):
    item = next(i for i in found["razboi"] if i["query"] == "first_battle_war_exact")
    games = by_rules[RAZBOI.rules_id]
    k = sum(g["first_battle_war"] for g in games)
    lo, hi = shown_interval(k, len(games))
    assert item["values"]["exact"] == pytest.approx(3 / 51)
    assert (item["values"]["ci_low"], item["values"]["ci_high"]) == (pytest.approx(lo), pytest.approx(hi))
    assert ("not told apart from what chance says" in item["text"]) == (lo <= 3 / 51 <= hi)
    assert "(3/51 = 5.9%)" in item["text"]


def test_the_tournament(found, by_rules):
    item = next(i for i in found["steal"] if i["query"] == "policy_matchup")
    decided = [g for g in by_rules[STEAL.rules_id] if g["outcome"] == "win"]
    always = sum(1 for g in decided if g["policies"][g["winner"]].startswith("steal:always"))
    p = always / len(decided)
    v = item["values"]
    winner_is_always = v["winner"].startswith("steal:always")
    share = p if winner_is_always else 1 - p
    assert v["share"] == pytest.approx(share)
    lo, hi = wilson(always if winner_is_always else len(decided) - always, len(decided))  # Wilson's, as the query
    assert (v["ci_low"], v["ci_high"]) == (pytest.approx(lo), pytest.approx(hi))
    assert ("beats" in item["text"]) == (v["ci_low"] > 0.5)
    assert f"of their {len(decided):,} decided games" in item["text"]


# ----------------------------------------------------------------------------- words follow intervals

def _data(results: dict[str, list[dict]], infos: list[RuleSetInfo]) -> ReportData:
    return ReportData("t", 0, "1", infos, {k: pa.Table.from_pylist(v) for k, v in results.items()}, {})


def _info(rules, label=None) -> RuleSetInfo:
    return RuleSetInfo(label or rules.label, rules.rules_id, rules.variant, rules.model_dump(mode="json"), (), 1000)


def _seat_rows(name, wins, decided):
    """The rows of seat_win_interval for two seats of the rule set `name`, seat 0 winning `wins`
    of `decided` games."""
    rows = []
    for seat, k in enumerate((wins, decided - wins)):
        lo, hi = wilson(k, decided)
        rows.append({"rule_set": name, "variant": "classic", "rules_id": CLASSIC.rules_id, "players": 2,
                     "seat": seat, "wins": k, "decided_games": decided, "share": k / decided, "ci_low": lo,
                     "ci_high": hi, "fair_share": 0.5})
    return rows


BASE = {"median_interval": [{"rule_set": "classic", "variant": "classic", "rules_id": CLASSIC.rules_id,
                             "ended": 1000, "cycles": 0, "capped": 0,
                             "median_battles": 200.0, "ci_low": 190, "ci_high": 210}],
        "outcome_interval": [{"rule_set": "classic", "variant": "classic", "rules_id": CLASSIC.rules_id,
                              "outcome": o, "games": 1000,
                              "ended": 1000 if o == "win" else 0, "share": 1.0 if o == "win" else 0.0,
                              "ci_low": 0.996 if o == "win" else 0.0, "ci_high": 1.0 if o == "win" else 0.004}
                             for o in ("win", "draw", "capped", "cycle")]}


def test_an_advantage_only_when_the_seat_clears_the_fair_share():
    """Alone (one claim, one test at 95%), a seat has an advantage exactly when its Wilson
    interval leaves the fair share out: the interval and the score test agree."""
    info = _info(CLASSIC)
    for wins, decided in ((503, 1000), (530, 4000), (2150, 4000), (500, 1000), (1870, 4000)):
        rows = _seat_rows("classic", wins, decided)
        said = findings(_data({**BASE, "seat_win_interval": rows}, [info]), "classic")
        text = next(f.text for f in said if f.query == "seat_win_interval")
        apart = rows[0]["ci_low"] > 0.5 or rows[0]["ci_high"] < 0.5
        best = max(rows, key=lambda r: r["share"])
        assert text.startswith(f"Seat {best['seat']} wins {pct(best['share'])} ["), text
        assert ("no advantage" in text) != apart, text
        assert ("an advantage" in text) == apart, text


def test_longer_only_when_the_median_intervals_part():
    a = {"median_battles": 300.0, "ci_low": 280, "ci_high": 320}
    assert ratio(a, {"median_battles": 200.0, "ci_low": 190, "ci_high": 210})[0] == "50% longer than"
    assert ratio(a, {"median_battles": 290.0, "ci_low": 270, "ci_high": 310})[0] == "about as long as"
    assert ratio({"median_battles": 50.0, "ci_low": 48, "ci_high": 52}, a)[0] == "83% shorter than"
    assert ratio(a, {"median_battles": 100.0, "ci_low": 95, "ci_high": 105})[0] == "3.0 times as long as"


def test_the_deal(found, root, by_rules):
    """The Aces dealt to a seat, counted from the deal events, against its wins: the finding's
    buckets are the fewest and the most Aces among those of 100 decided seats or more."""
    from rulekit import dataset_events

    item = next(i for i in found["razboi"] if i["query"] == "deal_win_rate")
    games = {g["game_id"]: g for g in by_rules["razboi"]}
    aces = {}
    for e in dataset_events(root):
        if e["game_id"] in games and e["kind"] == "deal":
            aces[(e["game_id"], e["seat"])] = sum(1 for c in e["cards"] if c // 4 == 12)
    decided, won = Counter(), Counter()
    for (gid, seat), n in aces.items():
        if games[gid]["outcome"] == "win":
            decided[n] += 1
            won[n] += games[gid]["winner"] == seat
    buckets = sorted(n for n in decided if decided[n] >= 100)
    v = item["values"]
    assert (v["fewest"]["low"], v["most"]["low"]) == (buckets[0], buckets[-1])
    for key, n in (("fewest", buckets[0]), ("most", buckets[-1])):
        lo, hi = wilson(won[n], decided[n])
        assert v[key]["share"] == pytest.approx(won[n] / decided[n])
        assert (v[key]["ci_low"], v[key]["ci_high"]) == (pytest.approx(lo), pytest.approx(hi))
    apart = v["most"]["ci_low"] > v["fewest"]["ci_high"]
    assert ("the Aces count" in item["text"]) == apart


# ----------------------------------------------------------------------------- a statistician signs (issue 51, item 4)

def test_no_advantage_found_says_how_large_one_could_be():
    """A failure to find an advantage is not its absence: the sentence bounds it from the intervals."""
    rows = _seat_rows("classic", 503, 1000)
    said = findings(_data({**BASE, "seat_win_interval": rows}, [_info(CLASSIC)]), "classic")
    text = next(f.text for f in said if f.query == "seat_win_interval")
    room = math.ceil(1000 * (max(shown_interval(r["wins"], r["decided_games"])[1] for r in rows) - 0.5)) / 10
    assert "no advantage found" in text and f"any advantage is under {room:.1f} points" in text, text


def test_a_share_at_its_edge_shows_its_bound():
    """All 20,000 games won: 100% with the Wilson interval's lower bound rounded down to the digit
    that keeps it off 100 (99.98%), never `100.0% [100.0, 100.0]`, which reads as exact."""
    lo, _ = wilson(20000, 20000)
    assert share_with_interval(1.0, lo, 1.0) == "100% (≥ 99.98%)"
    assert share_with_interval(0.0, 0.0, 1 - lo) == "0% (≤ 0.02%)"
    base = {**BASE, "outcome_interval": [dict(r, games=20000, ended=20000 if r["outcome"] == "win" else 0,
                                              ci_low=lo if r["outcome"] == "win" else 0.0)
                                         for r in BASE["outcome_interval"]],
            "seat_win_interval": _seat_rows("classic", 10000, 20000)}
    said = findings(_data(base, [_info(CLASSIC)]), "classic")
    text = next(f.text for f in said if f.query == "outcome_interval")
    assert "100% (≥ 99.98%)" in text and "[100.0, 100.0]" not in text, text


def test_ratios_read_alike():
    """A ratio of 1.08 is `7.4% shorter`, not `1.1x shorter`; every ratio in one style."""
    a = {"median_battles": 200.0, "ci_low": 198, "ci_high": 202}
    b = {"median_battles": 216.0, "ci_low": 214, "ci_high": 218}
    assert ratio(a, b)[0] == "7.4% shorter than"
    assert ratio(b, a)[0] == "8.0% longer than"
    assert "x " not in ratio({"median_battles": 100.0, "ci_low": 99, "ci_high": 101}, b)[0]


def test_two_views_of_the_same_games_are_one_estimate():
    """Two seats, 4 Aces and none: every decided game has one seat of each, so they are one share
    against an even game, not two samples."""
    rows = [{"rule_set": "classic", "variant": "classic", "rules_id": CLASSIC.rules_id, "players": 2, "by": "top_cards",
             "low": n, "high": n, "decided_seats": 400, "wins": k, "share": k / 400,
             "ci_low": wilson(k, 400)[0], "ci_high": wilson(k, 400)[1], "fair_share": 0.5}
            for n, k in ((0, 150), (4, 250))]
    data = _data({**BASE, "seat_win_interval": _seat_rows("classic", 500, 1000), "deal_win_rate": rows},
                 [_info(CLASSIC)])
    from pipeline.present.findings import deal
    from pipeline.present.claims import Judge
    judge = Judge()
    said = deal(data, "classic", [_info(CLASSIC)], judge)[0]
    assert "the same games" in said.text and "62.5% [" in said.text and "37.5%" not in said.text, said.text
    assert said.values["one_view"] and list(judge.p) == [("deal", "classic")]


def test_the_steal_chart_calls_a_policy_effect_a_policys(data):
    from pipeline.present.charts import rule_set_palette
    from pipeline.present.charts.all_variants import seat_advantage
    steal = seat_advantage(data, "steal", rule_set_palette(data, "steal"))
    assert "policy" in steal.title and "not a seat advantage" in steal.note
    classic = seat_advantage(data, "classic", rule_set_palette(data, "classic"))
    assert "policy" not in classic.title
