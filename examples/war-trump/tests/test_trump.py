"""Trump War's own tests: war's conformance kit (pipeline.plugin.testing) on the family, and the
rules of README.md worked out by hand on small deals."""

from __future__ import annotations

import pytest

from pipeline.plugin import testing

CASES = testing.cases("trump")


@pytest.mark.parametrize("case", CASES, ids=testing.case_id)
def test_kit_cards_replay_and_regenerate(case):
    """Every option the family plays, at each declared value (the kit's cases)."""
    testing.check_games("trump", games=3, case_list=[case])


def test_kit_validation_names_a_tamper_of_each_kind(tmp_path):
    named = testing.check_tampers("trump", tmp_path)
    assert "trump" in named


def test_kit_golden_playthrough():
    assert testing.check_golden("trump") == ["trump"]


def test_kit_no_randomized_policy_to_cycle():
    assert testing.check_drawn_never_cycle("trump") == []  # no decisions: nothing drawn


def kinds(events, battle):
    return [(e.kind, e.seat) for e in events if e.battle == battle]


def test_a_trump_beats_a_higher_card_of_another_suit_and_says_so():
    """README 2, 3: the 2 of spades takes the Ace of hearts; the trump decided it."""
    events, _ = testing.play("trump", piles=[["2S", "5C"], ["AH", "4C"]])
    assert kinds(events, 1) == [("play", 0), ("play", 1), ("trump", 0), ("collect", 0)]
    trump = next(e for e in events if e.kind == "trump")
    assert testing.label("trump", trump.cards[0]) == "2♠"


def test_a_trump_over_a_lower_card_decides_nothing_new():
    """README 3: the King of spades over the 3 of hearts wins as it would without trumps."""
    events, _ = testing.play("trump", piles=[["KS", "5C"], ["3H", "4C"]])
    assert kinds(events, 1) == [("play", 0), ("play", 1), ("collect", 0)]


def test_between_two_trumps_or_two_others_the_rank_decides_and_equal_ranks_go_to_war():
    events, _ = testing.play("trump", piles=[["3S", "9C", "AD"], ["QS", "9H", "KD"]])
    assert kinds(events, 1) == [("play", 0), ("play", 1), ("collect", 1)]
    assert ("war", None) in kinds(events, 2)
    events, _ = testing.play("trump", {"war_down": 0}, piles=[["7H", "2S", "4C"], ["7D", "AH", "5C"]])
    assert kinds(events, 1)[:3] == [("play", 0), ("play", 1), ("war", None)]
    assert ("trump", 0) in kinds(events, 1)  # the war's face-up 2♠ beats the A♥


def test_the_trump_option_names_the_suit_and_a_joker_beats_trumps():
    events, _ = testing.play("trump", {"trump": "hearts"}, piles=[["2H", "5C"], ["AS", "4C"]])
    assert ("trump", 0) in kinds(events, 1)
    events, _ = testing.play("trump", {"jokers": 2}, piles=[["AS", "5C"], ["JK1", "4C"]])
    assert kinds(events, 1) == [("play", 0), ("play", 1), ("collect", 1)]


@pytest.mark.parametrize("options", [{}, {"pickup": "table_order"}, {"players": 3, "war_down": 1}])
def test_no_trump_is_classic_war_game_for_game(options):
    """README 2: `trump = none` plays Classic War's games, event for event."""
    for seed in range(20):
        trump = testing.play("trump", {**options, "trump": "none"}, seed=seed)
        classic = testing.play("classic", options, seed=seed)
        assert trump == classic, seed
