"""Classic War's battles and wars (rules 2.1 to 2.3, with 1.4's log of the deal): the highest card
takes the table and suits never matter (2.1); a tie for the highest card is a war of three down
and one up among those tied, repeated among those still tied, whose winner takes every card on
the table (2.2); a player short of cards for a war puts its last card up, or loses under `lose`,
and the last one left in a war takes the table at once (2.3, docs/decisions.md ruling 1). One rule
point at a time on small hand-built deals (tests/rulekit.py) with a fixed pickup order, so whole
games are exact; every expected event sequence and summary was worked out by hand from
docs/rules.md, not copied from the engine. Cards not dealt in a test are set aside, so a game is
won by holding every card in play, and every game is replayed from its log to an equal summary.
"""

from __future__ import annotations

import pytest

from rulekit import (ALL_OUT, ALL_OUT4, BATTLE, COLLECT, DEAL, DOUBLE, DOWN, END, FORFEIT, LOSE3, LOW_TIE, NO_CARD3,
                     NOT_TIED, ONE_LEFT, OUT, PLAY, SET_ASIDE, SHORT1, SHORT3, THREE_WAY, WAR, WAR1, WAR_OUT, body,
                     check_summary, classic_rules, cs, play)


# ---------------------------------------------------------------------------------------------
# The log's start (rules 1.4: the log records the deal and the cards set aside)


def test_log_starts_with_each_seats_pile_then_the_set_aside_cards():
    """The deal events give each pile top first; the rest of the deck is logged as set aside."""
    events, summary = play(classic_rules(), BATTLE)
    assert events[0] == DEAL(0, "KS", "2C")
    assert events[1] == DEAL(1, "5H", "3D")
    aside = events[2]
    assert (aside.battle, aside.kind, aside.seat) == (0, "set_aside", None)
    assert sorted(aside.cards) == sorted(set(range(52)) - set(cs("KS", "2C", "5H", "3D")))
    assert summary.cards_set_aside == 48


# ---------------------------------------------------------------------------------------------
# 2.1 Battle


def test_2_1_battle_highest_card_wins_the_table():
    """2.1: both turn their top card up, the higher rank takes both; won cards go to the bottom
    (1.3), so A plays its old 2C before the KS it won. Game: KS>5H, 2C<3D, KS>2C, 5H>3D."""
    events, summary = play(classic_rules(), BATTLE)
    assert body(events) == [
        PLAY(1, 0, "KS"), PLAY(1, 1, "5H"), COLLECT(1, 0, "KS", "5H"),
        PLAY(2, 0, "2C"), PLAY(2, 1, "3D"), COLLECT(2, 1, "2C", "3D"),
        PLAY(3, 0, "KS"), PLAY(3, 1, "2C"), COLLECT(3, 0, "KS", "2C"),
        PLAY(4, 0, "5H"), PLAY(4, 1, "3D"), COLLECT(4, 0, "5H", "3D"),
        OUT(4, 1), END(4, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=4, wars=0, war_battles=0,
                  max_war_depth=0, war_wins=[0, 0], final_cards=[4, 0], cards_set_aside=48,
                  cycle_length=None)


def test_2_1_suits_never_matter_a_tie_is_same_rank():
    """2.1/1.1: 7C and 7D are the same rank, so they tie (a war), whatever the suits."""
    events, _ = play(classic_rules(), WAR1)
    assert WAR(1, (0, 1), 1) in events


# ---------------------------------------------------------------------------------------------
# 2.2 War


def test_2_2_war_tied_players_put_three_down_and_one_up():
    """2.2: on a tie each puts 3 cards face down and 1 up; the higher new card (KC) wins the
    whole table (table order, 2.4)."""
    events, summary = play(classic_rules(), WAR1)
    assert body(events) == [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "KC"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "5D"),
        COLLECT(1, 0, "7C", "7D", "2C", "3C", "4C", "KC", "2D", "3D", "4D", "5D"),
        OUT(1, 1), END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=1, wars=1, war_battles=1,
                  max_war_depth=1, war_wins=[1, 0], final_cards=[10, 0], cards_set_aside=42)


def test_2_2_war_winner_takes_cards_of_players_not_in_the_tie():
    """2.2, 3 players: seats 0 and 2 tie on 9s, seat 1 (8D) is not in the war and adds no cards,
    yet its 8D goes to the war's winner (seat 2, KH)."""
    events, summary = play(classic_rules(players=3), NOT_TIED)
    assert body(events) == [
        PLAY(1, 0, "9C"), PLAY(1, 1, "8D"), PLAY(1, 2, "9H"), WAR(1, (0, 2), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "5C"),
        DOWN(1, 2, "2H", "3H", "4H"), PLAY(1, 2, "KH"),
        COLLECT(1, 2, "9C", "8D", "9H", "2C", "3C", "4C", "5C", "2H", "3H", "4H", "KH"),
        PLAY(2, 0, "6C"), PLAY(2, 1, "6D"), PLAY(2, 2, "9C"), COLLECT(2, 2, "6C", "6D", "9C"),
        OUT(2, 0), OUT(2, 1), END(2, 2, "win"),
    ]
    check_summary(summary, outcome="win", winner=2, battles=2, wars=1, war_battles=1,
                  max_war_depth=1, war_wins=[0, 0, 1], final_cards=[0, 0, 13], cards_set_aside=39)


