"""Steal War's table (rules 6.1, 6.4 to 6.7, as read by docs/decisions.md rulings 11-13): the
54-card deck and its deal (6.1), wars of three down whose fourth card may steal (6.4), the empty
draw pile reshuffled from the won pile with the game's generator (6.5), running out (6.6) and the
end (6.7), one rule point at a time on small hand-built deals whose decisions are scripted
(`Script`, tests/rulekit.py). Every expected event sequence and summary was worked out by hand from
docs/rules.md and the rulings, not copied from the engine; cards not dealt in a test are set aside,
and every game is replayed from its log. Table order in Steal War is the order the cards came
onto the table: the battle's turn order (rulings 11 and 13), which starts with the battle's first
seat, not with seat 0.
"""

from __future__ import annotations

import pytest

from pipeline.errors import DealError, RulesError
from pipeline.engines.game import play_game
from pipeline.model.deal import check_deal, deck_of
from pipeline.model.rng import Xoshiro256
from rulekit import (DEAL, DOWN, END, OUT, PLAY, RESHUFFLE, SET_ASIDE, STEAL_DECISION, STOLEN, TOP, WAR,
                     COLLECT, Script, after_deal, check_summary, code, cs, fisher_yates, run_steal, steal,
                     steal_rules, top)


# ---------------------------------------------------------------------------------------------
# 6.1 Cards and piles


def test_6_1_steal_war_is_54_cards_with_two_jokers_above_the_ace():
    """54 cards, 2 players by default, Jokers 52 and 53 share one rank above the Ace; a running-
    out player loses (6.6: shortfall = lose); `pickup` does not apply (won cards go to the won
    pile, 6.3)."""
    rule_set = steal_rules()
    assert (rule_set.players, rule_set.jokers, rule_set.shortfall, rule_set.war_down) == (
        2, 2, "lose", 3)
    deck = deck_of(rule_set)
    assert deck.size == 54
    assert cs("JK1", "JK2") == (52, 53)
    assert deck.rank[52] == deck.rank[53] > deck.rank[code("AS")]
    with pytest.raises(RulesError):
        steal_rules(pickup="table_order")
    # An explicit deal must hold the whole 54-card deck: leaving out the Jokers is refused.
    with pytest.raises(DealError):
        check_deal(rule_set, [list(range(0, 52, 2)), list(range(1, 52, 2))], [])
    full = check_deal(rule_set, [list(range(0, 54, 2)), list(range(1, 54, 2))], [])
    assert [len(p) for p in full.piles] == [27, 27]


@pytest.mark.parametrize("players, each", [(2, 27), (3, 18), (4, 13)])
@pytest.mark.parametrize("seed", [3, 11])
def test_6_1_seeded_deal_is_the_54_card_deck_dealt_round_robin(players, each, seed):
    """The draw piles are dealt as in 1.4 from the shuffled 54-card deck (4 players: 2 set
    aside); the won piles start empty, so no steal is possible in battle 1."""
    rule_set = steal_rules(players=players, max_battles=1)
    events, _, _ = play_game(rule_set, seed)
    deck = fisher_yates(Xoshiro256(seed), range(54))
    for seat in range(players):
        assert events[seat] == DEAL(seat, *deck[seat:each * players:players])
    if players * each < 54:
        assert events[players] == SET_ASIDE(0, *deck[players * each:])
    assert not [e for e in events if e.kind == "steal" or e.note == "steal"]


def test_6_1_won_piles_start_empty_so_equal_ranks_in_battle_1_go_to_war():
    """Battle 1: seat 1's Joker has the rank of seat 0's Joker, but no won pile has a top card
    yet, so no steal is offered (no decision is logged); two Jokers tie (1.1) and go to war. The
    winner takes the table onto its (empty) won pile with the card it chooses on top."""
    rule_set = steal_rules()
    piles = (["JK1", "2C", "3C", "4C", "KC"], ["JK2", "2D", "3D", "4D", "5D"])
    table = ("JK1", "JK2", "2C", "3C", "4C", "KC", "2D", "3D", "4D", "5D")
    script = Script([top(0, "JK2", *table)])
    events, summary = run_steal(rule_set, piles, script)
    assert events[0] == DEAL(0, *piles[0])
    assert events[1] == DEAL(1, *piles[1])
    assert after_deal(events, 2) == [
        PLAY(1, 0, "JK1"), PLAY(1, 1, "JK2"),
        WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "KC"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "5D"),
        TOP(1, 0, "JK2", *table),
        COLLECT(1, 0, "JK2", "JK1", "2C", "3C", "4C", "KC", "2D", "3D", "4D", "5D"),
        OUT(1, 1),
        END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=1, wars=1, war_battles=1,
                  max_war_depth=1, first_battle_war=True, war_wins=[1, 0], final_cards=[10, 0],
                  cards_set_aside=44)


