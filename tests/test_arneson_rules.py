"""Arneson's War (rules 7, as read by docs/decisions.md rulings 15-18): two players, 52 cards and
hands of three (7.1); each player chooses a card unseen, both play, both refill, the higher wins
(7.2); a war of three down from the pile and a fourth card from the hand, whose winner takes the
face-down and fourth cards and whose loser takes the cards that caused it (7.3); running out of
pile and hand (7.4); and every choice logged, replay refusing a card that was not in the hand
(7.5). Each game is a small hand-built deal with scripted decisions (`Script`, tests/rulekit.py)
whose events and summary were worked out by hand, and every game is replayed from its log. Both
players put their face-down cards down and then both choose and play their fourth cards (ruling
16), so a war's table order is both players' face-down cards (seat 0's, then seat 1's), then both
fourth cards.
"""

from __future__ import annotations

import pytest

from pipeline.errors import LogMismatch, RulesError
from pipeline.engines.game import play_game, replay_log
from pipeline.model.deal import deck_of
from pipeline.model.rng import Xoshiro256
from pipeline.model.rules import build_rules
from rulekit import (COLLECT, DEAL, DOWN, DRAW, END, HAND, OUT, PLAY, SET_ASIDE, WAR, WAR_OUT, Script,
                     after_deal, arneson_rules, check_summary, code, cs, decision_index, fisher_yates, hand,
                     run_arneson, tampered)


# ---------------------------------------------------------------------------------------------
# 7.1 Deal and hands


def test_7_1_arneson_is_two_players_52_cards_hands_of_three():
    rule_set = build_rules("arneson")
    assert (rule_set.players, rule_set.jokers, rule_set.hand_size) == (2, 0, 3)
    assert deck_of(rule_set).size == 52
    with pytest.raises(RulesError):
        build_rules("arneson", {"players": 3})


@pytest.mark.parametrize("seed", [2, 9])
def test_7_1_dealt_26_each_then_each_draws_its_top_three_cards(seed):
    rule_set = arneson_rules(max_battles=1)
    events, _, _ = play_game(rule_set, seed, policies=("hand:highest", "hand:lowest"))
    deck = fisher_yates(Xoshiro256(seed), range(52))
    piles = [deck[0::2], deck[1::2]]
    assert events[:4] == [
        DEAL(0, *piles[0]),
        DEAL(1, *piles[1]),
        DRAW(0, 0, *piles[0][:3]),
        DRAW(0, 1, *piles[1][:3]),
    ]


# ---------------------------------------------------------------------------------------------
# 7.2 Battle

# Seat 0 holds KC 2C 3C and an empty pile; seat 1 holds 5D 6D 7D, pile 8D.
BATTLE_A = (["KC", "2C", "3C"], ["5D", "6D", "7D", "8D"])


@pytest.mark.parametrize("pickup, second_collect", [
    ("table_order", ("2C", "8D")),
    ("winner_first", ("8D", "2C")),
])
def test_7_2_choose_unseen_play_together_refill_then_the_higher_card_wins_both(pickup,
                                                                               second_collect):
    """Battle 1: both choose (two decisions) before either card is played; both play; both draw
    back to 3 (seat 0's pile is empty: no draw); KC beats 5D and goes with it to the bottom of
    seat 0's pile. Battle 2 starts by refilling seat 0's short hand from the won cards (ruling
    17). Seat 1 wins with 8D: `table_order` gives 2C 8D (seat order), `winner_first` 8D 2C."""
    rule_set = arneson_rules(pickup=pickup, max_battles=2)
    script = Script([hand(0, "KC", "2C", "3C", "KC"), hand(1, "5D", "5D", "6D", "7D"),
                     hand(0, "2C", "2C", "3C", "KC"), hand(1, "8D", "6D", "7D", "8D")])
    events, summary = run_arneson(rule_set, BATTLE_A, script)
    assert after_deal(events, 2) == [
        DRAW(0, 0, "KC", "2C", "3C"), DRAW(0, 1, "5D", "6D", "7D"),
        HAND(1, 0, 0, "KC", "2C", "3C", "KC"), HAND(1, 1, 0, "5D", "5D", "6D", "7D"),
        PLAY(1, 0, "KC"), PLAY(1, 1, "5D"),
        DRAW(1, 1, "8D"),
        COLLECT(1, 0, "KC", "5D"),
        DRAW(2, 0, "KC"),
        HAND(2, 0, 0, "2C", "2C", "3C", "KC"), HAND(2, 1, 0, "8D", "6D", "7D", "8D"),
        PLAY(2, 0, "2C"), PLAY(2, 1, "8D"),
        DRAW(2, 0, "5D"),
        COLLECT(2, 1, *second_collect),
        END(2, None, "capped"),
    ]
    check_summary(summary, outcome="capped", winner=None, battles=2, wars=0,
                  final_cards=[3, 4], cards_set_aside=45)
    # Unseen: seat 1 chose while seat 0 still held its 3 cards (nothing was played yet).
    view0, view1 = script.views("hand", 0)[0], script.views("hand", 1)[0]
    assert (view0.hand, view0.own_pile, view0.other_pile, view0.other_hand) == (
        cs("2C", "3C", "KC"), 0, 1, 3)
    assert (view1.hand, view1.own_pile, view1.other_pile, view1.other_hand) == (
        cs("5D", "6D", "7D"), 1, 0, 3)
    assert (view1.in_war, view1.tied_rank) == (False, None)


