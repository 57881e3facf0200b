"""Every deal is exact only where the deal alone decides the game (hostile QA C, defect 1): under
a pickup or a policy that draws, `--all-deals` plays each deal once with chance in its games, so
its shares are a sample, and the exact queries leave such a rule set out, saying why and that
`war solve` gives the exact game; the report gives its numbers with intervals, never "exactly"."""

from __future__ import annotations

import pyarrow as pa
import pytest

from pipeline.jobs.generate import generate, make_plans
from pipeline.jobs.query import open_query, run
from pipeline.jobs.query.every_deal import exact_every_deal
from pipeline.jobs.search import chance_in_games
from pipeline.model.rules import build_rules
from pipeline.present.findings import all_findings
from pipeline.present.report import build_report_data
from pipeline.storage.dataset import Dataset

SHUFFLED = build_rules("classic", {"ranks": "3", "suits": "2", "war_down": "0"})  # the default pickup
NATURAL = build_rules("classic", {"ranks": "3", "suits": "2", "war_down": "0", "pickup": "natural"})
EXACT = ("exact_outcomes", "exact_length", "exact_cards_laid", "records", "cycle_periods")


def rows(root, name):
    return run(root, name=name).to_pylist()


def answered(root, name) -> tuple[list[dict], str]:
    """A named query's rows and its note (what its reader should know)."""
    with open_query(root, name=name) as result:
        reader = result.batches()
        return pa.Table.from_batches(list(reader), schema=reader.schema).to_pylist(), result.note or ""


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """Every deal of a 6-card deck under shuffled pickup, then under natural pickup."""
    root = tmp_path_factory.mktemp("chance") / "ds"
    generate(root, make_plans([SHUFFLED], all_deals=True), seed=3)
    generate(root, make_plans([NATURAL], all_deals=True), append=True)
    return root


def test_the_exact_queries_leave_out_a_rule_set_whose_games_draw_and_say_why(mixed):
    names = {r.rules_id: n for r, n in ((SHUFFLED, "shuffled"), (NATURAL, "natural"))}
    for query in EXACT:
        got, note = answered(mixed, query)
        assert {names[r["rules_id"]] for r in got} <= {"natural"}, (query, got)
        assert "pickup=shuffled draws" in note and "a sample, not exact" in note and "war solve" in note, note
    assert {names[r["rules_id"]] for r in rows(mixed, "exact_outcomes")} == {"natural"}
    cycles = run(mixed, name="cycles").to_pylist()  # any rows of the shuffled rule set are not exact
    assert not any(r["every_deal"] for r in cycles if r["rules_id"] == SHUFFLED.rules_id)


def test_counts_of_every_deal_under_shuffled_pickup_give_no_exact_answer_whatever_the_seed(tmp_path):
    for seed in (0, 99):
        root = tmp_path / f"s{seed}"
        generate(root, make_plans([SHUFFLED], all_deals=True, log="counts"), seed=seed)
        got, note = answered(root, "exact_outcomes")
        assert got == [] and "no rule set" in note and "war solve" in note, note


def test_a_policy_that_draws_makes_every_deal_a_sample_and_one_that_does_not_leaves_it_exact(tmp_path):
    rules = build_rules("arneson", {"ranks": "3", "suits": "2", "pickup": "natural"})  # default hand:random
    generate(tmp_path / "random", make_plans([rules], all_deals=True))
    generate(tmp_path / "highest", make_plans([rules], all_deals=True, policies=("hand:highest", "hand:highest")))
    assert rows(tmp_path / "random", "exact_outcomes") == []
    assert "seat 0 plays hand:random" in answered(tmp_path / "random", "exact_outcomes")[1]
    assert sum(r["numerator"] for r in rows(tmp_path / "highest", "exact_outcomes")
               if r["result"] in ("decided", "draw", "capped", "cycle")) == 90
    (random,), (highest,) = (Dataset.open(tmp_path / d).manifest.rule_sets for d in ("random", "highest"))
    assert not exact_every_deal(random) and exact_every_deal(highest)


@pytest.mark.parametrize("variant, options", [("classic", {"pickup": "natural"}), ("classic", {}),
                                              ("classic", {"pickup": "pooled"}), ("steal", {}),
                                              ("arneson", {"pickup": "sorted"}), ("multiplayer", {"pickup": "winner_first"})])
def test_exact_every_deal_agrees_with_chance_in_games_for_the_default_policies(tmp_path, variant, options):
    rules = build_rules(variant, {"ranks": "3", "suits": "2", **options})
    generate(tmp_path / "ds", make_plans([rules], all_deals=True, log="games"))
    (entry,) = Dataset.open(tmp_path / "ds").manifest.rule_sets
    assert exact_every_deal(entry) == (chance_in_games(rules) is None)


def test_the_report_gives_a_rule_set_whose_games_draw_intervals_not_exact_fractions(mixed):
    data = build_report_data(mixed)
    shuffled, natural = (next(r for r in data.rule_sets if r.rules_id == x.rules_id) for x in (SHUFFLED, NATURAL))
    assert not shuffled.all_deals and not shuffled.partial and "pickup=shuffled" in shuffled.drawn
    assert natural.all_deals and not natural.drawn
    assert not data.is_exact(shuffled.name) and data.is_exact(natural.name)
    assert any(shuffled.name in line and "not exact" in line and "war solve" in line for line in data.missing)
    said = [f.text for f in all_findings(data)[0].get("classic", [])]
    for text in said:  # a sentence about the shuffled rule set alone gives it no exact fraction
        if shuffled.name in text and natural.name not in text:
            assert "exactly" not in text, text


def test_a_partial_enumeration_under_shuffled_pickup_is_not_told_every_deal_would_be_exact(tmp_path):
    generate(tmp_path / "ds", make_plans([SHUFFLED], games=10, all_deals=True))
    got, note = answered(tmp_path / "ds", "exact_outcomes")
    assert got == [] and "--all-deals --out NEW" in note and "even every deal is a sample" in note, note