def test_6_1_a_joker_beats_the_ace_and_steals_a_joker_topped_pile():
    """JK1 beats AS (1.1). In battle 2 seat 1 looks at JK2, the rank of the top of seat 0's won
    pile (JK1), and steals it; its bundle is JK2, JK1, AS. It then plays 2D and loses to 3C."""
    rule_set = steal_rules(max_battles=2)
    piles = (["JK1", "3C"], ["AS", "JK2", "2D"])
    script = Script([top(0, "JK1", "JK1", "AS"), steal(1, (0,), (0,)), top(0, "3C", "2D", "3C")])
    events, summary = run_steal(rule_set, piles, script)
    assert after_deal(events, 2) == [
        PLAY(1, 0, "JK1"), PLAY(1, 1, "AS"), TOP(1, 0, "JK1", "JK1", "AS"),
        COLLECT(1, 0, "JK1", "AS"),
        STEAL_DECISION(2, 1, "JK2", (0,), (0,)), STOLEN(2, 1, ("JK2", "JK1", "AS"), (0,)),
        PLAY(2, 1, "2D"), PLAY(2, 0, "3C"), TOP(2, 0, "3C", "2D", "3C"),
        COLLECT(2, 0, "3C", "2D"),
        END(2, None, "capped"),
    ]
    check_summary(summary, outcome="capped", winner=None, battles=2, final_cards=[2, 3],
                  cards_set_aside=49)


# ---------------------------------------------------------------------------------------------
# 6.4 War


def test_6_4_war_three_down_unseen_and_the_fourth_card_may_steal():
    """Battle 2 (first seat 1) is a war on 7s. Seat 1 puts 2D 4D 5D down and plays 6D. Seat 0
    puts QH QS 2H down: Queens, the rank of seat 1's won top QD, but face-down cards are unseen,
    so no decision. Its fourth card QC is looked at: it steals seat 1's won pile with it (bundle
    QC QD 3C), looks at KC and plays it; KC wins the war. Table order follows the turn: 7D 7C,
    then seat 1's war cards, then seat 0's."""
    rule_set = steal_rules()
    piles = (["3C", "7C", "QH", "QS", "2H", "QC", "KC"], ["QD", "7D", "2D", "4D", "5D", "6D"])
    table = ("7D", "7C", "2D", "4D", "5D", "6D", "QH", "QS", "2H", "KC")
    script = Script([top(1, "QD", "3C", "QD"), steal(0, (1,), (1,)), top(0, "7C", *table)])
    events, summary = run_steal(rule_set, piles, script)
    assert after_deal(events, 2) == [
        PLAY(1, 0, "3C"), PLAY(1, 1, "QD"), TOP(1, 1, "QD", "3C", "QD"), COLLECT(1, 1, "QD", "3C"),
        PLAY(2, 1, "7D"), PLAY(2, 0, "7C"),
        WAR(2, (0, 1), 1),
        DOWN(2, 1, "2D", "4D", "5D"), PLAY(2, 1, "6D"),
        DOWN(2, 0, "QH", "QS", "2H"),
        STEAL_DECISION(2, 0, "QC", (1,), (1,)), STOLEN(2, 0, ("QC", "QD", "3C"), (1,)),
        PLAY(2, 0, "KC"),
        TOP(2, 0, "7C", *table),
        COLLECT(2, 0, "7C", "7D", "2D", "4D", "5D", "6D", "QH", "QS", "2H", "KC"),
        OUT(2, 1),
        END(2, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=2, wars=1, war_battles=1,
                  max_war_depth=1, first_battle_war=False, war_wins=[1, 0], final_cards=[13, 0],
                  cards_set_aside=41)
    (view,) = script.views("steal", 0)
    assert (view.card, view.in_war) == (code("QC"), True)


def test_6_4_a_tie_between_fourth_cards_is_another_war_of_three_down():
    """7s tie, the fourth cards 9C 9D tie: a second war (depth 2), again 3 down and a fourth.
    KC beats QD; seat 0 takes all 18 table cards, QD chosen on top."""
    rule_set = steal_rules()
    piles = (["7C", "2C", "3C", "4C", "9C", "5C", "6C", "8C", "KC"],
             ["7D", "2D", "3D", "4D", "9D", "5D", "6D", "10D", "QD"])
    table = ("7C", "7D", "2C", "3C", "4C", "9C", "2D", "3D", "4D", "9D",
             "5C", "6C", "8C", "KC", "5D", "6D", "10D", "QD")
    events, summary = run_steal(rule_set, piles, Script([top(0, "QD", *table)]))
    assert after_deal(events, 2) == [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"),
        WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "9C"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "9D"),
        WAR(1, (0, 1), 2),
        DOWN(1, 0, "5C", "6C", "8C"), PLAY(1, 0, "KC"),
        DOWN(1, 1, "5D", "6D", "10D"), PLAY(1, 1, "QD"),
        TOP(1, 0, "QD", *table),
        COLLECT(1, 0, "QD", *[x for x in table if x != "QD"]),
        OUT(1, 1),
        END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=1, wars=2, war_battles=1,
                  max_war_depth=2, first_battle_war=True, war_wins=[1, 0], final_cards=[18, 0])