# ---------------------------------------------------------------------------------------------
# 7.3 War

WAR_A = (["7C", "2C", "KC", "3C", "4C", "5C", "6C", "8C"],
         ["7D", "2D", "QD", "3D", "4D", "5D", "6D", "8D"])
WAR_A_SCRIPT = [hand(0, "7C", "2C", "7C", "KC"), hand(1, "7D", "2D", "7D", "QD"),
                hand(0, "KC", "2C", "3C", "KC"), hand(1, "QD", "2D", "3D", "QD")]
WAR_A_START = [
    DRAW(0, 0, "7C", "2C", "KC"), DRAW(0, 1, "7D", "2D", "QD"),
    HAND(1, 0, 0, "7C", "2C", "7C", "KC"), HAND(1, 1, 0, "7D", "2D", "7D", "QD"),
    PLAY(1, 0, "7C"), PLAY(1, 1, "7D"),
    DRAW(1, 0, "3C"), DRAW(1, 1, "3D"),
    WAR(1, (0, 1), 1),
    DOWN(1, 0, "4C", "5C", "6C"), DOWN(1, 1, "4D", "5D", "6D"),
    HAND(1, 0, 1, "KC", "2C", "3C", "KC"), HAND(1, 1, 1, "QD", "2D", "3D", "QD"),
    PLAY(1, 0, "KC"), PLAY(1, 1, "QD"),
]


def test_7_3_war_higher_fourth_takes_down_and_fourth_cards_lower_takes_the_cause():
    """A tie on 7s (after both refilled: 7.2). Each puts its pile's top 3 down, then chooses a
    fourth card from its hand (value = war depth 1). KC beats QD: seat 0 takes the 6 face-down
    cards and both fourth cards (its packet first, table order: the face-down cards, then the
    fourth cards), seat 1 takes 7C 7D, the cards that caused the war. Then both refill to 3."""
    rule_set = arneson_rules(max_battles=1)
    script = Script(WAR_A_SCRIPT)
    events, summary = run_arneson(rule_set, WAR_A, script)
    assert after_deal(events, 2) == WAR_A_START + [
        COLLECT(1, 0, "4C", "5C", "6C", "4D", "5D", "6D", "KC", "QD"),
        COLLECT(1, 1, "7C", "7D"),
        DRAW(1, 0, "8C"), DRAW(1, 1, "8D"),
        END(1, None, "capped"),
    ]
    check_summary(summary, outcome="capped", battles=1, wars=1, war_battles=1, max_war_depth=1,
                  first_battle_war=True, war_wins=[1, 0], final_cards=[11, 5], cards_set_aside=36)
    view = script.views("hand", 1)[1]
    assert (view.in_war, view.tied_rank) == (True, deck_of(rule_set).rank[code("7D")])


@pytest.mark.parametrize("seed", [0, 3])
def test_7_3_shuffled_pickup_shuffles_the_winners_packet_then_the_losers(seed):
    """Default pickup `shuffled` (ruling 16): the winner's packet (in table order) is shuffled
    first with the game generator, then the loser's; both go to the bottom of the piles."""
    rule_set = build_rules("arneson", {"max_battles": 1})
    assert rule_set.pickup == "shuffled"
    rng = Xoshiro256(seed)
    spoils = fisher_yates(rng, ("4C", "5C", "6C", "4D", "5D", "6D", "KC", "QD"))
    cause = fisher_yates(rng, ("7C", "7D"))
    events, summary = run_arneson(rule_set, WAR_A, Script(WAR_A_SCRIPT), seed)
    assert after_deal(events, 2) == WAR_A_START + [
        COLLECT(1, 0, *spoils), COLLECT(1, 1, *cause),
        DRAW(1, 0, "8C"), DRAW(1, 1, "8D"),
        END(1, None, "capped"),
    ]
    assert summary.final_cards == [11, 5]


