"""Comparisons between rule sets (issue 51, item 3): the named query rule_set_pairs checked
against hand SQL and scipy over the games of a dataset with a known difference (games of
war_down=1 last longer than Classic War's of three down, on the same deals), paired by deal where two rule
sets share deals (Classic War and its war_down=1 do; Jokers' deck does not), and the report's
table judging every test together (Holm). Then the findings a statistician signs (item 4): a
3-player dataset whose last seat is dealt the Aces says that seat has an advantage."""

from __future__ import annotations

import math
import random

import pyarrow as pa
import pytest
from scipy import stats

from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import run
from pipeline.model.deal import check_deal
from pipeline.model.rules import build_rules
from pipeline.present.claims import ALPHA, Judge, holm
from pipeline.present.comparisons import comparisons, judged
from pipeline.present.findings import findings, ratio
from pipeline.present.report import ReportData, build_report_data

CLASSIC = build_rules("classic")
ONE_DOWN = build_rules("classic", {"war_down": "1"})
JOKERS = build_rules("jokers")


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    out = tmp_path_factory.mktemp("pairs") / "ds"
    generate(out, [Plan(CLASSIC, 600), Plan(ONE_DOWN, 600),
                   Plan(JOKERS, 500)], seed=7)
    return out


@pytest.fixture(scope="module")
def rows(root):
    return run(root, name="rule_set_pairs").to_pylist()


def hand(root, sql: str) -> list[dict]:
    return run(root, sql=sql).to_pylist()


def lengths(root, rule_set: str) -> dict[int, int]:
    """The battles of each game that ends, by game_index (hand SQL over games)."""
    return {r["game_index"]: r["battles"] for r in hand(
        root, f"SELECT game_index, battles FROM games WHERE rule_set = '{rule_set}' AND outcome IN ('win', 'draw')")}


def test_every_pair_in_dataset_order_paired_where_the_deals_are_shared(rows):
    names = [(r["rule_set_a"], r["rule_set_b"]) for r in rows]
    assert names == [("classic", "classic war_down=1"), ("classic", "jokers"), ("classic war_down=1", "jokers")]
    assert [r["paired"] for r in rows] == [True, False, False]
    assert rows[0]["pairs"] == 600 and rows[1]["pairs"] is None
    assert rows[0]["median_test"] == "wilcoxon signed-rank" and rows[1]["median_test"] == "mann-whitney"


def test_paired_lengths_against_hand_sql_and_scipy(root, rows):
    """Classic War against war_down=1, deal by deal: the medians of the pairs where both end,
    their ratio, and the Wilcoxon signed-rank test of the per-deal log ratios (scipy, normal
    approximation with ties corrected), which finds the known difference."""
    a, b = lengths(root, "classic"), lengths(root, "classic war_down=1")
    both = sorted(set(a) & set(b))
    xs, ys = [a[i] for i in both], [b[i] for i in both]
    row = rows[0]
    assert (row["ended_a"], row["ended_b"]) == (len(both), len(both))
    assert row["median_a"] == pytest.approx(float(stats.scoreatpercentile(xs, 50)))
    assert row["median_ratio"] == pytest.approx(row["median_a"] / row["median_b"])
    assert row["median_ratio_low"] < row["median_ratio"] < row["median_ratio_high"]
    d = [math.log(x) - math.log(y) for x, y in zip(xs, ys)]
    expected = stats.wilcoxon(d, zero_method="wilcox", correction=False, method="approx")
    assert row["median_p"] == pytest.approx(expected.pvalue, rel=1e-5)
    assert row["median_p"] < 1e-3  # the known difference
    means = stats.ttest_rel(xs, ys)
    assert row["mean_ratio"] == pytest.approx(sum(xs) / sum(ys))
    assert (row["mean_p"] < ALPHA) == (means.pvalue < ALPHA)


def test_unpaired_lengths_and_shares_against_hand_sql_and_scipy(root, rows):
    """Classic War against Jokers (another deck: not paired): Mann-Whitney with mid-ranks, and
    seat 0's share of decided games by the pooled two-proportion test with Newcombe's interval."""
    a, b = list(lengths(root, "classic").values()), list(lengths(root, "jokers").values())
    row = rows[1]
    assert (row["ended_a"], row["ended_b"]) == (len(a), len(b))
    mw = stats.mannwhitneyu(a, b, use_continuity=False, method="asymptotic")
    assert row["median_p"] == pytest.approx(mw.pvalue, rel=1e-5)
    counts = {r["rule_set"]: r for r in hand(root, "SELECT rule_set, count(*) FILTER (WHERE outcome = 'win') AS n, "
                                                    "count(*) FILTER (WHERE winner = 0) AS k FROM games GROUP BY 1")}
    (k1, n1), (k2, n2) = [(counts[x]["k"], counts[x]["n"]) for x in ("classic", "jokers")]
    assert row["seat_share_diff"] == pytest.approx(k1 / n1 - k2 / n2)
    pooled = (k1 + k2) / (n1 + n2)
    z = (k1 / n1 - k2 / n2) / math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    assert row["seat_p"] == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-5)
    assert row["seat_share_low"] < row["seat_share_diff"] < row["seat_share_high"]
    assert row["draw_p"] == 1.0 and row["cycle_p"] == 1.0  # no draw nor cycle in either: nothing to tell apart