def test_6_4_single_up_later_ties_put_no_cards_down():
    """Ruling 13: under `war_tiebreak = single_up`, after the first tied war the tied players
    turn single cards up (5s tie, 6s tie), until 10D beats 8C."""
    rule_set = steal_rules(war_tiebreak="single_up", max_battles=2)
    piles = (["7C", "2C", "3C", "4C", "9C", "5C", "6C", "8C", "KC"],
             ["7D", "2D", "3D", "4D", "9D", "5D", "6D", "10D", "QD"])
    table = ("7C", "7D", "2C", "3C", "4C", "9C", "2D", "3D", "4D", "9D",
             "5C", "5D", "6C", "6D", "8C", "10D")
    script = Script([top(1, "10D", *table), top(0, "KC", "QD", "KC")])
    events, summary = run_steal(rule_set, piles, script)
    assert after_deal(events, 2) == [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"),
        WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "9C"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "9D"),
        WAR(1, (0, 1), 2), PLAY(1, 0, "5C"), PLAY(1, 1, "5D"),
        WAR(1, (0, 1), 3), PLAY(1, 0, "6C"), PLAY(1, 1, "6D"),
        WAR(1, (0, 1), 4), PLAY(1, 0, "8C"), PLAY(1, 1, "10D"),
        TOP(1, 1, "10D", *table),
        COLLECT(1, 1, "10D", *[x for x in table if x != "10D"]),
        PLAY(2, 1, "QD"), PLAY(2, 0, "KC"),
        TOP(2, 0, "KC", "QD", "KC"), COLLECT(2, 0, "KC", "QD"),
        END(2, None, "capped"),
    ]
    check_summary(summary, outcome="capped", battles=2, wars=4, war_battles=1, max_war_depth=4,
                  war_wins=[0, 1], final_cards=[2, 16])


# ---------------------------------------------------------------------------------------------
# 6.5 Empty draw pile