def test_2_2_tie_below_the_highest_card_is_no_war():
    """2.2: only a tie for the *highest* rank is a war; 5D and 5H tie below AC, AC just wins."""
    events, summary = play(classic_rules(players=3), LOW_TIE)
    assert body(events) == [
        PLAY(1, 0, "AC"), PLAY(1, 1, "5D"), PLAY(1, 2, "5H"), COLLECT(1, 0, "AC", "5D", "5H"),
        OUT(1, 1), OUT(1, 2), END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=1, wars=0, war_battles=0,
                  max_war_depth=0, war_wins=[0, 0, 0], final_cards=[4, 0, 0])


def test_2_2_repeated_war_is_only_among_those_still_tied():
    """2.2, 3 players tie on 7s: a three-way war. Its face-up cards are KC, KD, 5H: the next war
    is between seats 0 and 1 only (seat 2 adds nothing), and its winner (AC) also takes all of
    seat 2's cards. Seat 2 keeps 6H, which loses to 7C in battle 2."""
    events, summary = play(classic_rules(players=3), THREE_WAY)
    assert body(events) == [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"), PLAY(1, 2, "7H"), WAR(1, (0, 1, 2), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "KC"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "KD"),
        DOWN(1, 2, "2H", "3H", "4H"), PLAY(1, 2, "5H"),
        WAR(1, (0, 1), 2),
        DOWN(1, 0, "5C", "6C", "8C"), PLAY(1, 0, "AC"),
        DOWN(1, 1, "5D", "6D", "8D"), PLAY(1, 1, "9D"),
        COLLECT(1, 0, "7C", "7D", "7H", "2C", "3C", "4C", "KC", "2D", "3D", "4D", "KD",
                "2H", "3H", "4H", "5H", "5C", "6C", "8C", "AC", "5D", "6D", "8D", "9D"),
        OUT(1, 1),
        PLAY(2, 0, "7C"), PLAY(2, 2, "6H"), COLLECT(2, 0, "7C", "6H"),
        OUT(2, 2), END(2, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=2, wars=2, war_battles=1,
                  max_war_depth=2, war_wins=[1, 0, 0], final_cards=[24, 0, 0],
                  cards_set_aside=28)


def test_2_2_war_depth_is_the_number_of_wars_a_battle_took():
    """2.2: 7s tie, then the war's face-up Jacks tie: a double war, depth 2; `wars` counts both
    wars, `war_battles` the one battle."""
    events, summary = play(classic_rules(), DOUBLE)
    wars = [e for e in events if e.kind == "war"]
    assert wars == [WAR(1, (0, 1), 1), WAR(1, (0, 1), 2)]
    check_summary(summary, outcome="win", winner=0, battles=1, wars=2, war_battles=1,
                  max_war_depth=2, war_wins=[1, 0], final_cards=[18, 0], cards_set_aside=34)


# ---------------------------------------------------------------------------------------------
# 2.3 Running short


@pytest.mark.parametrize("piles, expected_body, final", [
    pytest.param(SHORT3, [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C"), PLAY(1, 0, "KC"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "5D"),
        COLLECT(1, 0, "7C", "7D", "2C", "3C", "KC", "2D", "3D", "4D", "5D"),
        OUT(1, 1), END(1, 0, "win"),
    ], [9, 0], id="3_cards_2_down_1_up"),
    pytest.param(SHORT1, [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"), WAR(1, (0, 1), 1),
        PLAY(1, 0, "2C"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "5D"),
        COLLECT(1, 1, "7C", "7D", "2C", "2D", "3D", "4D", "5D"),
        OUT(1, 0), END(1, 1, "win"),
    ], [0, 7], id="1_card_0_down_1_up"),
])
def test_2_3_last_card_up_puts_last_card_face_up(piles, expected_body, final):
    """2.3 `last_card_up`: holding m <= 3 cards for a war, a player puts m-1 down and its last
    card face up (no `down` event when m = 1)."""
    events, summary = play(classic_rules(shortfall="last_card_up"), piles)
    assert body(events) == expected_body
    assert summary.final_cards == final
    assert summary.outcome == "win" and summary.wars == 1


def test_2_3_lose_player_who_cannot_complete_a_war_is_out_at_once():
    """2.3 `lose`: A holds 3 cards, too few for 3 down + 1 up: it is out of the game at once, its
    3 cards go onto the table after the cards there, and its KC (which would win under
    `last_card_up`) is never turned up. B takes the table and wins.
    B, the only one left in the war, wins the table at once without adding cards."""
    events, summary = play(classic_rules(shortfall="lose"), SHORT3)
    b = body(events)
    assert b[:5] == [PLAY(1, 0, "7C"), PLAY(1, 1, "7D"), WAR(1, (0, 1), 1),
                     FORFEIT(1, 0, "2C", "3C", "KC"), OUT(1, 0)]
    assert PLAY(1, 0, "KC") not in b
    collects = [e for e in b if e.kind == "collect"]
    assert len(collects) == 1 and collects[0].seat == 1
    assert collects[0].cards == cs("7C", "7D", "2C", "3C", "KC")
    assert b[-1] == END(1, 1, "win")
    check_summary(summary, outcome="win", winner=1, battles=1, wars=1, war_wins=[0, 1],
                  final_cards=[0, 9])


def test_2_3_lose_in_a_three_way_war_the_others_fight_on():
    """2.3 `lose`, 3 players all tied on 7s: seat 0 (2 cards left) forfeits and is out; seats 1
    and 2 complete the war, 9H beats 5D and seat 2 takes every card, seat 0's included."""
    events, summary = play(classic_rules(players=3, shortfall="lose"), LOSE3)
    assert body(events) == [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"), PLAY(1, 2, "7H"), WAR(1, (0, 1, 2), 1),
        FORFEIT(1, 0, "2C", "3C"), OUT(1, 0),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "5D"),
        DOWN(1, 2, "2H", "3H", "4H"), PLAY(1, 2, "9H"),
        COLLECT(1, 2, "7C", "7D", "7H", "2C", "3C", "2D", "3D", "4D", "5D", "2H", "3H", "4H",
                "9H"),
        PLAY(2, 1, "6D"), PLAY(2, 2, "7C"), COLLECT(2, 2, "6D", "7C"),
        OUT(2, 1), END(2, 2, "win"),
    ]
    check_summary(summary, outcome="win", winner=2, battles=2, wars=1, war_battles=1,
                  max_war_depth=1, war_wins=[0, 0, 1], final_cards=[0, 0, 14],
                  cards_set_aside=38)


