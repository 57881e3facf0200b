"""The report's findings claim no more than their evidence (the defects of a hostile tester):

1. the first battle's war is compared with chance only where war knows the chance: its own
   families' rules, whose cards compare by rank and whose ties are wars; a family installed from
   another package (the examples, Trump War's and Slap War's, installed for the session by
   conftest.py) may change either, and its share is said with its interval alone;
2. "A beats B" only of a tournament's pairing, both seatings played equally often; a pairing
   played in one seating is said as it was measured, seat by seat, and the matrix's caption
   says the seat and the policy cannot be told apart;
14. a comparison of two rule sets' lengths says what the comparisons table says of the pair:
   one judgement per pair, never two verdicts (the findings' Holm family and the table's).

Each on a small planted dataset whose answer is known."""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pytest
from scipy.stats import binomtest

from pipeline.jobs.generate import Plan, generate, make_plans
from pipeline.jobs.query import run
from pipeline.model.families import registry
from pipeline.model.rules import build_rules
from pipeline.present.charts import rule_set_palette
from pipeline.present.charts.variant_rules import matchup_matrix
from pipeline.present.claims import ALPHA
from pipeline.present.comparisons import comparisons
from pipeline.present.findings import all_findings, findings
from pipeline.present.report import ReportData, RuleSetInfo, build_report_data
from reportkit import wilson
from rulekit import games_rows

CHANCE_WORDS = ("than chance", "not told apart from what chance says")

# Six cards, 3 ranks of 2 suits: two top cards tie by rank with probability 1/5. Under trumps
# (clubs) every card's strength is its own, so the first battle is never a war: the exact chance
# the query computes by rank (1/5) is not Trump War's (0). Slap War's seats slap every pair (its
# default policy): a tie takes the table, the first battle is never a war either.
SMALL = {"ranks": "3", "suits": "2"}
TRUMP = build_rules("trump", {**SMALL, "trump": "clubs"})
SLAP = build_rules("slap", SMALL)
CLASSIC = build_rules("classic", SMALL)


@pytest.fixture(scope="module")
def chance_root(tmp_path_factory):
    out = tmp_path_factory.mktemp("chance") / "ds"
    generate(out, [Plan(TRUMP, 150, log="games"), Plan(SLAP, 150, log="games"), Plan(CLASSIC, 300, log="games")],
             seed=11)
    return out


@pytest.fixture(scope="module")
def chance(chance_root):
    return build_report_data(chance_root)


def _first_battle(data, variant):
    return next(f for f in findings(data, variant) if f.query == "first_battle_war_exact")


def test_war_knows_the_chance_of_its_own_families_alone():
    from pipeline.present.report import by_rank_variants

    reg = registry()
    known = set(by_rank_variants())
    for name, v in reg.variants.items():
        assert (name in known) == (v.family in reg.built_in), name
    assert {"trump", "slap"}.isdisjoint(known) and "classic" in known


@pytest.mark.parametrize("variant", ["trump", "slap"])
def test_a_plugins_first_battle_is_not_compared_with_a_chance_war_does_not_know(chance, variant):
    """Its games never start with a war (the known answer), which the chance of a tie of ranks
    (1/5) would call `less often than chance`: the sentence gives the share and its interval,
    says why there is no comparison, and makes no claim."""
    row = next(r for r in chance.rows("first_battle_war_exact", variant))
    assert row["first_battle_wars"] == 0
    assert row["exact"] is None and row["exact_fraction"] is None  # the report's query leaves it out
    found = _first_battle(chance, variant)
    assert not any(w in found.text for w in CHANCE_WORDS) and "1/5" not in found.text, found.text
    assert "0% (≤ " in found.text and "not compared with chance" in found.text, found.text
    assert found.claims == () and found.values["exact"] is None
    _, judge = all_findings(chance)
    assert ("first_battle", row["rule_set"]) not in judge.p