@pytest.mark.parametrize("seed", [1, 2, 7])
def test_6_5_empty_draw_pile_reshuffles_the_won_pile_with_the_game_generator(seed):
    """Seat 0 wins a war (won pile KC 7C 7D 3C 4C 5C 3D 4D 5D 6D, top first). In battle 2 its
    draw pile is empty when it must look: the won pile, listed top to bottom, is Fisher-Yates
    shuffled with the game generator (its first use: an explicit deal draws nothing) and becomes
    the draw pile, index 0 on top; seat 0 looks at that card and plays it."""
    rule_set = steal_rules()
    piles = (["7C", "3C", "4C", "5C", "KC"], ["7D", "3D", "4D", "5D", "6D", "2D"])
    table = ("7C", "7D", "3C", "4C", "5C", "KC", "3D", "4D", "5D", "6D")
    won = ("KC", "7C", "7D", "3C", "4C", "5C", "3D", "4D", "5D", "6D")
    new_pile = fisher_yates(Xoshiro256(seed), won)
    first = new_pile[0]
    script = Script([top(0, "KC", *table), top(0, "2D", "2D", first)])
    events, summary = run_steal(rule_set, piles, script, seed)
    assert after_deal(events, 2) == [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"),
        WAR(1, (0, 1), 1),
        DOWN(1, 0, "3C", "4C", "5C"), PLAY(1, 0, "KC"),
        DOWN(1, 1, "3D", "4D", "5D"), PLAY(1, 1, "6D"),
        TOP(1, 0, "KC", *table), COLLECT(1, 0, *won),
        PLAY(2, 1, "2D"),
        RESHUFFLE(2, 0, new_pile),
        PLAY(2, 0, first),
        TOP(2, 0, "2D", "2D", first), COLLECT(2, 0, "2D", first),
        OUT(2, 1),
        END(2, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=2, final_cards=[11, 0],
                  cards_set_aside=43)


def test_6_5_the_reshuffle_order_depends_on_the_seed():
    won = ("KC", "7C", "7D", "3C", "4C", "5C", "3D", "4D", "5D", "6D")
    orders = {tuple(fisher_yates(Xoshiro256(seed), won)) for seed in (1, 2, 7)}
    assert len(orders) == 3


@pytest.mark.parametrize("seed", [0, 4])
def test_6_5_stealing_with_the_last_draw_card_reshuffles_before_the_next_look(seed):
    """Seat 0 steals with 5H, its last draw card; to look at its next card it reshuffles its won
    pile, which is now the bundle 5H 5C 9D."""
    rule_set = steal_rules()
    piles = (["5C", "5H"], ["9D", "2D"])
    new_pile = fisher_yates(Xoshiro256(seed), ("5H", "5C", "9D"))
    first = new_pile[0]
    script = Script([top(1, "5C", "5C", "9D"), steal(0, (1,), (1,)), top(0, "2D", "2D", first)])
    events, summary = run_steal(rule_set, piles, script, seed)
    assert after_deal(events, 2) == [
        PLAY(1, 0, "5C"), PLAY(1, 1, "9D"), TOP(1, 1, "5C", "5C", "9D"), COLLECT(1, 1, "5C", "9D"),
        PLAY(2, 1, "2D"),
        STEAL_DECISION(2, 0, "5H", (1,), (1,)), STOLEN(2, 0, ("5H", "5C", "9D"), (1,)),
        RESHUFFLE(2, 0, new_pile),
        PLAY(2, 0, first),
        TOP(2, 0, "2D", "2D", first), COLLECT(2, 0, "2D", first),
        OUT(2, 1),
        END(2, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, final_cards=[4, 0], cards_set_aside=50)


# ---------------------------------------------------------------------------------------------
# 6.6 Running out


@pytest.mark.parametrize("seed", [0, 5])
def test_6_5_6_6_reshuffle_during_a_war_then_running_out_loses_at_once_two_players(seed):
    """Battle 2 (first seat 1) is a war on 7s. Seat 1 puts 3D 4D 5D down and plays 6D. Seat 0
    puts 3C down, its draw pile is empty: its won pile (KC 2D) is reshuffled and gives its next
    two down cards; then it has no card for the fourth: out at once, and with 2 players the game
    ends; seat 1 takes the table."""
    rule_set = steal_rules()
    piles = (["KC", "7C", "3C"], ["2D", "7D", "3D", "4D", "5D", "6D"])
    new_pile = fisher_yates(Xoshiro256(seed), ("KC", "2D"))
    table = ("7D", "7C", "3D", "4D", "5D", "6D", "3C", *new_pile)
    script = Script([top(0, "KC", "KC", "2D"), top(1, "6D", *table)])
    events, summary = run_steal(rule_set, piles, script, seed)
    assert after_deal(events, 2) == [
        PLAY(1, 0, "KC"), PLAY(1, 1, "2D"), TOP(1, 0, "KC", "KC", "2D"), COLLECT(1, 0, "KC", "2D"),
        PLAY(2, 1, "7D"), PLAY(2, 0, "7C"),
        WAR(2, (0, 1), 1),
        DOWN(2, 1, "3D", "4D", "5D"), PLAY(2, 1, "6D"),
        DOWN(2, 0, "3C"), RESHUFFLE(2, 0, new_pile), DOWN(2, 0, *new_pile),
        OUT(2, 0),
        TOP(2, 1, "6D", *table),
        COLLECT(2, 1, "6D", "7D", "7C", "3D", "4D", "5D", "3C", *new_pile),
        END(2, 1, "win"),
    ]
    check_summary(summary, outcome="win", winner=1, battles=2, wars=1, war_battles=1,
                  max_war_depth=1, war_wins=[0, 1], final_cards=[0, 9], cards_set_aside=45)


@pytest.mark.parametrize("seed", [0, 5])
def test_6_6_running_out_first_in_the_turn_the_other_takes_the_table_at_once(seed):
    """6.6 with ruling 13: seat 1 (first in battle 2) runs out after 3D and its reshuffled KD 2C;
    it loses at once, and seat 0, the last player left in the war, takes the table at once
    without putting its own war cards down. The game ends: seat 1 holds nothing."""
    rule_set = steal_rules()
    piles = (["2C", "7C", "3C", "4C", "5C", "6C"], ["KD", "7D", "3D"])
    new_pile = fisher_yates(Xoshiro256(seed), ("KD", "2C"))
    table = ("7D", "7C", "3D", *new_pile)
    script = Script([top(1, "KD", "2C", "KD"), top(0, "7C", *table)])
    events, summary = run_steal(rule_set, piles, script, seed)
    rest = [c for c in table if c != "7C"]
    assert after_deal(events, 2) == [
        PLAY(1, 0, "2C"), PLAY(1, 1, "KD"), TOP(1, 1, "KD", "2C", "KD"), COLLECT(1, 1, "KD", "2C"),
        PLAY(2, 1, "7D"), PLAY(2, 0, "7C"),
        WAR(2, (0, 1), 1),
        DOWN(2, 1, "3D"), RESHUFFLE(2, 1, new_pile), DOWN(2, 1, *new_pile),
        OUT(2, 1),
        TOP(2, 0, "7C", *table),
        COLLECT(2, 0, "7C", *rest),
        END(2, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=2, war_wins=[1, 0], final_cards=[9, 0])


def test_6_6_running_out_in_a_war_with_three_players_its_table_cards_go_to_the_winner():
    """Seats 0 and 1 tie on 9s (seat 2's 5H is below: not in the war). Seat 0 puts 2C 3C 4C down
    and plays KC; seat 1 puts 2D 3D down and has no card left: out. Seat 0, the last in the war,
    takes every table card, seat 1's and seat 2's included. Seat 2 plays on; battle 2 starts with
    seat 2 (seat 1 is out), which loses its last card: seat 0 wins."""
    rule_set = steal_rules(players=3)
    piles = (["9C", "2C", "3C", "4C", "KC", "AC"], ["9D", "2D", "3D"], ["5H", "4H"])
    table = ("9C", "9D", "5H", "2C", "3C", "4C", "KC", "2D", "3D")
    script = Script([top(0, "KC", *table), top(0, "4H", "4H", "AC")])
    events, summary = run_steal(rule_set, piles, script)
    assert after_deal(events, 3) == [
        PLAY(1, 0, "9C"), PLAY(1, 1, "9D"), PLAY(1, 2, "5H"),
        WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "KC"),
        DOWN(1, 1, "2D", "3D"),
        OUT(1, 1),
        TOP(1, 0, "KC", *table),
        COLLECT(1, 0, "KC", "9C", "9D", "5H", "2C", "3C", "4C", "2D", "3D"),
        PLAY(2, 2, "4H"), PLAY(2, 0, "AC"),
        TOP(2, 0, "4H", "4H", "AC"), COLLECT(2, 0, "4H", "AC"),
        OUT(2, 2),
        END(2, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=2, wars=1, war_battles=1,
                  max_war_depth=1, first_battle_war=True, war_wins=[1, 0, 0],
                  final_cards=[11, 0, 0], cards_set_aside=43)


# ---------------------------------------------------------------------------------------------
# 6.7 The end


def test_6_7_the_last_one_in_a_war_wins_even_when_it_would_run_out_too():
    """Both players tie on 7s and each has one card to put down. Seat 0 runs out first and loses
    at once; seat 1, the last one left in the war, takes the table at once (rulings 1 and 13),
    so the game is a win, not a draw."""
    rule_set = steal_rules()
    events, summary = run_steal(rule_set, (["7C", "2C"], ["7D", "2D"]),
                                Script([top(1, "7D", "7C", "7D", "2C")]))
    assert after_deal(events, 2) == [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"),
        WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C"), OUT(1, 0),
        TOP(1, 1, "7D", "7C", "7D", "2C"),
        COLLECT(1, 1, "7D", "7C", "2C"),
        END(1, 1, "win"),
    ]
    check_summary(summary, outcome="win", winner=1, battles=1, wars=1, war_battles=1,
                  war_wins=[0, 1], final_cards=[0, 4], cards_set_aside=50)
