"""Every answer names its rule sets: each named query that groups by rule set shows `rule_set`
first, the name a person reads (model.names); a tournament's rule sets are its seatings, each
named `always vs never`, and the queries count each seating apart (policies are not in
rules_id). `war query`, the views and the report give the same names, from one function.
"""

from __future__ import annotations

import itertools

import pytest

from pipeline.jobs.query import describe, named_queries, run
from pipeline.jobs.request import GenerateArgs, generate_request
from pipeline.model.names import rule_set_names, short_policies
from pipeline.model.rules import build_rules
from pipeline.model.schema import RuleSetEntry
from pipeline.present.report import build_report_data
from pipeline.storage.dataset import Dataset

SEATINGS = ["always vs never", "always vs threshold:4", "never vs always", "never vs threshold:4",
            "threshold:4 vs always", "threshold:4 vs never"]
POOLED = {"policy_matchup": "rules_name",  # groups the two seatings of a pair of policies: by its rules' name
          "rule_set_pairs": "rule_set_a"}  # a row a pair of rule sets: rule_set_a and rule_set_b


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    out = tmp_path_factory.mktemp("names") / "ds"
    generate_request(GenerateArgs(variants=["classic"], games=30, out=out, seed=3)).run()
    generate_request(GenerateArgs(variants=["steal"], tournament=["always", "never", "threshold:4"], games=30, out=out,
                     append=True)).run()
    return out


def _entry(rules, ordinal, policies=(), name=None):
    return RuleSetEntry(ordinal=ordinal, rules_id=rules.rules_id, rules=rules, seed=0, games=1, shard_size=1,
                        policies=list(policies), name=name)


def test_a_tournament_names_each_seating():
    steal, other = build_rules("steal"), build_rules("steal", {"war_down": "1"})
    policies = ["steal:always,top:as_played", "steal:never,top:as_played"]
    seated = [_entry(steal, i, pair) for i, pair in enumerate(itertools.permutations(policies, 2))]
    assert rule_set_names(seated) == {0: "always vs never", 1: "never vs always"}
    # the same rules appended in the same seating share the name (a query counts them together)
    assert rule_set_names(seated + [_entry(steal, 2, policies)]) == {0: "always vs never", 1: "never vs always",
                                                                     2: "always vs never"}
    # two tournaments: each seating after its rules' name; a single seating keeps the rules' name
    both = seated + [_entry(other, 2 + i, pair) for i, pair in enumerate(itertools.permutations(policies, 2))]
    assert rule_set_names(both) == {0: "steal: always vs never", 1: "steal: never vs always",
                                    2: "steal war_down=1: always vs never", 3: "steal war_down=1: never vs always"}
    assert rule_set_names([_entry(steal, 0, policies, name="duel")]) == {0: "duel"}
    assert short_policies(["steal:always,top:highest", "steal:never,top:protect"]) == {
        "steal:always,top:highest": "highest", "steal:never,top:protect": "cautious"}


LONG = ["steal:threshold:4,top:protect", "steal:random,top:random", "steal:never,top:highest"]


def test_long_profiles_get_short_distinct_names():
    """A tournament of policies that differ in every decision: each seating's name at most
    SEATING_WIDTH (24) characters, none two alike nor cut to a common prefix; a policy too long
    to fit is numbered (its place among the policies sorted), its whole text in `policies`."""
    steal = build_rules("steal")
    seated = [_entry(steal, i, pair) for i, pair in enumerate(itertools.permutations(LONG, 2))]
    names = rule_set_names(seated)
    assert len(set(names.values())) == 6
    assert all(len(n) <= 24 and "…" not in n for n in names.values()), names
    short = short_policies(LONG)
    assert short == {"steal:threshold:4,top:protect": "P3", "steal:random,top:random": "random",
                     "steal:never,top:highest": "never,highest"}
    assert names[0] == "P3 vs random"
    # the parts every policy shares are left out, then the decisions' defaults; a part said
    # by its policy's name where one decision alone has it
    assert short_policies(["steal:threshold:4,top:as_played", "steal:random,top:random",
                           "steal:always,top:as_played"]) == {
        "steal:threshold:4,top:as_played": "threshold:4", "steal:random,top:random": "random",
        "steal:always,top:as_played": "always"}
    assert short_policies(["steal:random,top:as_played", "steal:always,top:as_played"]) == {
        "steal:random,top:as_played": "steal:random", "steal:always,top:as_played": "always"}
    assert short_policies(["hand:highest", "hand:save_high"]) == {"hand:highest": "highest",
                                                                  "hand:save_high": "save_high"}