def test_paired_shares_are_mcnemar(root, rows):
    joined = hand(root, """SELECT count(*) FILTER (WHERE x.winner = 0 AND y.winner <> 0) AS b,
                                  count(*) FILTER (WHERE x.winner <> 0 AND y.winner = 0) AS c
                           FROM games x JOIN games y USING (game_index)
                           WHERE x.rule_set = 'classic' AND y.rule_set = 'classic war_down=1'
                             AND x.outcome = 'win' AND y.outcome = 'win'""")[0]
    b, c = joined["b"], joined["c"]
    assert rows[0]["seat_p"] == pytest.approx(math.erfc(abs(b - c) / math.sqrt(b + c) / math.sqrt(2)), rel=1e-5)


def test_the_report_table_judges_every_test_together(root):
    data = build_report_data(root)
    view = comparisons(data)
    pair_rows = data.rows("rule_set_pairs")
    p, adjusted = judged(pair_rows)
    cannot = sum(1 for r in pair_rows for t in ("seat", "draw", "cycle")  # none in either, or all in both
                 if r[f"{t}_share_a"] == r[f"{t}_share_b"] and r[f"{t}_share_a"] in (0, 1))
    assert cannot >= 3  # shuffled pickup: no cycles in any rule set
    assert view.claims == len(p) == 3 * 5 - cannot and adjusted == holm(p)
    first = view.pairs[0]
    assert first.paired and first.cells["median"].holds
    assert "classic war_down=1 longer" in first.cells["median"].text  # wars of one card down last
    for pair in view.pairs:
        for test, cell in pair.cells.items():
            assert cell.holds == (adjusted.get((pair.a, pair.b, test), 1.0) < ALPHA)


def test_holm_not_each_alone():
    """A test that passes alone (p = 0.03) does not hold among the table's nine that can reject
    (the draws and cycles none in either rule set are no claims: 30 of a tournament's 75 tests
    were such, and counted they kept two mean lengths from holding)."""
    rows = [{"rule_set_a": "x", "rule_set_b": y, "paired": False, "games_a": 100, "games_b": 100, "pairs": None,
             "median_ratio": 1.1, "median_ratio_low": 1.01, "median_ratio_high": 1.2, "median_z": 2.2,
             "median_test": "mann-whitney", "median_p": 0.03 if y == "y" else 0.5, "mean_ratio": 1.0,
             "mean_ratio_low": 0.9, "mean_ratio_high": 1.1, "mean_p": 0.5, "seat": 0,
             **{f"{t}_{c}": 0.0 for t in ("seat", "draw", "cycle")
                for c in ("share_a", "share_b", "share_diff", "share_low", "share_high")},
             "seat_share_a": 0.5, "seat_share_b": 0.5,
             "seat_p": 0.5, "draw_p": 1.0, "cycle_p": 1.0} for y in ("y", "z", "w")]
    data = ReportData("t", 0, "2", [], {"rule_set_pairs": pa.Table.from_pylist(rows)}, {})
    view = comparisons(data)
    assert view.claims == 9 and not view.pairs[0].cells["median"].holds
    assert view.pairs[0].cells["median"].values["p_holm"] == pytest.approx(0.27)
    assert view.pairs[0].cells["draw"].text == "none in either" and view.pairs[0].cells["draw"].values["p_holm"] is None


def test_a_seat_between_two_seatings_is_the_policies_not_a_claim(tmp_path):
    """Two seatings of Steal War's rules (always vs never, never vs always): seat 0's share
    differs by about 99 points between them, which is which policy sits there. It was bold in
    the table as a seat's difference, one of its tests."""
    out = tmp_path / "t"
    steal = build_rules("steal")
    generate(out, [Plan(steal, 300, policies=["steal:always", "steal:never"]),
                   Plan(steal, 300, policies=["steal:never", "steal:always"])], seed=3)
    data = build_report_data(out)
    view = comparisons(data)
    [pair] = view.pairs
    seat = pair.cells["seat"]
    assert abs(seat.values["diff"]) > 0.5 and pair.row["seat_p"] < 1e-6  # a difference, and a large one
    assert seat.values["p_holm"] is None and not seat.holds and "policies differ" in seat.text
    assert (pair.a, pair.b, "seat") not in view.adjusted and view.claims == len(view.adjusted)


