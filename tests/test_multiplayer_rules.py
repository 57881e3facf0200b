"""Multiplayer War (rules 3): 3 players by default and wars of one down and one up (3.1); the
highest card wins, a player left with no card is out and the others play on (3.1); a tie for the
highest card is a war among those tied only, repeated among those still tied, whose winner takes
the whole table, while a tie below the highest is no war (3.2); running short under
`last_card_up` and `lose`, and everyone in a war out of cards (3.3, as in 2.3). On small hand-built
deals with a fixed pickup order, whose events and summaries were worked out by hand from
docs/rules.md; cards not dealt are set aside, and every game is replayed from its log to an equal
summary (tests/rulekit.py).
"""

from __future__ import annotations

from pipeline.model.rules import build_rules
from rulekit import (COLLECT, DOWN, END, FORFEIT, OUT, PLAY, SET_ASIDE, WAR, WAR_OUT, body, check_summary,
                     multiplayer_rules, play)


# ---------------------------------------------------------------------------------------------
# 3 Multiplayer War


def test_3_1_multiplayer_defaults_3_players_and_war_down_1():
    """3.1 / 8: `multiplayer` defaults to 3 players (17 cards each, 1 set aside) and wars of
    1 down, 1 up."""
    rule_set = build_rules("multiplayer")
    assert rule_set.players == 3 and rule_set.war_down == 1 and rule_set.jokers == 0
    assert build_rules("multiplayer", {"players": 4}).war_down == 1