def test_2_3_player_with_no_card_is_out_of_that_war():
    """2.3: seat 0 played its only card into a three-way tie; holding nothing it is out of that
    war (cannot win it), its 7C goes to the war's winner, and it is out after the battle."""
    events, summary = play(classic_rules(players=3), NO_CARD3)
    assert body(events) == [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"), PLAY(1, 2, "7H"), WAR(1, (0, 1, 2), 1),
        WAR_OUT(1, 0),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "5D"),
        DOWN(1, 2, "2H", "3H", "4H"), PLAY(1, 2, "9H"),
        COLLECT(1, 2, "7C", "7D", "7H", "2D", "3D", "4D", "5D", "2H", "3H", "4H", "9H"),
        OUT(1, 0),
        PLAY(2, 1, "6D"), PLAY(2, 2, "7C"), COLLECT(2, 2, "6D", "7C"),
        OUT(2, 1), END(2, 2, "win"),
    ]
    check_summary(summary, outcome="win", winner=2, battles=2, wars=1, war_wins=[0, 0, 1],
                  final_cards=[0, 0, 12], cards_set_aside=40)


def test_2_3_only_one_left_in_the_war_wins_the_table():
    """2.3: A's only card ties B's; A holds nothing, so only B is left in the war: B wins the
    table (no further war), A is out, B holds all 6 cards."""
    events, summary = play(classic_rules(), ONE_LEFT)
    b = body(events)
    assert b[:4] == [PLAY(1, 0, "9C"), PLAY(1, 1, "9D"), WAR(1, (0, 1), 1), WAR_OUT(1, 0)]
    assert [e for e in b if e.kind == "war"] == [WAR(1, (0, 1), 1)]
    collects = [e for e in b if e.kind == "collect"]
    assert len(collects) == 1 and collects[0].seat == 1
    assert collects[0].cards[:2] == cs("9C", "9D")
    assert b[-2:] == [OUT(1, 0), END(1, 1, "win")]
    check_summary(summary, outcome="win", winner=1, battles=1, wars=1, war_wins=[0, 1],
                  final_cards=[0, 6])