def test_7_3_a_tie_between_fourth_cards_repeats_and_the_final_winner_takes_all_wars_cards():
    """7s tie, then the fourth cards 8C 8D tie: the war repeats (3 more down each, a fourth from
    the hand, not refilled in between; value = depth 2). QD beats 2C: seat 1 takes every
    face-down and fourth card of both wars, seat 0 the two 7s. `winner_first`: seat 1's packet
    starts with its own cards in the order it played them; seat 0's packet with its own 7C."""
    rule_set = arneson_rules(pickup="winner_first", max_battles=1)
    piles = (["7C", "8C", "KC", "2C", "3C", "4C", "5C", "6C", "9C", "10C", "JC", "QC"],
             ["7D", "8D", "QD", "2D", "3D", "4D", "5D", "6D", "9D", "10D", "JD", "AD"])
    script = Script([hand(0, "7C", "7C", "8C", "KC"), hand(1, "7D", "7D", "8D", "QD"),
                     hand(0, "8C", "2C", "8C", "KC"), hand(1, "8D", "2D", "8D", "QD"),
                     hand(0, "2C", "2C", "KC"), hand(1, "QD", "2D", "QD")])
    events, summary = run_arneson(rule_set, piles, script)
    assert after_deal(events, 2) == [
        DRAW(0, 0, "7C", "8C", "KC"), DRAW(0, 1, "7D", "8D", "QD"),
        HAND(1, 0, 0, "7C", "7C", "8C", "KC"), HAND(1, 1, 0, "7D", "7D", "8D", "QD"),
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"),
        DRAW(1, 0, "2C"), DRAW(1, 1, "2D"),
        WAR(1, (0, 1), 1),
        DOWN(1, 0, "3C", "4C", "5C"), DOWN(1, 1, "3D", "4D", "5D"),
        HAND(1, 0, 1, "8C", "2C", "8C", "KC"), HAND(1, 1, 1, "8D", "2D", "8D", "QD"),
        PLAY(1, 0, "8C"), PLAY(1, 1, "8D"),
        WAR(1, (0, 1), 2),
        DOWN(1, 0, "6C", "9C", "10C"), DOWN(1, 1, "6D", "9D", "10D"),
        HAND(1, 0, 2, "2C", "2C", "KC"), HAND(1, 1, 2, "QD", "2D", "QD"),
        PLAY(1, 0, "2C"), PLAY(1, 1, "QD"),
        COLLECT(1, 1, "3D", "4D", "5D", "8D", "6D", "9D", "10D", "QD",
                "3C", "4C", "5C", "8C", "6C", "9C", "10C", "2C"),
        COLLECT(1, 0, "7C", "7D"),
        DRAW(1, 0, "JC", "QC"), DRAW(1, 1, "JD", "AD"),
        END(1, None, "capped"),
    ]
    check_summary(summary, outcome="capped", battles=1, wars=2, war_battles=1, max_war_depth=2,
                  first_battle_war=True, war_wins=[0, 1], final_cards=[5, 19], cards_set_aside=28)


# ---------------------------------------------------------------------------------------------
# 7.4 Running out


def test_7_4_a_player_with_no_hand_card_and_an_empty_pile_is_out():
    """Seat 1 plays its only card and loses: it has no card to play next: out; seat 0 wins."""
    rule_set = arneson_rules()
    script = Script([hand(0, "KC", "2C", "3C", "KC"), hand(1, "5D", "5D")])
    events, summary = run_arneson(rule_set, (["KC", "2C", "3C"], ["5D"]), script)
    assert after_deal(events, 2) == [
        DRAW(0, 0, "KC", "2C", "3C"), DRAW(0, 1, "5D"),
        HAND(1, 0, 0, "KC", "2C", "3C", "KC"), HAND(1, 1, 0, "5D", "5D"),
        PLAY(1, 0, "KC"), PLAY(1, 1, "5D"),
        COLLECT(1, 0, "KC", "5D"),
        OUT(1, 1),
        END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=1, final_cards=[4, 0],
                  cards_set_aside=48)