def test_war_s_own_family_is_still_compared_with_its_exact_chance(chance):
    row = next(r for r in chance.rows("first_battle_war_exact", "classic"))
    assert row["exact_fraction"] == "1/5"
    found = _first_battle(chance, "classic")
    assert "(1/5 = 20.0%)" in found.text
    ci = binomtest(row["first_battle_wars"], row["games"]).proportion_ci(method="exact")  # the test inverts it
    assert ("not told apart from what chance says" in found.text) == (ci.low <= 0.2 <= ci.high), found.text


def test_the_query_says_the_chance_only_for_the_variants_named(chance_root, chance):
    """`war query` by default (by_rank=*) gives the chance of a tie of ranks for every variant;
    the report runs it naming the variants whose chance war knows, and it leaves the others out."""
    from pipeline.present.report import by_rank_variants

    every = {r["variant"]: r["exact_fraction"] for r in run(chance_root, name="first_battle_war_exact").to_pylist()}
    assert every == {"trump": "1/5", "slap": "1/5", "classic": "1/5"}
    params = chance.params["first_battle_war_exact"]
    assert set(params["by_rank"].split(",")) == set(by_rank_variants())
    named = {r["variant"]: r["exact_fraction"]
             for r in run(chance_root, name="first_battle_war_exact", params={"by_rank": "classic"}).to_pylist()}
    assert named == {"trump": None, "slap": None, "classic": "1/5"}


# ----------------------------------------------------------------------------- 2. the seatings

STEAL = build_rules("steal", {"ranks": "6", "suits": "2", "jokers": "0"})


@pytest.fixture(scope="module")
def seated(tmp_path_factory):
    """Steal War played in one seating only: always in seat 0 against never in seat 1."""
    out = tmp_path_factory.mktemp("seated") / "ds"
    generate(out, [Plan(STEAL, 300, policies=("steal:always", "steal:never"), log="games")], seed=5)
    return out


def _matchup(data):
    return next(f for f in findings(data, "steal") if f.query == "policy_matchup")


def test_one_seating_is_said_as_measured_not_as_a_tournament(seated):
    data = build_report_data(seated)
    [row] = data.rows("policy_matchup")
    assert row["games_b_seat0"] == 0 or row["games_a_seat0"] == 0  # the one seating
    found = _matchup(data)
    text = found.text
    assert "tournament" not in text.lower() and "beats" not in text, text
    assert "cannot be told apart" in text and text.startswith("Seat 0 playing always against seat 1 playing never")
    games = [g for g in games_rows(seated) if g["outcome"] == "win"]
    wins = Counter(g["winner"] for g in games)
    lo, hi = row["ci_low"], row["ci_high"]
    share = wins[0] / len(games)
    assert found.values["share"] == pytest.approx(share) and found.values["seat0"].startswith("steal:always")
    if not row["policy_a"].startswith("steal:always"):
        lo, hi = 1 - hi, 1 - lo
    assert (found.values["ci_low"], found.values["ci_high"]) == (pytest.approx(lo), pytest.approx(hi))
    assert found.claims == ()
    _, judge = all_findings(data)
    assert not any(k[0] == "matchup" for k in judge.p)


def test_the_matrix_of_one_seating_is_not_a_tournament(seated):
    data = build_report_data(seated)
    [figure] = matchup_matrix(data, "steal", rule_set_palette(data, "steal"))
    assert "both seatings pooled" not in figure.note and "Tournament" not in figure.title
    assert "one seating only" in figure.note and "cannot be told apart" in figure.note


def _matchup_data(a_seat0: int, b_seat0: int, wins_a: int, decided: int) -> ReportData:
    """A report of Steal War whose one pairing, A (steal:always) against B (steal:never), was
    played a_seat0 games with A in seat 0 and b_seat0 with B there."""
    share = wins_a / decided
    half = 1.96 * (share * (1 - share) / decided) ** 0.5
    row = {"rules_name": "steal", "variant": "steal", "rules_id": STEAL.rules_id, "policy_a": "steal:always",
           "policy_b": "steal:never", "games": a_seat0 + b_seat0, "games_a_seat0": a_seat0, "games_b_seat0": b_seat0,
           "decided_games": decided, "wins_a": wins_a, "wins_b": decided - wins_a, "share_a": share,
           "ci_low": max(0.0, share - half), "ci_high": min(1.0, share + half)}
    seatings = tuple(s for s, n in ((("steal:always", "steal:never"), a_seat0),
                                    (("steal:never", "steal:always"), b_seat0)) if n)
    info = RuleSetInfo("steal", STEAL.rules_id, "steal", STEAL.options(), seatings, a_seat0 + b_seat0)
    return ReportData("t", 0, "2", [info], {"policy_matchup": pa.Table.from_pylist([row])}, {})