def test_long_profiles_are_in_full_beside_their_names(tmp_path):
    out = tmp_path / "long"
    generate_request(GenerateArgs(variants=["steal"], tournament=LONG, games=4, out=out, seed=2)).run()
    rows = run(out, name="game_length").to_pylist()
    assert [r["rule_set"] for r in rows] == list(rule_set_names(Dataset.open(out).manifest.rule_sets).values())
    for r in rows:
        assert len(r["rule_set"]) <= 24
        assert len(r["policies"]) == 2 and set(r["policies"]) <= set(LONG)
        assert " vs ".join(short_policies(LONG)[p] for p in r["policies"]) == r["rule_set"]
    games = run(out, sql="SELECT DISTINCT rule_set, policies, rule_set_policies(rule_set) AS seats FROM games").to_pylist()
    assert len(games) == 6 and all(g["policies"] == g["seats"] for g in games)


def test_the_views_name_every_seating(root):
    rules = run(root, sql="SELECT rule_set, rules_name FROM rules ORDER BY ordinal").to_pylist()
    assert [r["rule_set"] for r in rules] == ["classic", *SEATINGS]
    assert {r["rules_name"] for r in rules[1:]} == {"steal"}
    counted = run(root, sql="SELECT rule_set, count(*) AS n FROM games GROUP BY ALL ORDER BY min(game_id)").to_pylist()
    assert counted == [{"rule_set": name, "n": 30} for name in ["classic", *SEATINGS]]
    battles = run(root, sql="SELECT DISTINCT rule_set FROM battles ORDER BY rule_set").column("rule_set").to_pylist()
    assert battles == sorted(["classic", *SEATINGS])


def test_every_named_query_shows_the_rule_set_first(root):
    for name in named_queries():
        columns = describe(root, name=name).column("column").to_pylist()
        assert columns[0] == POOLED.get(name, "rule_set"), (name, columns)
        if columns[0] == "rule_set":
            assert "policies" in columns, name  # a seating's policies in full, beside its short name


@pytest.mark.parametrize("name", ["game_length", "outcomes", "seat_win_interval", "median_interval",
                                  "first_battle_war_exact", "wars_per_game", "war_depth", "steals"])
def test_a_query_by_rule_set_counts_each_seating_apart(root, name):
    rows = run(root, name=name).to_pylist()
    assert set(SEATINGS) <= {r["rule_set"] for r in rows}, name
    if "games" in rows[0] and name not in ("steals",):
        per = {}
        for r in rows:
            per[r["rule_set"]] = r["games"]
        assert all(per[s] == 30 for s in SEATINGS), (name, per)


def test_war_query_and_the_report_name_rule_sets_alike(root):
    data = build_report_data(root)
    assert [r.name for r in data.rule_sets] == ["classic", *SEATINGS]
    names = rule_set_names(Dataset.open(root).manifest.rule_sets)
    assert sorted(set(names.values())) == sorted(r.name for r in data.rule_sets)
    for name, table in data.results.items():
        for column in ("rule_set_a", "rule_set_b") if name == "rule_set_pairs" else (POOLED.get(name, "rule_set"),):
            assert set(table.column(column).to_pylist()) <= set(names.values()) | {"steal"}, name