@pytest.mark.parametrize("pile1, downs1, spoils, draw1, final", [
    # one card left in seat 1's pile: it puts that one down
    (["7D", "2D", "QD", "3D", "4D"], ("4D",), ("4C", "5C", "6C", "4D", "2C", "QD"), "4C", [4, 8]),
    # an empty pile: nothing goes down, the fourth card still comes from the hand
    (["7D", "2D", "QD", "3D"], (), ("4C", "5C", "6C", "2C", "QD"), "4C", [4, 7]),
])
def test_7_4_running_short_in_a_war_puts_down_what_the_pile_holds(pile1, downs1, spoils, draw1,
                                                                 final):
    """Seat 1's pile holds fewer than 3 cards at the war: it puts down what it has, then plays
    its fourth card from the hand, QD, which beats 2C: seat 1 takes the face-down and fourth
    cards, seat 0 the two 7s; both refill from their piles, where the won cards now are."""
    rule_set = arneson_rules(max_battles=1)
    piles = (["7C", "2C", "KC", "3C", "4C", "5C", "6C"], pile1)
    script = Script([hand(0, "7C", "2C", "7C", "KC"), hand(1, "7D", "2D", "7D", "QD"),
                     hand(0, "2C", "2C", "3C", "KC"), hand(1, "QD", "2D", "3D", "QD")])
    events, summary = run_arneson(rule_set, piles, script)
    assert after_deal(events, 2) == [
        DRAW(0, 0, "7C", "2C", "KC"), DRAW(0, 1, "7D", "2D", "QD"),
        HAND(1, 0, 0, "7C", "2C", "7C", "KC"), HAND(1, 1, 0, "7D", "2D", "7D", "QD"),
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"),
        DRAW(1, 0, "3C"), DRAW(1, 1, "3D"),
        WAR(1, (0, 1), 1),
        DOWN(1, 0, "4C", "5C", "6C"),
    ] + ([DOWN(1, 1, *downs1)] if downs1 else []) + [
        HAND(1, 0, 1, "2C", "2C", "3C", "KC"), HAND(1, 1, 1, "QD", "2D", "3D", "QD"),
        PLAY(1, 0, "2C"), PLAY(1, 1, "QD"),
        COLLECT(1, 1, *spoils), COLLECT(1, 0, "7C", "7D"),
        DRAW(1, 0, "7C"), DRAW(1, 1, draw1),
        END(1, None, "capped"),
    ]
    check_summary(summary, outcome="capped", wars=1, war_wins=[0, 1], final_cards=final)


def test_7_4_without_a_hand_card_for_the_fourth_card_a_player_loses_the_war_and_the_game():
    """Seat 1 played its only card, 7D, and could not refill: at the war it has no hand card for
    the fourth card: it is out of the war and of the game (nobody puts cards down), and seat 0
    takes the table."""
    rule_set = arneson_rules()
    script = Script([hand(0, "7C", "2C", "3C", "7C"), hand(1, "7D", "7D")])
    events, summary = run_arneson(rule_set, (["7C", "2C", "3C", "4C"], ["7D"]), script)
    assert after_deal(events, 2) == [
        DRAW(0, 0, "7C", "2C", "3C"), DRAW(0, 1, "7D"),
        HAND(1, 0, 0, "7C", "2C", "3C", "7C"), HAND(1, 1, 0, "7D", "7D"),
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"),
        DRAW(1, 0, "4C"),
        WAR(1, (0, 1), 1),
        WAR_OUT(1, 1), OUT(1, 1),
        COLLECT(1, 0, "7C", "7D"),
        END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=1, wars=1, war_battles=1,
                  max_war_depth=1, first_battle_war=True, war_wins=[1, 0], final_cards=[5, 0],
                  cards_set_aside=47)


