"""Names and labels a dataset gives its rule sets and cards, as a hostile pass found them
(/work/runs/hostile-b.md D1-D4): one rule set a name, never taken from one already there, and one
label a card everywhere (the `cards` view, card_label, replay, deals files)."""

from __future__ import annotations

import json

import pytest

import pipeline as war
from pipeline.errors import RulesError
from pipeline.model.deal import deck_of, shuffled_deal
from pipeline.model.rng import Xoshiro256

pytest.importorskip("numba")

DECKS = [("classic", {"ranks": "13", "suits": "1"}), ("classic", {"ranks": "13", "suits": "3"}),
         ("jokers", {}), ("classic", {"ranks": "4", "suits": "2"}), ("classic", {"ranks": "6", "suits": "5"}),
         ("jokers", {"ranks": "10"})]


def test_the_cards_view_and_card_label_say_what_replay_and_deals_files_say(tmp_path):
    """The cards view labelled one suit of 13 ranks 1♣..13♣ where replay and deals files say
    2♣..A♣ (so a deals file refused the view's own labels), and card_label read every deck as
    the 52-card one (♥ and ♠ in a deck of two suits)."""
    plans = [war.Plan(war.build_rules(v, o), 1) for v, o in DECKS]
    war.generate(tmp_path / "d", plans, seed=1)
    rows = war.query(tmp_path / "d", sql="SELECT ranks, suits, jokers, code, label, "
                                         "card_label(code, ranks := ranks, suits := suits) AS macro FROM cards").to_pylist()
    for plan in plans:
        deck = deck_of(plan.rules)
        mine = [r for r in rows if (r["ranks"], r["suits"], r["jokers"]) == (deck.ranks, deck.suits, plan.rules.jokers)]
        assert sorted((r["code"], r["label"]) for r in mine) == [(c, deck.label(c)) for c in range(deck.size)]
        assert all(r["macro"] == r["label"] for r in mine)
    assert war.query(tmp_path / "d", sql="SELECT card_label(51) AS a, card_label(52) AS b").to_pylist() == [
        {"a": "A♠", "b": "JK1"}]  # the 52-card deck by default
    one_suit = war.build_rules("classic", {"ranks": "13", "suits": "1", "deal": "first_short"})
    labels = [r["label"] for r in rows if (r["ranks"], r["suits"]) == (13, 1)]
    line = {"piles": [labels[:6], labels[6:]], "set_aside": []}  # the view's labels, as a deals file
    (tmp_path / "deals.jsonl").write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    plans = war.make_plans([one_suit], deals=tmp_path / "deals.jsonl")
    assert [[deck_of(one_suit).label(c) for c in pile] for pile in plans[0].deals[0].piles] == line["piles"]


def test_a_deals_file_appended_beside_seeded_games_of_the_same_rules_is_a_rule_set_of_its_own(tmp_path):
    """Both were named `classic` (one rules_id), and every named query pooled the 50 seeded games
    with the 1 dealt game; the first keeps its name, the appended one is told apart."""
    root = tmp_path / "d"
    rules = war.build_rules("classic")
    war.generate(root, [war.Plan(rules, 50)], seed=0)
    dealt = war.Plan(rules, 1, [shuffled_deal(rules, Xoshiro256(7))])
    war.generate(root, [dealt], append=True)
    names = {r["ordinal"]: r["rule_set"] for r in war.query(root, sql="SELECT ordinal, rule_set FROM rules").to_pylist()}
    assert names == {0: "classic", 1: "classic (rule set 1)"}
    rows = war.query(root, name="game_length").to_pylist()
    assert sorted((r["rule_set"], r["games"]) for r in rows) == [("classic", 50), ("classic (rule set 1)", 1)]


def test_an_append_renames_no_rule_set_already_there(tmp_path):
    """`--name jokers` for a classic rule set appended to a dataset of Jokers War (named `jokers`
    by its rules) renamed that one `jokers (945...)`, and `WHERE rule_set = 'jokers'` found none
    of its games; so did a rule set named by its rules after one given that name."""
    root = tmp_path / "d"
    war.generate(root, [war.Plan(war.build_rules("jokers"), 10)], seed=0)
    with pytest.raises(RulesError, match="'jokers' already names rule set"):
        war.generate(root, [war.Plan(war.build_rules("classic"), 10, name="jokers")], append=True)
    other = tmp_path / "e"
    war.generate(other, [war.Plan(war.build_rules("jokers"), 10, name="classic")], seed=0)
    with pytest.raises(RulesError, match="'classic' already names rule set .* an append does not rename"):
        war.generate(other, [war.Plan(war.build_rules("classic"), 10)], append=True)
    for folder, name in ((root, "jokers"), (other, "classic")):
        assert war.query(folder, sql=f"SELECT count(*) AS n FROM games WHERE rule_set = '{name}'").to_pylist() == [
            {"n": 10}]
    war.generate(root, [war.Plan(war.build_rules("classic"), 10, name="plain")], append=True)
    assert war.query(root, sql="SELECT rule_set FROM rules ORDER BY ordinal").column(0).to_pylist() == ["jokers", "plain"]
