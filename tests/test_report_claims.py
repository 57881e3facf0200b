"""A report's claims of a difference are judged together (issue 46, item 5): Holm's correction
over every claim the findings make, the tests under it agreeing with the intervals the report
shows, a claim that one test alone would pass said as not made when the report's others
outweigh it, and the page saying so in one sentence."""

from __future__ import annotations

import math
import re

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.model.rules import build_rules
from pipeline.present.claims import ALPHA, EXACT_TRIALS, Judge, exact_interval, holm, p_medians, p_share, p_two_shares
from pipeline.present.findings import all_findings, findings
from pipeline.present.report import ReportData, RuleSetInfo
from pipeline.present.report_page import render_report
from reportkit import wilson

Z95 = 1.959963984540054  # the normal quantile of a two-sided 5% test


def test_holm_by_hand():
    """Sorted, the i-th smallest of m p-values is multiplied by m - i + 1, and an adjusted value
    is never below the one before it."""
    adjusted = holm({"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.005})
    assert adjusted == pytest.approx({"d": 0.02, "a": 0.03, "c": 0.06, "b": 0.06})
    assert holm({"x": 0.7, "y": 0.6}) == pytest.approx({"y": 1.0, "x": 1.0})
    assert holm({}) == {}


@given(st.dictionaries(st.integers(0, 50), st.floats(0, 1), min_size=1, max_size=30))
def test_holm_holds_no_more_than_each_test_alone_and_at_least_bonferroni(p):
    adjusted = holm(p)
    m = len(p)
    for key, value in p.items():
        assert value <= adjusted[key] <= 1.0
        assert adjusted[key] <= min(1.0, m * value) + 1e-12  # never stricter than Bonferroni
    order = sorted(p, key=p.get)
    assert all(adjusted[a] <= adjusted[b] for a, b in zip(order, order[1:]))


@settings(max_examples=300)
@given(st.integers(EXACT_TRIALS + 1, 200_000), st.data(), st.floats(0.05, 0.95))
def test_the_score_test_leaves_out_what_the_wilson_interval_leaves_out(n, data, p0):
    """Beyond EXACT_TRIALS, a seat's claim alone and the interval the report prints say the
    same: the score test rejects p0 at 5% exactly when the Wilson interval of the same level
    excludes p0."""
    k = data.draw(st.integers(0, n))
    lo, hi = wilson(k, n, Z95)
    z = abs(k / n - p0) / math.sqrt(p0 * (1 - p0) / n)
    if abs(z - Z95) > 1e-6:  # not on the boundary itself
        assert (p_share(k, n, p0) < ALPHA) == (p0 < lo or p0 > hi)


def test_a_share_of_few_games_is_tested_exactly():
    """The score test's normal tail was anti-conservative on few games: 6 wins of 6 gave p =
    0.014, and a report claimed an advantage of a seat from 6 games. Exact, twice the smaller
    tail, it is 2 P(6 of 6) = 2/64; the first battle's 202 wars of 3,000 against 3/51 is 0.056,
    where the score test said 0.048."""
    from scipy.stats import binom

    assert p_share(6, 6, 0.5) == pytest.approx(2 / 64, rel=1e-12)
    assert p_share(5, 6, 0.5) == pytest.approx(14 / 64, rel=1e-12)  # 2 P(5 or 6 of 6) = 2 (6 + 1) / 64
    assert p_share(3, 6, 0.5) == pytest.approx(1.0)
    central = 2 * min(binom.cdf(202, 3000, 3 / 51), binom.sf(201, 3000, 3 / 51))
    assert p_share(202, 3000, 3 / 51) == pytest.approx(central, rel=1e-9) and central > ALPHA
    assert p_share(0, 5, 3 / 51) == pytest.approx(1.0)  # 0 wars of 5 is the likeliest count
    assert p_share(1, 3, 1 / 3) == pytest.approx(1.0)


@settings(max_examples=200)
@given(st.integers(1, EXACT_TRIALS), st.data(), st.floats(0.02, 0.98))
def test_up_to_exact_trials_the_test_leaves_out_what_the_exact_interval_leaves_out(n, data, p0):
    """A sentence shows the Clopper-Pearson interval (scipy's, here) where the share is tested
    exactly: the test rejects p0 at 5% exactly when that interval leaves p0 out."""
    from scipy.stats import binomtest

    k = data.draw(st.integers(0, n))
    ci = binomtest(k, n, p0).proportion_ci(method="exact")
    low, high = exact_interval(k, n)
    assert (low, high) == (pytest.approx(ci.low, abs=1e-9), pytest.approx(ci.high, abs=1e-9))
    if min(abs(p0 - ci.low), abs(p0 - ci.high)) > 1e-9:  # not on the boundary itself
        assert (p_share(k, n, p0) < ALPHA) == (p0 < ci.low or p0 > ci.high)


def test_two_shares_and_medians():
    assert p_two_shares(500, 1000, 500, 1000) == pytest.approx(1.0)
    assert p_two_shares(600, 1000, 500, 1000) < 1e-5
    assert p_two_shares(0, 10, 0, 10) == 1.0
    assert p_medians((200, 190, 210), (200, 190, 210)) == pytest.approx(1.0)
    # intervals that just touch: each half-width 10 at z, the medians 20 apart
    assert p_medians((200, 190, 210), (220, 210, 230)) == pytest.approx(math.erfc(20 / math.hypot(10, 10) * 1.96
                                                                                  / math.sqrt(2)))
    assert p_medians((11, 11, 11), (12, 12, 12)) == 0.0  # two exact medians that differ


def test_a_judge_records_then_holds_together():
    judge = Judge()
    assert judge.holds("a", 0.01) and judge.holds("b", 0.03) and not judge.holds("c", 0.5)
    judge.settle({"a", "b", "c"})
    assert judge.claims == 3
    assert judge.holds("a", 0.01) and not judge.holds("b", 0.03)  # 0.01 * 3, then 0.03 * 2
    assert judge.adjusted == pytest.approx({"a": 0.03, "b": 0.06, "c": 0.5})
    judge = Judge()
    for key, p in (("a", 0.01), ("b", 0.02), ("c", 0.5)):
        judge.holds(key, p)
    judge.settle({"a", "c"})  # b belongs to no finding the report states: not counted
    assert judge.claims == 2 and judge.adjusted["a"] == pytest.approx(0.02)


# ----------------------------------------------------------------------------- in a report

CLASSIC = build_rules("classic")


def _info(rules, games=4000) -> RuleSetInfo:
    return RuleSetInfo(rules.label, rules.rules_id, rules.variant, rules.options(), (), games)


def _seat_rows(rules, wins, decided):
    rows = []
    for seat, k in enumerate((wins, decided - wins)):
        lo, hi = wilson(k, decided)
        rows.append({"rule_set": rules.label, "variant": rules.variant, "rules_id": rules.rules_id, "players": 2,
                     "seat": seat, "wins": k,
                     "decided_games": decided, "share": k / decided, "ci_low": lo, "ci_high": hi,
                     "fair_share": 0.5})
    return rows


def _report(seats: dict) -> ReportData:
    """A report of one rule set per variant of `seats` (variant -> (wins of seat 0, decided)),
    each with a median and every game won."""
    infos, rows = [], {"median_interval": [], "outcome_interval": [], "seat_win_interval": []}
    for variant, (wins, decided) in seats.items():
        rules = build_rules(variant)
        infos.append(_info(rules, decided))
        rows["median_interval"].append({"rule_set": rules.label, "variant": variant, "rules_id": rules.rules_id,
                                        "ended": decided, "cycles": 0, "capped": 0,
                                        "median_battles": 200.0, "ci_low": 190, "ci_high": 210})
        rows["outcome_interval"] += [{"rule_set": rules.label, "variant": variant, "rules_id": rules.rules_id,
                                      "outcome": o,
                                      "games": decided, "ended": decided if o == "win" else 0,
                                      "share": 1.0 if o == "win" else 0.0, "ci_low": 0.99 if o == "win" else 0.0,
                                      "ci_high": 1.0 if o == "win" else 0.01} for o in ("win", "draw")]
        rows["seat_win_interval"] += _seat_rows(rules, wins, decided)
    return ReportData("t", 0, "2", infos, {k: pa.Table.from_pylist(v) for k, v in rows.items()}, {})


def _seat_text(found, variant):
    return next(f for f in found[variant] if f.query == "seat_win_interval")


def test_a_claim_that_passes_alone_is_not_made_among_the_reports_others():
    """Classic War's seat 0 wins 2,070 of 4,000 decided games (p = 0.03 alone: its interval
    clears 50%); with four other variants' seat claims near chance, Holm's correction over the
    report's claims leaves it out, and its sentence says why. A seat far from its fair share
    (3,000 of 4,000) keeps its advantage among them."""
    alone = findings(_report({"classic": (2070, 4000)}), "classic")
    assert "an advantage" in next(f.text for f in alone if f.query == "seat_win_interval")
    data = _report({"classic": (2070, 4000), "multiplayer": (2010, 4000), "jokers": (1990, 4000),
                    "razboi": (2005, 4000), "steal": (3000, 4000)})
    found, judge = all_findings(data)
    # a seat claim a rule set of two seats (seat 1's share is 1 - seat 0's), and each variant's
    # median against Classic War's
    assert judge.claims == 5 + 4
    classic = _seat_text(found, "classic")
    assert "no advantage" in classic.text and "not among the report's 9 claims judged together" in classic.text
    key = repr(("seat", CLASSIC.label, 0))
    assert classic.values["claims"][key]["p"] < ALPHA <= classic.values["claims"][key]["p_holm"]
    assert "an advantage" in _seat_text(found, "steal").text
    assert "not among" not in _seat_text(found, "jokers").text  # not a claim alone either


def test_the_page_says_in_one_sentence_that_claims_are_judged_together():
    data = _report({"classic": (2070, 4000), "steal": (3000, 4000)})
    page = render_report(data, "t", None)
    sentence = re.search(r'<p class="lead" id="claims" data-claims="(\d+)">([^<]*)</p>', page)
    assert sentence and int(sentence[1]) == all_findings(data)[1].claims == 3
    assert "Holm" in sentence[2] and sentence[2].count(". ") == 0  # one sentence