def test_7_4_both_without_a_hand_card_draw_even_though_their_piles_hold_cards():
    """Three repeated ties empty both hands (they are not refilled during a war). At the fourth
    war neither has a hand card: both lose (ruling 17), the table is set aside and the game is a
    `draw`, though each pile still holds a card."""
    rule_set = arneson_rules()
    piles = (["7C", "8C", "9C", "2C", "3C", "4C", "5C", "6C", "10C", "JC", "QC", "KC", "AC", "2H"],
             ["7D", "8D", "9D", "2D", "3D", "4D", "5D", "6D", "10D", "JD", "QD", "KD", "AD", "2S"])
    script = Script([hand(0, "7C", "7C", "8C", "9C"), hand(1, "7D", "7D", "8D", "9D"),
                     hand(0, "8C", "2C", "8C", "9C"), hand(1, "8D", "2D", "8D", "9D"),
                     hand(0, "9C", "2C", "9C"), hand(1, "9D", "2D", "9D"),
                     hand(0, "2C", "2C"), hand(1, "2D", "2D")])
    events, summary = run_arneson(rule_set, piles, script)
    assert after_deal(events, 2) == [
        DRAW(0, 0, "7C", "8C", "9C"), DRAW(0, 1, "7D", "8D", "9D"),
        HAND(1, 0, 0, "7C", "7C", "8C", "9C"), HAND(1, 1, 0, "7D", "7D", "8D", "9D"),
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"),
        DRAW(1, 0, "2C"), DRAW(1, 1, "2D"),
        WAR(1, (0, 1), 1),
        DOWN(1, 0, "3C", "4C", "5C"), DOWN(1, 1, "3D", "4D", "5D"),
        HAND(1, 0, 1, "8C", "2C", "8C", "9C"), HAND(1, 1, 1, "8D", "2D", "8D", "9D"),
        PLAY(1, 0, "8C"), PLAY(1, 1, "8D"),
        WAR(1, (0, 1), 2),
        DOWN(1, 0, "6C", "10C", "JC"), DOWN(1, 1, "6D", "10D", "JD"),
        HAND(1, 0, 2, "9C", "2C", "9C"), HAND(1, 1, 2, "9D", "2D", "9D"),
        PLAY(1, 0, "9C"), PLAY(1, 1, "9D"),
        WAR(1, (0, 1), 3),
        DOWN(1, 0, "QC", "KC", "AC"), DOWN(1, 1, "QD", "KD", "AD"),
        HAND(1, 0, 3, "2C", "2C"), HAND(1, 1, 3, "2D", "2D"),
        PLAY(1, 0, "2C"), PLAY(1, 1, "2D"),
        WAR(1, (0, 1), 4),
        WAR_OUT(1, 0), OUT(1, 0), WAR_OUT(1, 1), OUT(1, 1),
        SET_ASIDE(1, "7C", "7D", "3C", "4C", "5C", "3D", "4D", "5D", "8C", "8D",
                  "6C", "10C", "JC", "6D", "10D", "JD", "9C", "9D",
                  "QC", "KC", "AC", "QD", "KD", "AD", "2C", "2D"),
        END(1, None, "draw"),
    ]
    check_summary(summary, outcome="draw", winner=None, battles=1, wars=4, war_battles=1,
                  max_war_depth=4, first_battle_war=True, war_wins=[0, 0], final_cards=[1, 1],
                  cards_set_aside=50)


# ---------------------------------------------------------------------------------------------
# 7.5 Choices are logged; replay reads them from the log and checks them


def war_a_game():
    rule_set = arneson_rules(max_battles=1)
    events, _ = run_arneson(rule_set, WAR_A, Script(WAR_A_SCRIPT))
    return rule_set, events


@pytest.mark.parametrize("nth, card", [
    (0, "3C"),  # battle: seat 0's next pile card, not yet in its hand
    (0, "7D"),  # battle: a card of the other player's hand
    (2, "7C"),  # war: the card seat 0 already played
    (3, "KC"),  # war: seat 0's card, claimed by seat 1
    (3, "8D"),  # war: seat 1's pile card, not in its hand
])
def test_7_5_replay_refuses_a_hand_card_that_was_not_in_the_hand(nth, card):
    rule_set, events = war_a_game()
    i = decision_index(events, "hand", nth)
    with pytest.raises(LogMismatch) as err:
        replay_log(rule_set, tampered(events, i, cards=cs(card)))
    assert err.value.seq == i


def test_7_5_replay_refuses_a_hand_decision_with_other_options():
    rule_set, events = war_a_game()
    i = decision_index(events, "hand", 0)
    with pytest.raises(LogMismatch):
        replay_log(rule_set, tampered(events, i, options=cs("2C", "7C", "KC", "3C")))


def test_7_5_replay_of_a_legal_but_different_hand_choice_disagrees_later():
    rule_set, events = war_a_game()
    i = decision_index(events, "hand", 0)
    with pytest.raises(LogMismatch) as err:
        replay_log(rule_set, tampered(events, i, cards=cs("KC")))
    assert err.value.seq > i


def test_7_5_choices_by_policies_are_logged_with_their_options_and_replay():
    rule_set = arneson_rules(max_battles=300)
    events, summary, _ = play_game(rule_set, 8, policies=("save_high", "random"))
    decisions = [e for e in events if e.kind == "decision"]
    assert decisions and {e.note for e in decisions} == {"hand"}
    assert {e.value for e in decisions} >= {0}
    for e in decisions:
        assert list(e.options) == sorted(e.options) and len(e.cards) == 1 and e.cards[0] in e.options
    assert replay_log(rule_set, events, policies=("save_high", "random")) == summary