@pytest.mark.parametrize("shortfall, piles, expected_body", [
    pytest.param("last_card_up", ONE_LEFT, [
        PLAY(1, 0, "9C"), PLAY(1, 1, "9D"), WAR(1, (0, 1), 1), WAR_OUT(1, 0),
        COLLECT(1, 1, "9C", "9D"), OUT(1, 0), END(1, 1, "win"),
    ], id="war_out"),
    pytest.param("lose", SHORT3, [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"), WAR(1, (0, 1), 1),
        FORFEIT(1, 0, "2C", "3C", "KC"), OUT(1, 0),
        COLLECT(1, 1, "7C", "7D", "2C", "3C", "KC"), END(1, 1, "win"),
    ], id="forfeit"),
])
def test_2_3_only_one_left_in_the_war_wins_at_once_without_adding_cards(shortfall, piles,
                                                                        expected_body):
    """2.3: once the other player is out of the war (no card, or forfeit under `lose`), the one
    left wins the table *at once*: it adds no cards, the table is just the cards already there."""
    events, _ = play(classic_rules(shortfall=shortfall), piles)
    assert body(events) == expected_body


def test_2_3_everyone_in_the_war_out_of_cards_table_set_aside_and_draw():
    """2.3: 5s tie, each turns its last card up (7s), tie again; in the second war both hold
    nothing: both are out of it, the table is set aside (logged), both are out: a `draw`."""
    events, summary = play(classic_rules(), ALL_OUT)
    assert body(events) == [
        PLAY(1, 0, "5C"), PLAY(1, 1, "5D"), WAR(1, (0, 1), 1),
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"), WAR(1, (0, 1), 2),
        WAR_OUT(1, 0), WAR_OUT(1, 1), SET_ASIDE(1, "5C", "5D", "7C", "7D"),
        OUT(1, 0), OUT(1, 1), END(1, None, "draw"),
    ]
    check_summary(summary, outcome="draw", winner=None, battles=1, wars=2, war_battles=1,
                  max_war_depth=2, war_wins=[0, 0], final_cards=[0, 0], cards_set_aside=52)


def test_2_3_everyone_in_the_war_out_of_cards_the_others_play_on():
    """2.3, 4 players: seats 0 and 1 tie with their last cards and are both out; the whole table
    (seats 2 and 3's battle cards too) is set aside; seats 2 and 3 play on, seat 2 wins."""
    events, summary = play(classic_rules(players=4), ALL_OUT4)
    assert body(events) == [
        PLAY(1, 0, "9C"), PLAY(1, 1, "9D"), PLAY(1, 2, "5H"), PLAY(1, 3, "4S"),
        WAR(1, (0, 1), 1), WAR_OUT(1, 0), WAR_OUT(1, 1),
        SET_ASIDE(1, "9C", "9D", "5H", "4S"), OUT(1, 0), OUT(1, 1),
        PLAY(2, 2, "6H"), PLAY(2, 3, "3S"), COLLECT(2, 2, "6H", "3S"),
        OUT(2, 3), END(2, 2, "win"),
    ]
    check_summary(summary, outcome="win", winner=2, battles=2, wars=1, war_wins=[0, 0, 0, 0],
                  final_cards=[0, 0, 2, 0], cards_set_aside=50)


# ---------------------------------------------------------------------------------------------
# 2.8 Aces low


def test_2_8_aces_low_the_ace_loses_to_the_2_and_beats_nothing():
    """2.8, aces=low: the Ace ranks below the 2, so 2D takes AS; the King still beats the 3 and,
    now, the Ace. Game: AS<2D, KC>3H, KC>AS, 3H>2D. With aces high the Ace takes the first battle."""
    deal = (["AS", "KC"], ["2D", "3H"])
    events, summary = play(classic_rules(aces="low"), deal)
    assert body(events) == [
        PLAY(1, 0, "AS"), PLAY(1, 1, "2D"), COLLECT(1, 1, "AS", "2D"),
        PLAY(2, 0, "KC"), PLAY(2, 1, "3H"), COLLECT(2, 0, "KC", "3H"),
        PLAY(3, 0, "KC"), PLAY(3, 1, "AS"), COLLECT(3, 0, "KC", "AS"),
        PLAY(4, 0, "3H"), PLAY(4, 1, "2D"), COLLECT(4, 0, "3H", "2D"),
        OUT(4, 1), END(4, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=4, wars=0, final_cards=[4, 0])
    high, _ = play(classic_rules(), deal)
    assert body(high)[2] == COLLECT(1, 0, "AS", "2D")


def test_2_8_aces_low_orders_a_sorted_pickup_with_the_ace_last():
    """2.4 `sorted` takes the highest rank first: under aces=low the 2 comes before the Ace."""
    events, _ = play(classic_rules(aces="low", pickup="sorted"), (["AS", "KC"], ["2D", "3H"]))
    assert body(events)[2] == COLLECT(1, 1, "2D", "AS")
