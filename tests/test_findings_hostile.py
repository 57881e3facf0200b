"""The findings worded past their evidence in hostile QA pass C (runs/hostile-c.md, defects 2 to
6): capped games are not games that never end, a median of one game has no interval and is
compared with nothing, chosen games (explicit deals) are not a sample, two buckets that are the
same games are one share, and a section of several rule sets names whose numbers it gives."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from pipeline.jobs.generate import Plan, generate
from pipeline.model.deal import check_deal
from pipeline.model.rules import build_rules
from pipeline.present.claims import Judge, p_share, p_two_shares
from pipeline.present.comparisons import comparisons, judged
from pipeline.present.findings import deal, findings, jokers, length, outcomes, seats
from pipeline.present.report import ReportData, RuleSetInfo, build_report_data
from reportkit import wilson

CLASSIC = build_rules("classic")
JOKERS = build_rules("jokers")
ARNESON = build_rules("arneson")


def info(name: str, rules, games: int = 100, variant: str | None = None) -> RuleSetInfo:
    return RuleSetInfo(name, rules.rules_id, variant or rules.options()["variant"], rules.options(), (), games)


def data_of(infos: list[RuleSetInfo], **tables) -> ReportData:
    return ReportData("t", 0, "2", infos, {k: pa.Table.from_pylist(v) for k, v in tables.items()},
                      {"deal_win_rate": {"top_ranks": "1", "width": "4"}})


def median_row(name: str, variant: str, ended: int, median: float, lo: float, hi: float,
               cycles: int = 0, capped: int = 0) -> dict:
    return {"rule_set": name, "variant": variant, "rules_id": "x", "ended": ended, "median_battles": median,
            "ci_low": lo, "ci_high": hi, "cycles": cycles, "capped": capped}


# ----------------------------------------------------------------------------- 4: capped games

def test_capped_games_were_stopped_at_the_cap_not_never_ending():
    rules = build_rules("classic", {"pickup": "table_order", "max_battles": "50"})
    one = info("classic", rules, 600)
    data = data_of([one], median_interval=[median_row("classic", "classic", 15, 36, 28, 48, capped=585)])
    text = length(data, "classic", [one], Judge())[0].text
    assert "never end" not in text, text
    assert "stopped at the cap of 50 battles" in text, text


def test_cycles_never_end_and_capped_games_were_stopped():
    rules = build_rules("classic", {"pickup": "table_order", "max_battles": "400"})
    one = info("classic", rules, 100)
    data = data_of([one], median_interval=[median_row("classic", "classic", 80, 36, 28, 48, cycles=15, capped=5)])
    text = length(data, "classic", [one], Judge())[0].text
    assert "15.0% never end: a position repeats" in text, text
    assert "5.0% were stopped at the cap of 400 battles" in text, text


def test_the_most_common_other_ending_of_capped_games_says_the_cap():
    rules = build_rules("classic", {"max_battles": "50"})
    one = info("classic", rules, 100)
    lo, hi = wilson(97, 100)
    rows = [{"rule_set": "classic", "variant": "classic", "outcome": "win", "ended": 3, "games": 100,
             "share": 0.03, "ci_low": 0.01, "ci_high": 0.08},
            {"rule_set": "classic", "variant": "classic", "outcome": "capped", "ended": 97, "games": 100,
             "share": 0.97, "ci_low": lo, "ci_high": hi}]
    text = outcomes(data_of([one], outcome_interval=rows), "classic", [one], Judge())[0].text
    assert "stopped at the cap of 50 battles" in text, text


# ----------------------------------------------------------------------------- 6: one game

def one_game_each() -> ReportData:
    classic, jok = info("classic", CLASSIC, 1), info("jokers", JOKERS, 1)
    pair = {"rule_set_a": "classic", "rule_set_b": "jokers", "paired": False, "pairs": None, "games_a": 1,
            "games_b": 1, "ended_a": 1, "ended_b": 1, "median_ratio": 500 / 357, "median_ratio_low": 500 / 357,
            "median_ratio_high": 500 / 357, "median_z": 1.0, "median_p": 1.0, "median_test": "mann-whitney",
            "mean_ratio": 500 / 357, "mean_ratio_low": 500 / 357, "mean_ratio_high": 500 / 357, "mean_p": 0.0001}
    for test in ("seat", "draw", "cycle"):
        pair.update({f"{test}_share_diff": 0.0, f"{test}_share_low": -0.5, f"{test}_share_high": 0.5,
                     f"{test}_share_a": 0.0, f"{test}_share_b": 0.0, f"{test}_p": None})
    return data_of([classic, jok],
                   median_interval=[median_row("classic", "classic", 1, 500, 500, 500),
                                    median_row("jokers", "jokers", 1, 357, 357, 357)],
                   rule_set_pairs=[pair])


def test_a_median_of_one_game_has_no_interval_and_is_compared_with_nothing():
    data = one_game_each()
    judge = Judge()
    text = length(data, "jokers", data.rule_sets_of("jokers"), judge)[0].text
    assert "[500, 500]" not in text and "[357, 357]" not in text, text
    assert "1 game: no interval" in text, text
    assert "not told apart" not in text and "about as long" not in text, text
    assert not judge.p  # no claim made


def test_the_comparisons_table_gives_no_interval_nor_verdict_from_one_game():
    data = one_game_each()
    table = comparisons(data)
    cell = table.pairs[0].cells["median"]
    assert "[" not in cell.estimate and "not told apart" not in cell.text, cell.text
    assert "[" not in table.pairs[0].cells["mean"].estimate
    p, _ = judged(data.rows("rule_set_pairs"))
    assert not p  # neither length test of one game is a claim


# ----------------------------------------------------------------------------- 3: chosen games

def all_aces_to_seat_0(n: int, rng: random.Random) -> list:
    out = []
    for _ in range(n):
        cards = list(range(52))
        rng.shuffle(cards)
        aces = [c for c in cards if c // 4 == 12]
        rest = [c for c in cards if c // 4 != 12]
        out.append(check_deal(CLASSIC, [aces + rest[:22], rest[22:]]))
    return out


@pytest.fixture(scope="module")
def explicit(tmp_path_factory):
    out = tmp_path_factory.mktemp("explicit") / "ds"
    generate(out, [Plan(CLASSIC, 120, deals=all_aces_to_seat_0(120, random.Random(4)))], seed=2)
    return build_report_data(out)


def test_explicit_deals_are_not_a_sample(explicit):
    found = findings(explicit, "classic")
    texts = " ".join(f.text for f in found)
    assert "an advantage" not in texts and "what chance says" not in texts, texts
    assert not any(f.query == "seat_win_interval" for f in found), texts
    assert any("chosen" in f.text and "explicit deals" in f.text for f in found), texts


# ----------------------------------------------------------------------------- 2: the same games

def test_three_aces_against_one_are_one_share_against_half():
    one = info("arneson", ARNESON, 500)
    rows = []
    for low, wins in ((1, 95), (3, 129)):
        lo, hi = wilson(wins, 224)
        rows.append({"rule_set": "arneson", "variant": "arneson", "by": "top_cards", "low": low, "players": 2,
                     "decided_seats": 224, "wins": wins, "share": wins / 224, "ci_low": lo, "ci_high": hi})
    judge = Judge()
    found = deal(data_of([one], deal_win_rate=rows), "arneson", [one], judge)
    assert judge.p[("deal", "arneson")] == pytest.approx(p_share(129, 224, 0.5))
    assert judge.p[("deal", "arneson")] != pytest.approx(p_two_shares(129, 224, 95, 224))
    assert "same games" in found[0].text, found[0].text


# ----------------------------------------------------------------------------- 5: several rule sets

def test_all_games_end_gives_the_bound_of_the_rule_set_it_is_of():
    a, b = info("small", CLASSIC, 300), info("big", CLASSIC, 1500)
    rows = []
    for name, n in (("small", 300), ("big", 1500)):
        lo, _ = wilson(n, n)
        rows.append({"rule_set": name, "variant": "classic", "outcome": "win", "ended": n, "games": n,
                     "share": 1.0, "ci_low": lo, "ci_high": 1.0})
    text = outcomes(data_of([a, b], outcome_interval=rows), "classic", [a, b], Judge())[0].text
    assert "each" in text and "small" in text, text


def test_a_seat_bound_names_its_rule_set():
    a, b = info("first", CLASSIC, 300), info("second", CLASSIC, 300)
    rows = []
    for name, wins in (("first", 150), ("second", 160)):
        for seat, k in ((0, wins), (1, 290 - wins)):
            lo, hi = wilson(k, 290)
            rows.append({"rule_set": name, "variant": "classic", "seat": seat, "wins": k, "decided_games": 290,
                         "share": k / 290, "ci_low": lo, "ci_high": hi, "fair_share": 0.5, "players": 2})
    text = seats(data_of([a, b], seat_win_interval=rows), "classic", [a, b], Judge())[0].text
    assert "any advantage under first is under" in text, text


def test_the_joker_sentence_names_its_rule_set():
    a, b = info("always vs never", JOKERS, 300), info("never vs always", JOKERS, 300)
    rows = []
    for name, n, k in (("always vs never", 969, 73), ("never vs always", 832, 60)):
        lo, hi = wilson(k, n)
        rows.append({"rule_set": name, "variant": "jokers", "war_depth": 1, "battles": n, "joker_battles": k,
                     "joker_share": k / n, "ci_low": lo, "ci_high": hi})
    text = jokers(data_of([a, b], joker_wars=rows), "jokers", [a, b], Judge())[0].text
    assert "always vs never" in text, text