def test_a_policy_beats_another_only_over_both_seatings_played_alike():
    """900 of 1,000 decided: over a tournament's two seatings (500 each), a policy beating
    another; over two seatings played 900 and 100 times, or over one, no such claim."""
    fair = _matchup(_matchup_data(500, 500, 900, 1000))
    assert fair.text.startswith("In the tournament") and "always beats never" in fair.text, fair.text
    assert fair.claims
    for a, b in ((900, 100), (1000, 0), (0, 1000)):
        said = _matchup(_matchup_data(a, b, 900, 1000))
        assert "beats" not in said.text and "tournament" not in said.text.lower(), said.text
        assert "cannot be told apart" in said.text and said.claims == (), said.text
    one = _matchup(_matchup_data(0, 1000, 900, 1000))  # never in seat 0, always in seat 1, always won 90%
    assert one.text.startswith("Seat 0 playing never against seat 1 playing always won 10.0% ["), one.text


# ----------------------------------------------------------------------------- 14. one verdict a pair

RULES = [build_rules("classic"), build_rules("classic", {"war_down": "1"}), build_rules("classic", {"war_down": "2"})]
NAMES = ["classic", "classic war_down=1", "classic war_down=2"]


def _pairs_data(median_p: dict) -> ReportData:
    """Three rule sets of Classic War whose medians are 200, 230 and 260 battles with intervals
    of +-10 (apart, alone), and the comparisons table's rows, each pair's length test of the
    p-value `median_p` gives it and every other test of the table at p = 0.5."""
    medians = [200.0, 230.0, 260.0]
    infos = [RuleSetInfo(n, r.rules_id, "classic", r.options(), (), 1000) for n, r in zip(NAMES, RULES)]
    rows = {"median_interval": [{"rule_set": n, "variant": "classic", "rules_id": r.rules_id, "ended": 1000,
                                 "cycles": 0, "capped": 0, "median_battles": m, "ci_low": m - 10,
                                 "ci_high": m + 10} for n, r, m in zip(NAMES, RULES, medians)],
            "rule_set_pairs": []}
    for i in range(3):
        for j in range(i + 1, 3):
            a, b = NAMES[i], NAMES[j]
            rows["rule_set_pairs"].append({
                "rule_set_a": a, "rule_set_b": b, "paired": True, "games_a": 1000, "games_b": 1000, "pairs": 1000,
                "median_ratio": medians[i] / medians[j], "median_ratio_low": medians[i] / medians[j] - 0.05,
                "median_ratio_high": medians[i] / medians[j] + 0.05, "median_z": -3.0,
                "median_test": "wilcoxon signed-rank", "median_p": median_p[(a, b)], "mean_ratio": 1.0,
                "mean_ratio_low": 0.9, "mean_ratio_high": 1.1, "mean_p": 0.5, "seat": 0,
                **{f"{t}_{c}": 0.5 if c in ("share_a", "share_b") else 0.0 for t in ("seat", "draw", "cycle")
                   for c in ("share_a", "share_b", "share_diff", "share_low", "share_high")},  # shares that could differ
                "seat_p": 0.5, "draw_p": 0.5, "cycle_p": 0.5})
    return ReportData("t", 0, "2", infos, {k: pa.Table.from_pylist(v) for k, v in rows.items()}, {})


