"""War with Jokers (rules 1.1 and 4): a Joker beats an Ace and two Jokers tie and go to war (1.1);
the `jokers` variant, Classic War with 54 cards, 27 each, and `jokers = 2` as an option of the
other variants, dealt as in 1.4, their Jokers at war in Multiplayer War and above the Ace in
Război (4). On small hand-built deals with a fixed pickup order, whose events and summaries were
worked out by hand from docs/rules.md; cards not dealt are set aside, and every game is replayed
from its log to an equal summary (tests/rulekit.py).
"""

from __future__ import annotations

import pytest

from pipeline.model.deal import deck_of
from pipeline.model.rules import build_rules
from rulekit import (COLLECT, DOWN, END, OUT, PLAY, WAR, body, check_summary, classic_rules, deal_events,
                     expected_deal, multiplayer_rules, play, play_seed, razboi_rules)


# ---------------------------------------------------------------------------------------------
# 1.1 Jokers


def test_1_1_joker_beats_an_ace():
    """1.1: JK1 beats AS (battle 1), and B, holding both, then wins: 2C < 3D."""
    events, summary = play(classic_rules(jokers=2), (["AS", "2C"], ["JK1", "3D"]))
    assert body(events) == [
        PLAY(1, 0, "AS"), PLAY(1, 1, "JK1"), COLLECT(1, 1, "AS", "JK1"),
        PLAY(2, 0, "2C"), PLAY(2, 1, "3D"), COLLECT(2, 1, "2C", "3D"),
        OUT(2, 0), END(2, 1, "win"),
    ]
    check_summary(summary, outcome="win", winner=1, battles=2, wars=0, war_battles=0,
                  war_wins=[0, 0], final_cards=[0, 4], cards_set_aside=50)


def test_1_1_two_jokers_tie_and_go_to_war():
    """1.1 + 2.2: JK1 and JK2 tie: a war, 3 down and 1 up; KC beats 5D."""
    events, summary = play(classic_rules(jokers=2),
                           (["JK1", "2C", "3C", "4C", "KC"], ["JK2", "2D", "3D", "4D", "5D"]))
    assert body(events) == [
        PLAY(1, 0, "JK1"), PLAY(1, 1, "JK2"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "KC"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "5D"),
        COLLECT(1, 0, "JK1", "JK2", "2C", "3C", "4C", "KC", "2D", "3D", "4D", "5D"),
        OUT(1, 1), END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=1, wars=1, war_battles=1,
                  max_war_depth=1, war_wins=[1, 0], final_cards=[10, 0], cards_set_aside=44)


# ---------------------------------------------------------------------------------------------
# 4 Jokers


@pytest.mark.parametrize("seed", [0, 99])
def test_4_jokers_variant_54_cards_27_each(seed):
    """4: `jokers` is Classic War with 54 cards (2 Jokers), 27 each, nothing set aside."""
    rule_set = build_rules("jokers")
    assert rule_set.jokers == 2 and rule_set.players == 2 and rule_set.war_down == 3
    assert deck_of(rule_set).size == 54
    events, summary, _ = play_seed(rule_set, seed)
    piles, aside = deal_events(events, 2)
    assert [len(p) for p in piles] == [27, 27] and aside is None
    assert sorted(piles[0] + piles[1]) == list(range(54))
    assert list(piles) == expected_deal(seed, 54, 2)[0]
    assert sum(summary.final_cards) + summary.cards_set_aside == 54


def test_4_jokers_variant_joker_tie_is_a_classic_war():
    rule_set = build_rules("jokers", {"pickup": "table_order"})
    events, summary = play(rule_set, (["JK2", "2C", "3C", "4C", "5C"], ["JK1", "2D", "3D", "4D", "KD"]))
    assert body(events) == [
        PLAY(1, 0, "JK2"), PLAY(1, 1, "JK1"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "5C"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "KD"),
        COLLECT(1, 1, "JK2", "JK1", "2C", "3C", "4C", "5C", "2D", "3D", "4D", "KD"),
        OUT(1, 0), END(1, 1, "win"),
    ]
    check_summary(summary, winner=1, final_cards=[0, 10], cards_set_aside=44)


@pytest.mark.parametrize("variant, players, each, aside", [
    ("classic", 2, 27, 0),
    ("multiplayer", 3, 18, 0),
    ("razboi", 2, 27, 0),
])
@pytest.mark.parametrize("seed", [3, 4])
def test_4_jokers_2_is_an_option_of_other_variants(variant, players, each, aside, seed):
    """4: any other variant may add Jokers with jokers = 2: a 54-card deck, dealt as in 1.4."""
    rule_set = build_rules(variant, {"jokers": 2})
    assert rule_set.jokers == 2 and rule_set.players == players
    assert deck_of(rule_set).size == 54
    events, summary, _ = play_seed(rule_set, seed)
    piles, logged_aside = deal_events(events, players)
    assert [len(p) for p in piles] == [each] * players
    assert (logged_aside is None) == (aside == 0)
    assert list(piles) == expected_deal(seed, 54, players)[0]
    assert sum(summary.final_cards) + summary.cards_set_aside == 54


def test_4_jokers_in_multiplayer_tie_and_war_one_down_one_up():
    """4 + 3.2: JK1 and JK2 tie for the highest (AH, below them, takes no part): a war of 1 down,
    1 up; KC beats QD, seat 0 takes all seven cards."""
    events, summary = play(multiplayer_rules(jokers=2),
                           (["JK1", "2C", "KC"], ["JK2", "2D", "QD"], ["AH"]))
    assert body(events) == [
        PLAY(1, 0, "JK1"), PLAY(1, 1, "JK2"), PLAY(1, 2, "AH"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C"), PLAY(1, 0, "KC"), DOWN(1, 1, "2D"), PLAY(1, 1, "QD"),
        COLLECT(1, 0, "JK1", "JK2", "AH", "2C", "KC", "2D", "QD"),
        OUT(1, 1), OUT(1, 2), END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=1, wars=1,
                  final_cards=[7, 0, 0], cards_set_aside=47)


def test_4_joker_beats_ace_in_razboi():
    events, summary = play(razboi_rules(jokers=2), (["AS"], ["JK2"]))
    assert body(events) == [PLAY(1, 0, "AS"), PLAY(1, 1, "JK2"), COLLECT(1, 1, "AS", "JK2"),
                            OUT(1, 0), END(1, 1, "win")]
    check_summary(summary, winner=1, final_cards=[0, 2], cards_set_aside=52)