# ----------------------------------------------------------------------------- findings

def test_a_median_comparison_on_tied_lengths_is_never_p_0(tmp_path):
    """Four cards, two a seat: a handful of lengths, heavily tied. The medians' intervals have no
    width, which the test of intervals took for certainty (p = 0); the rank test does not."""
    tiny = build_rules("classic", {"ranks": "2", "suits": "2"})
    tiny_one = build_rules("classic", {"ranks": "2", "suits": "2", "war_down": "1"})
    out = tmp_path / "tiny"
    generate(out, [Plan(tiny, 300, log="games"), Plan(tiny_one, 300, log="games")], seed=3)
    rows = run(out, name="rule_set_pairs").to_pylist()
    assert all(0 < r["median_p"] <= 1 for r in rows)
    a = {"median_battles": 5.0, "ci_low": 5, "ci_high": 5}
    b = {"median_battles": 6.0, "ci_low": 6, "ci_high": 6}
    judge = Judge()
    ratio(a, b, judge, "k", pair={"median_p": rows[0]["median_p"], "median_z": -1.0})
    assert judge.p["k"] > 0


def deals_favouring_the_last_seat(rules, n: int, rng: random.Random) -> list:
    """`n` shuffled 3-player deals with every Ace moved into the last seat's pile."""
    out = []
    for _ in range(n):
        cards = list(range(52))
        rng.shuffle(cards)
        aces = [c for c in cards if c // 4 == 12]
        rest = [c for c in cards if c // 4 != 12]
        last = aces + rest[:13]
        others = rest[13:]
        piles = [others[0:17], others[17:34], last]
        out.append(check_deal(rules, piles, others[34:]))
    return out


def test_a_last_seat_that_wins_more_is_said_so(tmp_path):
    """A planted effect in a random sample: ten cards dealt 3 | 3 | 4 (deal=first_short), the last
    seat holding a card more. (Games of chosen deals, every Ace moved to the last seat, are no
    sample: the report infers nothing from them, test_chosen_deals_are_not_a_sample.)"""
    rules = build_rules("multiplayer", {"players": "3", "ranks": "5", "suits": "2", "deal": "first_short"})
    out = tmp_path / "last"
    generate(out, [Plan(rules, 600)], seed=1)
    data = build_report_data(out)
    found = findings(data, "multiplayer")
    seat = next(f for f in found if f.query == "seat_win_interval")
    assert seat.text.startswith("Seat 2 wins") and "an advantage" in seat.text, seat.text
    assert set(seat.claims) == {("seat", rules.label, s) for s in range(3)}  # every seat tested


def test_chosen_deals_are_not_a_sample(tmp_path):
    """Every Ace moved into the last seat's pile: its games say nothing of the rules' seats, and
    the report claims no advantage from them."""
    rules = build_rules("multiplayer", {"players": "3"})
    out = tmp_path / "chosen"
    generate(out, [Plan(rules, 300, deals=deals_favouring_the_last_seat(rules, 300, random.Random(5)))], seed=1)
    found = findings(build_report_data(out), "multiplayer")
    assert not any("an advantage" in f.text for f in found), [f.text for f in found]
    assert not any(f.claims for f in found if f.query == "seat_win_interval")


def test_the_summarys_percentiles_read_alike():
    """A p99 of 1,071.2 and integer medians: the percentile columns share one format."""
    from pipeline.present.report import RuleSetInfo
    from pipeline.present.report_page import summary

    info = RuleSetInfo("classic", CLASSIC.rules_id, "classic", CLASSIC.options(), (), 10)
    row = {"rule_set": "classic", "median_battles": 355.0, "p90_battles": 700.0, "p99_battles": 1071.2}
    data = ReportData("t", 0, "2", [info], {"game_length": pa.Table.from_pylist([row])}, {})
    cells = {column: text for _, column, _, text in summary(data)[0][1] if column in row}
    assert cells == {"median_battles": "355.0", "p90_battles": "700.0", "p99_battles": "1,071.2"}


def test_lengths_of_a_rule_set_stopped_at_its_cap_are_not_compared(tmp_path):
    """Capped at 150 battles, 64% of Classic War's games were left out of "the games that end", the
    longest of them: its median of the rest (96) was "not told apart" from Classic War's 208 in
    the findings, and its ratio to another rule set was the cap's, not the rules'."""
    out = tmp_path / "e"
    generate(out, [Plan(CLASSIC, 600), Plan(build_rules("classic", {"max_battles": "150"}), 600)], seed=5)
    [row] = run(out, name="rule_set_pairs").to_pylist()
    share = hand(out, "SELECT avg((outcome = 'capped')::INT) AS s FROM games WHERE rule_set = 'classic max_battles=150'")
    assert row["capped_share_a"] == 0 and row["capped_share_b"] == pytest.approx(share[0]["s"]) and share[0]["s"] > 0.3
    data = build_report_data(out)
    view = comparisons(data)
    [pair] = view.pairs
    for test in ("median", "mean"):
        assert pair.cells[test].estimate == "–" and (pair.a, pair.b, test) not in view.adjusted
    assert "stopped at the battle cap: lengths not compared" in pair.cells["median"].text
    found = next(f for f in findings(data, "classic") if f.text.startswith("At the median:"))
    assert "were stopped at the cap of 150 battles" in found.text and "not compared (" in found.text, found.text
    assert "told apart" not in found.text and not found.claims


def test_a_ratio_of_coarse_medians_has_the_order_statistics_interval(tmp_path, rows):
    """Games of a handful of battles: a median interval of one or two lengths ([6, 6]) was read as
    no error, and the paired ratio's 95% interval covered the ratio 85% of the time. Where a
    side's interval holds fewer than 5 distinct lengths, the interval is the ratio of the two
    sides' order-statistic bounds, each at 1 - 0.05 / 2 (Bonferroni: both hold at once at 95%)."""
    small = {"ranks": "4", "suits": "2", "war_down": "0"}
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("classic", small), 2000),
                   Plan(build_rules("classic", {**small, "war_down": "1"}), 2000)], seed=9)
    [row] = run(out, name="rule_set_pairs").to_pylist()
    assert row["paired"] and row["median_ratio_interval"] == "order statistics"
    zc = stats.norm.ppf(1 - 0.05 / 4)

    pairs = hand(out, "SELECT a.battles AS x, b.battles AS y FROM games a JOIN games b USING (game_index) "
                      f"WHERE a.rule_set = '{row['rule_set_a']}' AND b.rule_set = '{row['rule_set_b']}' "
                      "AND a.outcome IN ('win', 'draw') AND b.outcome IN ('win', 'draw')")  # the pairs both end

    def bounds(side):
        values = sorted(p["x" if side == "a" else "y"] for p in pairs)
        n = len(values)
        low, high = max(1, math.floor(n / 2 - zc * math.sqrt(n) / 2)), min(n, math.ceil(1 + n / 2 + zc * math.sqrt(n) / 2))
        return values[low - 1], values[high - 1]

    (la, ha), (lb, hb) = bounds("a"), bounds("b")
    assert (row["median_ratio_low"], row["median_ratio_high"]) == (pytest.approx(la / hb), pytest.approx(ha / lb))
    assert all(r["median_ratio_interval"] == "delta method" for r in rows)  # 52 cards: lengths of hundreds