def _verdicts(data) -> dict[str, bool]:
    """Whether the findings tell each other rule set's length apart from the first's."""
    found = next(f for f in findings(data, "classic") if f.text.startswith("At the median:"))
    parts = found.text.removeprefix("At the median: ").split("; ")
    return {name: ("longer than" in part or "shorter than" in part)
            for name in NAMES[1:] for part in parts if part.startswith(name + " ")}


def _table(data) -> dict[str, bool]:
    view = comparisons(data)
    return {p.b: p.cells["median"].holds for p in view.pairs if p.a == NAMES[0]}


def test_a_pair_the_table_does_not_tell_apart_is_not_told_apart_in_the_findings():
    """p = 0.004 for classic against war_down=1: alone, or among the findings' few claims, it
    holds; among the table's 15 tests (Holm: 0.004 x 15 = 0.06) it does not. The finding says
    what the table says."""
    data = _pairs_data({(NAMES[0], NAMES[1]): 0.004, (NAMES[0], NAMES[2]): 1e-9, (NAMES[1], NAMES[2]): 0.5})
    table = _table(data)
    assert table == {NAMES[1]: False, NAMES[2]: True}
    assert _verdicts(data) == table
    found = next(f for f in findings(data, "classic") if f.text.startswith("At the median:"))
    assert f"{NAMES[1]} 230 [220, 240], not told apart from classic" in found.text, found.text
    assert "comparisons table" in found.text
    assert found.values["others"][NAMES[1]]["table"]["held"] is False
    assert found.values["others"][NAMES[1]]["table"]["p_holm"] >= ALPHA
    # the table's claims are the table's: not judged again among the findings'
    _, judge = all_findings(data)
    assert not any(k[0] == "median" for k in judge.p)


def test_a_pair_the_table_tells_apart_is_told_apart_in_the_findings():
    data = _pairs_data({(NAMES[0], NAMES[1]): 1e-6, (NAMES[0], NAMES[2]): 0.2, (NAMES[1], NAMES[2]): 1e-9})
    table = _table(data)
    assert table == {NAMES[1]: True, NAMES[2]: False}
    assert _verdicts(data) == table


def test_ranks_and_medians_that_disagree_say_both():
    """The table holds that war_down=1's games are longer by ranks (median_z < 0 for classic
    against it) while its median is shorter: the finding says so, not `about as long as`."""
    data = _pairs_data({(NAMES[0], NAMES[1]): 1e-9, (NAMES[0], NAMES[2]): 0.5, (NAMES[1], NAMES[2]): 0.5})
    table = data.results["rule_set_pairs"].to_pylist()
    table[0]["median_z"] = 3.0  # classic longer by ranks, though its median (200) is the shorter
    data.results["rule_set_pairs"] = pa.Table.from_pylist(table)
    assert comparisons(data).pairs[0].cells["median"].text.endswith("classic longer")
    found = next(f for f in findings(data, "classic") if f.text.startswith("At the median:"))
    assert f"{NAMES[1]} 230 [220, 240], shorter by ranks, though at the median 15% longer than classic" \
        in found.text, found.text


@pytest.fixture(scope="module")
def tournament(tmp_path_factory):
    out = tmp_path_factory.mktemp("tour") / "ds"
    generate(out, make_plans([STEAL], games=150, tournament=["steal:always", "steal:never", "steal:random"],
                             log="games"), seed=3)
    return build_report_data(out)


def test_a_tournament_s_findings_and_table_agree_on_every_pair(tournament):
    view = comparisons(tournament)
    held = {frozenset((p.a, p.b)): p.cells["median"].holds for p in view.pairs}
    said = 0
    for f in findings(tournament, "steal"):
        if f.query != "median_interval" or "others" not in f.values:
            continue
        base = f.values["rule_set"]
        for part in f.text.removeprefix("At the median: ").split("; "):
            name = next(n for n in f.values["others"] if part.startswith(n + " "))
            apart = "longer" in part or "shorter" in part
            assert apart == held[frozenset((name, base))], (part, held[frozenset((name, base))])
            said += 1
    assert said == 5  # six seatings, five against the first