def test_3_1_three_players_highest_card_wins_and_an_emptied_player_is_out():
    """3.1 + 3.3 (2.6): seat 1 loses its only card and is out after battle 1; seats 0 and 2 play
    on; seat 0 wins the game."""
    events, summary = play(multiplayer_rules(), (["KC", "2C"], ["5D"], ["9H", "4H"]))
    assert body(events) == [
        PLAY(1, 0, "KC"), PLAY(1, 1, "5D"), PLAY(1, 2, "9H"), COLLECT(1, 0, "KC", "5D", "9H"),
        OUT(1, 1),
        PLAY(2, 0, "2C"), PLAY(2, 2, "4H"), COLLECT(2, 2, "2C", "4H"),
        PLAY(3, 0, "KC"), PLAY(3, 2, "2C"), COLLECT(3, 0, "KC", "2C"),
        PLAY(4, 0, "5D"), PLAY(4, 2, "4H"), COLLECT(4, 0, "5D", "4H"),
        OUT(4, 2), END(4, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=4, wars=0, war_battles=0,
                  war_wins=[0, 0, 0], final_cards=[5, 0, 0], cards_set_aside=47)


def test_3_1_four_players_eliminations_then_a_two_player_finish():
    """3.1 + 3.3, 4 players: seat 1 is out after battle 1, seat 2 after battle 2; seats 0 and 3
    play on and seat 3 (AS) wins. Worked by hand, table order:
    B1 KC 5D 9H 3S -> 0;  B2 2C . 4H AS -> 3;  B3 KC 2C -> 0;  B4 5D 4H -> 0;  B5 9H AS -> 3;
    B6 3S 9H -> 3;  B7 KC AS -> 3;  B8 2C 3S -> 3;  B9 5D 9H -> 3;  B10 4H KC -> 3."""
    events, summary = play(multiplayer_rules(players=4), (["KC", "2C"], ["5D"], ["9H", "4H"], ["3S", "AS"]))
    assert body(events) == [
        PLAY(1, 0, "KC"), PLAY(1, 1, "5D"), PLAY(1, 2, "9H"), PLAY(1, 3, "3S"),
        COLLECT(1, 0, "KC", "5D", "9H", "3S"), OUT(1, 1),
        PLAY(2, 0, "2C"), PLAY(2, 2, "4H"), PLAY(2, 3, "AS"), COLLECT(2, 3, "2C", "4H", "AS"),
        OUT(2, 2),
        PLAY(3, 0, "KC"), PLAY(3, 3, "2C"), COLLECT(3, 0, "KC", "2C"),
        PLAY(4, 0, "5D"), PLAY(4, 3, "4H"), COLLECT(4, 0, "5D", "4H"),
        PLAY(5, 0, "9H"), PLAY(5, 3, "AS"), COLLECT(5, 3, "9H", "AS"),
        PLAY(6, 0, "3S"), PLAY(6, 3, "9H"), COLLECT(6, 3, "3S", "9H"),
        PLAY(7, 0, "KC"), PLAY(7, 3, "AS"), COLLECT(7, 3, "KC", "AS"),
        PLAY(8, 0, "2C"), PLAY(8, 3, "3S"), COLLECT(8, 3, "2C", "3S"),
        PLAY(9, 0, "5D"), PLAY(9, 3, "9H"), COLLECT(9, 3, "5D", "9H"),
        PLAY(10, 0, "4H"), PLAY(10, 3, "KC"), COLLECT(10, 3, "4H", "KC"),
        OUT(10, 0), END(10, 3, "win"),
    ]
    check_summary(summary, outcome="win", winner=3, battles=10, wars=0,
                  war_wins=[0, 0, 0, 0], final_cards=[0, 0, 0, 7], cards_set_aside=45)


MP_WAR = (["9C", "2C", "KC"], ["8D", "6D"], ["9H", "3H", "5H"])


def test_3_2_war_among_the_tied_highest_one_down_one_up_winner_takes_all():
    """3.2: 9C and 9H tie for the highest card; only seats 0 and 2 go to war, 1 down and 1 up;
    KC beats 5H and seat 0 takes the whole table, seat 1's 8D included. Seat 2 is then empty
    (out); seat 0's 9C beats seat 1's 6D."""
    events, summary = play(multiplayer_rules(), MP_WAR)
    assert body(events) == [
        PLAY(1, 0, "9C"), PLAY(1, 1, "8D"), PLAY(1, 2, "9H"), WAR(1, (0, 2), 1),
        DOWN(1, 0, "2C"), PLAY(1, 0, "KC"), DOWN(1, 2, "3H"), PLAY(1, 2, "5H"),
        COLLECT(1, 0, "9C", "8D", "9H", "2C", "KC", "3H", "5H"),
        OUT(1, 2),
        PLAY(2, 0, "9C"), PLAY(2, 1, "6D"), COLLECT(2, 0, "9C", "6D"),
        OUT(2, 1), END(2, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=2, wars=1, war_battles=1,
                  max_war_depth=1, first_battle_war=True, war_wins=[1, 0, 0],
                  final_cards=[8, 0, 0], cards_set_aside=44)


def test_3_2_winner_first_pickup_in_a_multiplayer_war():
    """3.2 + 2.4 `winner_first`: the winner's own cards first in the order it played them, then
    seat 1's, then seat 2's."""
    events, summary = play(multiplayer_rules(pickup="winner_first"), MP_WAR)
    b = body(events)
    assert b[8] == COLLECT(1, 0, "9C", "2C", "KC", "8D", "9H", "3H", "5H")
    assert b[9:] == [OUT(1, 2), PLAY(2, 0, "9C"), PLAY(2, 1, "6D"), COLLECT(2, 0, "9C", "6D"),
                     OUT(2, 1), END(2, 0, "win")]
    check_summary(summary, outcome="win", winner=0, final_cards=[8, 0, 0])


def test_3_2_tie_for_a_lower_card_is_no_war():
    """3.2: 5D and 5H tie, but below AC: no war, AC takes the three cards."""
    events, summary = play(multiplayer_rules(), (["AC", "2C"], ["5D", "3D"], ["5H", "4H"]))
    assert body(events) == [
        PLAY(1, 0, "AC"), PLAY(1, 1, "5D"), PLAY(1, 2, "5H"), COLLECT(1, 0, "AC", "5D", "5H"),
        PLAY(2, 0, "2C"), PLAY(2, 1, "3D"), PLAY(2, 2, "4H"), COLLECT(2, 2, "2C", "3D", "4H"),
        OUT(2, 1),
        PLAY(3, 0, "AC"), PLAY(3, 2, "2C"), COLLECT(3, 0, "AC", "2C"),
        PLAY(4, 0, "5D"), PLAY(4, 2, "3D"), COLLECT(4, 0, "5D", "3D"),
        PLAY(5, 0, "5H"), PLAY(5, 2, "4H"), COLLECT(5, 0, "5H", "4H"),
        OUT(5, 2), END(5, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=5, wars=0, war_battles=0,
                  max_war_depth=0, war_wins=[0, 0, 0], final_cards=[6, 0, 0])


def test_3_2_four_players_lower_pair_ignored_highest_pair_at_war():
    """3.2, 4 players: 9C/9H tie for the highest and 4D/4S tie lower: only seats 0 and 2 go to
    war; the winner takes all eight cards."""
    events, summary = play(multiplayer_rules(players=4),
                           (["9C", "2C", "KC"], ["4D", "6D"], ["9H", "3H", "5H"], ["4S"]))
    assert body(events) == [
        PLAY(1, 0, "9C"), PLAY(1, 1, "4D"), PLAY(1, 2, "9H"), PLAY(1, 3, "4S"),
        WAR(1, (0, 2), 1),
        DOWN(1, 0, "2C"), PLAY(1, 0, "KC"), DOWN(1, 2, "3H"), PLAY(1, 2, "5H"),
        COLLECT(1, 0, "9C", "4D", "9H", "4S", "2C", "KC", "3H", "5H"),
        OUT(1, 2), OUT(1, 3),
        PLAY(2, 0, "9C"), PLAY(2, 1, "6D"), COLLECT(2, 0, "9C", "6D"),
        OUT(2, 1), END(2, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=2, wars=1, war_wins=[1, 0, 0, 0],
                  final_cards=[9, 0, 0, 0], cards_set_aside=43)


def test_3_2_new_tie_among_the_highest_is_another_war_among_those_tied():
    """3.2: a three-way tie on 7s; the war's up cards are KC, KD, 5H: a second war between
    seats 0 and 1 only (seat 2 adds nothing), 1 down 1 up; AC wins all 13 cards."""
    events, summary = play(multiplayer_rules(), (["7C", "2C", "KC", "3C", "AC"],
                                     ["7D", "2D", "KD", "3D", "9D"],
                                     ["7H", "2H", "5H", "6H"]))
    assert body(events) == [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"), PLAY(1, 2, "7H"), WAR(1, (0, 1, 2), 1),
        DOWN(1, 0, "2C"), PLAY(1, 0, "KC"),
        DOWN(1, 1, "2D"), PLAY(1, 1, "KD"),
        DOWN(1, 2, "2H"), PLAY(1, 2, "5H"),
        WAR(1, (0, 1), 2),
        DOWN(1, 0, "3C"), PLAY(1, 0, "AC"),
        DOWN(1, 1, "3D"), PLAY(1, 1, "9D"),
        COLLECT(1, 0, "7C", "7D", "7H", "2C", "KC", "2D", "KD", "2H", "5H", "3C", "AC",
                "3D", "9D"),
        OUT(1, 1),
        PLAY(2, 0, "7C"), PLAY(2, 2, "6H"), COLLECT(2, 0, "7C", "6H"),
        OUT(2, 2), END(2, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=2, wars=2, war_battles=1,
                  max_war_depth=2, war_wins=[1, 0, 0], final_cards=[14, 0, 0],
                  cards_set_aside=38)


def test_3_2_four_players_three_way_war_then_a_two_way_war():
    """3.2, 4 players: QC QD QS tie (JH is lower, no part in the war); the war's up cards are
    5C 10D 10S: a second war between seats 1 and 3; 9S beats 8D and seat 3 takes all 14 cards.
    Seat 1 is then empty; battle 2: QC beats 6C and 9H, and seat 3 has won."""
    events, summary = play(multiplayer_rules(players=4), (["QC", "2C", "5C", "6C"],
                                              ["QD", "3D", "10D", "4D", "8D"],
                                              ["JH", "9H"],
                                              ["QS", "4S", "10S", "7S", "9S"]))
    table = ("QC", "QD", "JH", "QS", "2C", "5C", "3D", "10D", "4S", "10S",
             "4D", "8D", "7S", "9S")
    assert body(events) == [
        PLAY(1, 0, "QC"), PLAY(1, 1, "QD"), PLAY(1, 2, "JH"), PLAY(1, 3, "QS"),
        WAR(1, (0, 1, 3), 1),
        DOWN(1, 0, "2C"), PLAY(1, 0, "5C"),
        DOWN(1, 1, "3D"), PLAY(1, 1, "10D"),
        DOWN(1, 3, "4S"), PLAY(1, 3, "10S"),
        WAR(1, (1, 3), 2),
        DOWN(1, 1, "4D"), PLAY(1, 1, "8D"),
        DOWN(1, 3, "7S"), PLAY(1, 3, "9S"),
        COLLECT(1, 3, *table),
        OUT(1, 1),
        PLAY(2, 0, "6C"), PLAY(2, 2, "9H"), PLAY(2, 3, "QC"), COLLECT(2, 3, "6C", "9H", "QC"),
        OUT(2, 0), OUT(2, 2), END(2, 3, "win"),
    ]
    check_summary(summary, outcome="win", winner=3, battles=2, wars=2, war_battles=1,
                  max_war_depth=2, war_wins=[0, 0, 0, 1], final_cards=[0, 0, 0, 16],
                  cards_set_aside=36)


def test_3_3_running_short_last_card_up():
    """3.3 (2.3 `last_card_up`): seat 0 holds one card (KC) for a 1-down-1-up war: 0 down, KC
    up. It wins the table; seat 1 is out after battle 1, seat 2 after battle 2."""
    events, summary = play(multiplayer_rules(), (["9C", "KC"], ["9D", "2D", "3D"], ["5H", "6H"]))
    assert body(events) == [
        PLAY(1, 0, "9C"), PLAY(1, 1, "9D"), PLAY(1, 2, "5H"), WAR(1, (0, 1), 1),
        PLAY(1, 0, "KC"), DOWN(1, 1, "2D"), PLAY(1, 1, "3D"),
        COLLECT(1, 0, "9C", "9D", "5H", "KC", "2D", "3D"),
        OUT(1, 1),
        PLAY(2, 0, "9C"), PLAY(2, 2, "6H"), COLLECT(2, 0, "9C", "6H"),
        OUT(2, 2), END(2, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=2, wars=1, war_wins=[1, 0, 0],
                  final_cards=[7, 0, 0], cards_set_aside=45)


def test_3_3_running_short_lose_forfeits_and_the_last_one_in_the_war_wins_at_once():
    """3.3 (2.3 `lose`): seat 0 cannot complete the war (1 card for 1 down + 1 up): it forfeits
    KC onto the table and is out at once; seat 1, alone in the war, takes the table without
    adding cards; seats 1 and 2 play on until seat 1 wins."""
    events, summary = play(multiplayer_rules(shortfall="lose"), (["9C", "KC"], ["9D", "2D", "3D"], ["5H", "6H"]))
    assert body(events) == [
        PLAY(1, 0, "9C"), PLAY(1, 1, "9D"), PLAY(1, 2, "5H"), WAR(1, (0, 1), 1),
        FORFEIT(1, 0, "KC"), OUT(1, 0),
        COLLECT(1, 1, "9C", "9D", "5H", "KC"),
        PLAY(2, 1, "2D"), PLAY(2, 2, "6H"), COLLECT(2, 2, "2D", "6H"),
        PLAY(3, 1, "3D"), PLAY(3, 2, "2D"), COLLECT(3, 1, "3D", "2D"),
        PLAY(4, 1, "9C"), PLAY(4, 2, "6H"), COLLECT(4, 1, "9C", "6H"),
        OUT(4, 2), END(4, 1, "win"),
    ]
    check_summary(summary, outcome="win", winner=1, battles=4, wars=1, war_wins=[0, 1, 0],
                  final_cards=[0, 7, 0], cards_set_aside=45)


def test_3_3_player_with_no_card_is_out_of_the_war_others_play_on():
    """3.3 (2.3): seat 0 played its last card into the tie: it is out of the war, seat 1 alone
    takes the table; seat 0 is out of the game; seats 1 and 2 play on, seat 1 wins."""
    events, summary = play(multiplayer_rules(), (["9C"], ["9D", "2D", "3D"], ["5H", "6H"]))
    assert body(events) == [
        PLAY(1, 0, "9C"), PLAY(1, 1, "9D"), PLAY(1, 2, "5H"), WAR(1, (0, 1), 1),
        WAR_OUT(1, 0), COLLECT(1, 1, "9C", "9D", "5H"), OUT(1, 0),
        PLAY(2, 1, "2D"), PLAY(2, 2, "6H"), COLLECT(2, 2, "2D", "6H"),
        PLAY(3, 1, "3D"), PLAY(3, 2, "2D"), COLLECT(3, 1, "3D", "2D"),
        PLAY(4, 1, "9C"), PLAY(4, 2, "6H"), COLLECT(4, 1, "9C", "6H"),
        OUT(4, 2), END(4, 1, "win"),
    ]
    check_summary(summary, outcome="win", winner=1, battles=4, wars=1, war_wins=[0, 1, 0],
                  final_cards=[0, 6, 0], cards_set_aside=46)


def test_3_3_everyone_in_the_war_out_of_cards_table_set_aside_and_the_other_wins():
    """3.3 (2.3): seats 0 and 1 tie with their last cards: both out of the war, the table is set
    aside, both are out of the game; seat 2, the one left, wins."""
    events, summary = play(multiplayer_rules(), (["9C"], ["9D"], ["5H", "6H"]))
    assert body(events) == [
        PLAY(1, 0, "9C"), PLAY(1, 1, "9D"), PLAY(1, 2, "5H"), WAR(1, (0, 1), 1),
        WAR_OUT(1, 0), WAR_OUT(1, 1), SET_ASIDE(1, "9C", "9D", "5H"),
        OUT(1, 0), OUT(1, 1), END(1, 2, "win"),
    ]
    check_summary(summary, outcome="win", winner=2, battles=1, wars=1, war_wins=[0, 0, 0],
                  final_cards=[0, 0, 1], cards_set_aside=51)