def test_no_interval_method_is_named_where_there_is_no_interval(tmp_path):
    """One game a side: no median interval, so no ratio interval, and no method said for one."""
    out = tmp_path / "one"
    generate(out, [Plan(CLASSIC, 1), Plan(build_rules("razboi"), 1)], seed=7)
    [row] = run(out, name="rule_set_pairs").to_pylist()
    assert row["median_ratio_low"] is None and row["median_ratio_interval"] is None


def test_the_first_battle_of_rule_sets_dealt_alike_is_one_claim(tmp_path):
    """Classic War and Război deal alike, and a first battle is its deal's: their two sentences are
    one test of the same games, counted once among the report's claims (it was two)."""
    from pipeline.present.findings import all_findings

    out = tmp_path / "cr"
    generate(out, [Plan(CLASSIC, 300), Plan(build_rules("razboi"), 300), Plan(JOKERS, 300)], seed=4)
    data = build_report_data(out)
    found, judge = all_findings(data)
    firsts = [f for section in found.values() for f in section if f.query == "first_battle_war_exact"]
    keys = {f.values["rule_set"]: f.claims for f in firsts}
    assert keys["classic"] == keys["razboi"] == (("first_battle", "classic"),)
    assert keys["jokers"] == (("first_battle", "jokers"),)
    assert sorted(k for k in judge.p if k[0] == "first_battle") == [("first_battle", "classic"), ("first_battle", "jokers")]
