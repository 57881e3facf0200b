"""Classic War's rules (rules sections 2), one rule point at a time, on small hand-built deals.

Every expected event sequence and summary below was worked out by hand from docs/rules.md, not copied
from the engine. Cards not dealt in a test are declared set aside (out of play), so a game is won
by holding every card *in play*. Most tests use a fixed pickup order (`table_order` or
`winner_first`) so that whole games are exact; the random orders (`shuffled`, `pooled`) are
checked against a Fisher-Yates shuffle with the game's generator (docs/rules.md, "Randomness").

Every game played here is also replayed from its log (`replay_log`), which must give an equal
summary, and must raise `LogMismatch` when any one card of any one event is changed.
"""

from __future__ import annotations

import pytest

from pipeline.model.cards import Deck
from pipeline.model.deal import check_deal, deck_of
from pipeline.errors import LogMismatch
from pipeline.engines.game import play_game, replay_log
from pipeline.model.rng import Xoshiro256
from pipeline.model.rules import build_rules
from rulekit import (body, check_summary, fisher_yates, DEAL, PLAY, DOWN, WAR, WAR_OUT, FORFEIT, COLLECT, SET_ASIDE,
                     RESHUFFLE, OUT, END)

DECK = Deck()  # the standard 52-card deck: code = 4 x rank index + suit index


# ---------------------------------------------------------------------------------------------
# Helpers


def c(label: str) -> int:
    """The code of one card label, e.g. "10H"."""
    return DECK.parse(label)


def cs(*labels: str) -> tuple[int, ...]:
    return tuple(c(x) for x in labels)


def rules(**options):
    """Classic War, fixed `table_order` pickup unless a test says otherwise."""
    return build_rules("classic", {"pickup": "table_order", **options})


def deal(rule_set, *piles):
    """An explicit deal of `piles` (top card first); every other card of the deck is set aside."""
    deck = deck_of(rule_set)
    used = {deck.parse(x) for p in piles for x in p}
    rest = [code for code in range(deck.size) if code not in used]
    return check_deal(rule_set, [list(p) for p in piles], rest)


def play(rule_set, piles, seed: int = 0):
    """Play a hand-built deal; check that its log replays to an equal summary."""
    events, summary, _ = play_game(rule_set, seed, deal(rule_set, *piles))
    assert replay_log(rule_set, events) == summary
    return events, summary


def label(code: int) -> str:
    """Inverse of `c` for the letters used here ("10H" style)."""
    rank, suit = divmod(code, 4)
    return DECK.rank_label(rank) + "CDHS"[suit]


# ---------------------------------------------------------------------------------------------
# Hand-built deals (top card first), shared with the replay tests at the end.

BATTLE = (["KS", "2C"], ["5H", "3D"])
WAR1 = (["7C", "2C", "3C", "4C", "KC"], ["7D", "2D", "3D", "4D", "5D"])
NOT_TIED = (["9C", "2C", "3C", "4C", "5C", "6C"], ["8D", "6D"], ["9H", "2H", "3H", "4H", "KH"])
LOW_TIE = (["AC", "2C"], ["5D"], ["5H"])
THREE_WAY = (["7C", "2C", "3C", "4C", "KC", "5C", "6C", "8C", "AC"],
             ["7D", "2D", "3D", "4D", "KD", "5D", "6D", "8D", "9D"],
             ["7H", "2H", "3H", "4H", "5H", "6H"])
DOUBLE = (["7C", "2C", "3C", "4C", "JC", "5C", "6C", "8C", "AC"],
          ["7D", "2D", "3D", "4D", "JD", "5D", "6D", "8D", "9D"])
SHORT3 = (["7C", "2C", "3C", "KC"], ["7D", "2D", "3D", "4D", "5D"])
SHORT1 = (["7C", "2C"], ["7D", "2D", "3D", "4D", "5D"])
LOSE3 = (["7C", "2C", "3C"], ["7D", "2D", "3D", "4D", "5D", "6D"], ["7H", "2H", "3H", "4H", "9H"])
NO_CARD3 = (["7C"], ["7D", "2D", "3D", "4D", "5D", "6D"], ["7H", "2H", "3H", "4H", "9H"])
ONE_LEFT = (["9C"], ["9D", "2C", "3C", "4C", "5C"])
ALL_OUT = (["5C", "7C"], ["5D", "7D"])
ALL_OUT4 = (["9C"], ["9D"], ["5H", "6H"], ["4S", "3S"])
ORDER = (["7C", "2C", "3C", "4C", "5C", "AS"], ["7D", "2D", "3D", "4D", "9D"])
POOLED = (["KS", "QS", "2C"], ["5H", "4H", "3D"])
POOLED_WAR = (["KS", "QS", "7C"], ["2D", "3D", "7D", "4D", "5D", "6D", "8D"])
SINGLE = (["7C", "2C", "3C", "4C", "JC", "5C", "AC"], ["7D", "2D", "3D", "4D", "JD", "5D", "9D"])
ELIM3 = (["KC", "QC", "2C"], ["3D"], ["5H", "4H"])
CYCLE = (["3C"], ["2C", "2D", "6D"])
WARS2 = (["7C", "2C", "3C", "4C", "JC", "5C", "6C", "8C", "AC", "9C", "10C", "QC", "KC", "AS"],
         ["7D", "2D", "3D", "4D", "JD", "5D", "6D", "8D", "9D", "9H", "10D", "QD", "KD", "2S", "3S",
          "4S"])


# ---------------------------------------------------------------------------------------------
# The log's start (rules 1.4: the log records the deal and the cards set aside)


def test_log_starts_with_each_seats_pile_then_the_set_aside_cards():
    """The deal events give each pile top first; the rest of the deck is logged as set aside."""
    events, summary = play(rules(), BATTLE)
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
    events, summary = play(rules(), BATTLE)
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
    events, _ = play(rules(), WAR1)
    assert WAR(1, (0, 1), 1) in events


# ---------------------------------------------------------------------------------------------
# 2.2 War


def test_2_2_war_tied_players_put_three_down_and_one_up():
    """2.2: on a tie each puts 3 cards face down and 1 up; the higher new card (KC) wins the
    whole table (table order, 2.4)."""
    events, summary = play(rules(), WAR1)
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
    events, summary = play(rules(players=3), NOT_TIED)
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
    events, summary = play(rules(players=3), LOW_TIE)
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
    events, summary = play(rules(players=3), THREE_WAY)
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
    events, summary = play(rules(), DOUBLE)
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
    events, summary = play(rules(shortfall="last_card_up"), piles)
    assert body(events) == expected_body
    assert summary.final_cards == final
    assert summary.outcome == "win" and summary.wars == 1


def test_2_3_lose_player_who_cannot_complete_a_war_is_out_at_once():
    """2.3 `lose`: A holds 3 cards, too few for 3 down + 1 up: it is out of the game at once, its
    3 cards go onto the table after the cards there, and its KC (which would win under
    `last_card_up`) is never turned up. B takes the table and wins.
    B, the only one left in the war, wins the table at once without adding cards."""
    events, summary = play(rules(shortfall="lose"), SHORT3)
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
    events, summary = play(rules(players=3, shortfall="lose"), LOSE3)
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
    events, summary = play(rules(players=3), NO_CARD3)
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
    events, summary = play(rules(), ONE_LEFT)
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
    events, _ = play(rules(shortfall=shortfall), piles)
    assert body(events) == expected_body


def test_2_3_everyone_in_the_war_out_of_cards_table_set_aside_and_draw():
    """2.3: 5s tie, each turns its last card up (7s), tie again; in the second war both hold
    nothing: both are out of it, the table is set aside (logged), both are out: a `draw`."""
    events, summary = play(rules(), ALL_OUT)
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
    events, summary = play(rules(players=4), ALL_OUT4)
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
# 2.4 Collecting


def test_2_4_table_order_battle_cards_then_each_war_seat_by_seat():
    """2.4 `table_order`: B wins the war and takes 7C 7D | A's 3 down, A's up | B's 3 down, B's
    up, at the bottom in that order: B then plays 7C, 7D, 2C (cap after 4 battles)."""
    events, summary = play(rules(max_battles=4), ORDER)
    assert body(events) == [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "5C"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "9D"),
        COLLECT(1, 1, "7C", "7D", "2C", "3C", "4C", "5C", "2D", "3D", "4D", "9D"),
        PLAY(2, 0, "AS"), PLAY(2, 1, "7C"), COLLECT(2, 0, "AS", "7C"),
        PLAY(3, 0, "AS"), PLAY(3, 1, "7D"), COLLECT(3, 0, "AS", "7D"),
        PLAY(4, 0, "7C"), PLAY(4, 1, "2C"), COLLECT(4, 0, "7C", "2C"),
        END(4, None, "capped"),
    ]
    check_summary(summary, outcome="capped", winner=None, battles=4, wars=1, war_wins=[0, 1],
                  final_cards=[4, 7], cards_set_aside=41)


def test_2_4_winner_first_winners_cards_then_others_by_seat():
    """2.4 `winner_first`: B (seat 1) wins the war and takes its own cards first, in the order
    played, then A's; after that B plays 7D, 2D, 3D. In battle 2 A wins: AS first, then 7D."""
    events, summary = play(rules(pickup="winner_first", max_battles=4), ORDER)
    assert body(events) == [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "5C"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "9D"),
        COLLECT(1, 1, "7D", "2D", "3D", "4D", "9D", "7C", "2C", "3C", "4C", "5C"),
        PLAY(2, 0, "AS"), PLAY(2, 1, "7D"), COLLECT(2, 0, "AS", "7D"),
        PLAY(3, 0, "AS"), PLAY(3, 1, "2D"), COLLECT(3, 0, "AS", "2D"),
        PLAY(4, 0, "7D"), PLAY(4, 1, "3D"), COLLECT(4, 0, "7D", "3D"),
        END(4, None, "capped"),
    ]
    check_summary(summary, outcome="capped", winner=None, battles=4, wars=1, war_wins=[0, 1],
                  final_cards=[4, 7])


def test_2_4_winner_first_others_in_ascending_seat_order():
    """2.4 `winner_first`, 3 players: seat 2 wins, takes its own 5 cards, then seat 0's, then
    seat 1's; next battle it plays its own 9H first."""
    events, summary = play(rules(players=3, pickup="winner_first"), NOT_TIED)
    collects = [e for e in events if e.kind == "collect"]
    assert collects == [
        COLLECT(1, 2, "9H", "2H", "3H", "4H", "KH", "9C", "2C", "3C", "4C", "5C", "8D"),
        COLLECT(2, 2, "9H", "6C", "6D"),
    ]
    assert PLAY(2, 2, "9H") in events
    check_summary(summary, outcome="win", winner=2, battles=2, final_cards=[0, 0, 13])


def test_2_4_shuffled_is_fisher_yates_of_table_order_with_the_game_generator():
    """2.4 `shuffled`: the table, listed in table order, is shuffled once with the game's
    generator (an explicit deal draws nothing from it before play)."""
    seed = 5
    events, summary = play(rules(pickup="shuffled"), WAR1, seed=seed)
    table = cs("7C", "7D", "2C", "3C", "4C", "KC", "2D", "3D", "4D", "5D")
    order = fisher_yates(Xoshiro256(seed), table)
    assert order != list(table)
    assert body(events) == [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "KC"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "5D"),
        COLLECT(1, 0, *order),
        OUT(1, 1), END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, final_cards=[10, 0])


def test_2_4_shuffled_each_collect_draws_on_from_the_same_generator():
    """2.4 `shuffled`, several battles: A holds KS 5H, B 2C 3D; after battle 2 A's cards beat
    B's, so the game is exact once each collect's order is drawn, in turn, from one generator."""
    seed = 0
    rng = Xoshiro256(seed)
    o1 = fisher_yates(rng, cs("KS", "5H"))
    o2 = fisher_yates(rng, cs("2C", "3D"))
    o3 = fisher_yates(rng, [o1[0], o2[0]])
    o4 = fisher_yates(rng, [o1[1], o2[1]])
    assert o1 != list(cs("KS", "5H"))  # seed 0 reverses the first packet: not table order
    events, summary = play(rules(pickup="shuffled"), BATTLE, seed=seed)
    L = label
    assert body(events) == [
        PLAY(1, 0, "KS"), PLAY(1, 1, "5H"), COLLECT(1, 0, *map(L, o1)),
        PLAY(2, 0, "2C"), PLAY(2, 1, "3D"), COLLECT(2, 1, *map(L, o2)),
        PLAY(3, 0, L(o1[0])), PLAY(3, 1, L(o2[0])), COLLECT(3, 0, *map(L, o3)),
        PLAY(4, 0, L(o1[1])), PLAY(4, 1, L(o2[1])), COLLECT(4, 0, *map(L, o4)),
        OUT(4, 1), END(4, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=4, final_cards=[4, 0])


def test_2_4_pooled_won_packet_on_top_and_reshuffle_when_pile_empty():
    """2.4 `pooled`: won cards go, in table order, on top of the won pile (A's won pile after
    two wins: QS 4H KS 5H, top first). A player with an empty pile but a won pile is not out
    (2.6); when it must play, the won pile, top to bottom, is shuffled with the game's generator
    into its pile, logged as `reshuffle`. A's reshuffle comes first (seat order), then B's."""
    seed = 0
    rng = Xoshiro256(seed)
    ra = fisher_yates(rng, cs("QS", "4H", "KS", "5H"))
    rb = fisher_yates(rng, cs("2C", "3D"))
    # The test can tell "packet on top" from "packet at the bottom" with this seed.
    assert ra != fisher_yates(Xoshiro256(seed), cs("KS", "5H", "QS", "4H"))
    events, summary = play(rules(pickup="pooled"), POOLED, seed=seed)
    L = label
    assert body(events) == [
        PLAY(1, 0, "KS"), PLAY(1, 1, "5H"), COLLECT(1, 0, "KS", "5H"),
        PLAY(2, 0, "QS"), PLAY(2, 1, "4H"), COLLECT(2, 0, "QS", "4H"),
        PLAY(3, 0, "2C"), PLAY(3, 1, "3D"), COLLECT(3, 1, "2C", "3D"),
        RESHUFFLE(4, 0, ra), PLAY(4, 0, L(ra[0])), RESHUFFLE(4, 1, rb), PLAY(4, 1, L(rb[0])),
        COLLECT(4, 0, L(ra[0]), L(rb[0])),
        PLAY(5, 0, L(ra[1])), PLAY(5, 1, L(rb[1])), COLLECT(5, 0, L(ra[1]), L(rb[1])),
        OUT(5, 1), END(5, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=5, wars=0, final_cards=[6, 0])


def test_2_4_pooled_war_counts_both_piles_and_reshuffles_mid_war():
    """2.4 `pooled` with 2.3: at the 7s tie A's pile is empty but its won pile holds 4 cards,
    enough for a full war (not a shortfall): the won pile is reshuffled in, 3 go down, 1 up."""
    seed = 0
    ra = fisher_yates(Xoshiro256(seed), cs("QS", "3D", "KS", "2D"))
    winner = 0 if ra[3] in cs("QS", "KS") else 1
    events, summary = play(rules(pickup="pooled"), POOLED_WAR, seed=seed)
    L = label
    table = ["7C", "7D", *map(L, ra), "4D", "5D", "6D", "8D"]
    assert body(events) == [
        PLAY(1, 0, "KS"), PLAY(1, 1, "2D"), COLLECT(1, 0, "KS", "2D"),
        PLAY(2, 0, "QS"), PLAY(2, 1, "3D"), COLLECT(2, 0, "QS", "3D"),
        PLAY(3, 0, "7C"), PLAY(3, 1, "7D"), WAR(3, (0, 1), 1),
        RESHUFFLE(3, 0, ra), DOWN(3, 0, *map(L, ra[:3])), PLAY(3, 0, L(ra[3])),
        DOWN(3, 1, "4D", "5D", "6D"), PLAY(3, 1, "8D"),
        COLLECT(3, winner, *table), OUT(3, 1 - winner), END(3, winner, "win"),
    ]
    check_summary(summary, outcome="win", winner=winner, battles=3, wars=1,
                  final_cards=[10, 0] if winner == 0 else [0, 10])


# ---------------------------------------------------------------------------------------------
# 2.5 Repeated ties


def test_2_5_repeat_every_further_tie_is_another_full_war():
    """2.5 `repeat`: the war's Jacks tie, so both put 3 more down and 1 up; AC beats 9D and A
    takes all 18 cards in table order."""
    events, summary = play(rules(war_tiebreak="repeat"), DOUBLE)
    assert body(events) == [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "JC"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "JD"), WAR(1, (0, 1), 2),
        DOWN(1, 0, "5C", "6C", "8C"), PLAY(1, 0, "AC"),
        DOWN(1, 1, "5D", "6D", "8D"), PLAY(1, 1, "9D"),
        COLLECT(1, 0, "7C", "7D", "2C", "3C", "4C", "JC", "2D", "3D", "4D", "JD",
                "5C", "6C", "8C", "AC", "5D", "6D", "8D", "9D"),
        OUT(1, 1), END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=1, wars=2, max_war_depth=2,
                  war_wins=[1, 0], final_cards=[18, 0])


def test_2_5_single_up_after_a_tied_war_single_cards_up_no_more_down():
    """2.5 `single_up`: after the war's Jacks tie, each turns one card up (5s tie), then one
    more (AC beats 9D); nothing more goes face down. Each single-card round is logged as a
    further war (depth 2, 3)."""
    events, summary = play(rules(war_tiebreak="single_up"), SINGLE)
    assert body(events) == [
        PLAY(1, 0, "7C"), PLAY(1, 1, "7D"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "JC"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "JD"),
        WAR(1, (0, 1), 2), PLAY(1, 0, "5C"), PLAY(1, 1, "5D"),
        WAR(1, (0, 1), 3), PLAY(1, 0, "AC"), PLAY(1, 1, "9D"),
        COLLECT(1, 0, "7C", "7D", "2C", "3C", "4C", "JC", "2D", "3D", "4D", "JD",
                "5C", "5D", "AC", "9D"),
        OUT(1, 1), END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=1, wars=3, max_war_depth=3,
                  war_wins=[1, 0], final_cards=[14, 0])


def test_2_5_repeat_on_the_same_deal_is_a_second_full_war():
    """2.5 `repeat` on the `single_up` deal: the second war is a full one, short of cards
    (2.3 last_card_up: 2 cards left, 1 down and the last up), so the order differs."""
    events, summary = play(rules(war_tiebreak="repeat"), SINGLE)
    assert body(events)[7:] == [
        WAR(1, (0, 1), 2), DOWN(1, 0, "5C"), PLAY(1, 0, "AC"), DOWN(1, 1, "5D"), PLAY(1, 1, "9D"),
        COLLECT(1, 0, "7C", "7D", "2C", "3C", "4C", "JC", "2D", "3D", "4D", "JD",
                "5C", "AC", "5D", "9D"),
        OUT(1, 1), END(1, 0, "win"),
    ]
    check_summary(summary, wars=2, max_war_depth=2, final_cards=[14, 0])


# ---------------------------------------------------------------------------------------------
# 2.6 Elimination and end


def test_2_6_elimination_player_with_no_cards_is_out_and_plays_no_more():
    """2.6, 3 players: seat 1 loses its only card in battle 1 and is out after it; battle 2 is
    played by seats 0 and 2 only."""
    events, summary = play(rules(players=3), ELIM3)
    assert body(events) == [
        PLAY(1, 0, "KC"), PLAY(1, 1, "3D"), PLAY(1, 2, "5H"), COLLECT(1, 0, "KC", "3D", "5H"),
        OUT(1, 1),
        PLAY(2, 0, "QC"), PLAY(2, 2, "4H"), COLLECT(2, 0, "QC", "4H"),
        OUT(2, 2), END(2, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=2, final_cards=[6, 0, 0],
                  cards_set_aside=46)


def test_2_6_win_when_one_player_holds_every_card_in_play():
    """2.6 `win`: the 48 set-aside cards are out of play; A holding the 4 in play wins."""
    events, summary = play(rules(), BATTLE)
    assert events[-1] == END(4, 0, "win")
    assert summary.final_cards == [4, 0] and summary.cards_set_aside == 48
    assert sum(summary.final_cards) + summary.cards_set_aside == 52


def test_2_6_draw_when_no_player_has_a_card():
    """2.6 `draw`: both players run out inside the same war (2.3): no winner."""
    events, summary = play(rules(), ALL_OUT)
    assert events[-1] == END(1, None, "draw")
    check_summary(summary, outcome="draw", winner=None, final_cards=[0, 0])


def test_2_6_max_battles_cap_gives_capped():
    """2.6 `capped`: with max_battles = 2 the BATTLE game stops after 2 battles, no winner."""
    events, summary = play(rules(max_battles=2), BATTLE)
    assert body(events) == [
        PLAY(1, 0, "KS"), PLAY(1, 1, "5H"), COLLECT(1, 0, "KS", "5H"),
        PLAY(2, 0, "2C"), PLAY(2, 1, "3D"), COLLECT(2, 1, "2C", "3D"),
        END(2, None, "capped"),
    ]
    check_summary(summary, outcome="capped", winner=None, battles=2, final_cards=[2, 2],
                  cycle_length=None)


def test_2_6_game_that_ends_on_the_last_allowed_battle_is_a_win():
    """2.6: the cap applies only to a game without an end; BATTLE ends in battle 4 = cap."""
    _, summary = play(rules(max_battles=4), BATTLE)
    check_summary(summary, outcome="win", winner=0, battles=4)


def test_2_6_cycle_when_a_position_repeats():
    """2.6 `cycle`: A [3C] vs B [2C 2D 6D], table order. The position before battle 6
    (A: 3C 2C, B: 2D 6D) is the one before battle 2: cycle of length 4 after 5 battles."""
    events, summary = play(rules(), CYCLE)
    assert body(events) == [
        PLAY(1, 0, "3C"), PLAY(1, 1, "2C"), COLLECT(1, 0, "3C", "2C"),
        PLAY(2, 0, "3C"), PLAY(2, 1, "2D"), COLLECT(2, 0, "3C", "2D"),
        PLAY(3, 0, "2C"), PLAY(3, 1, "6D"), COLLECT(3, 1, "2C", "6D"),
        PLAY(4, 0, "3C"), PLAY(4, 1, "2C"), COLLECT(4, 0, "3C", "2C"),
        PLAY(5, 0, "2D"), PLAY(5, 1, "6D"), COLLECT(5, 1, "2D", "6D"),
        END(5, None, "cycle"),
    ]
    check_summary(summary, outcome="cycle", winner=None, battles=5, wars=0, final_cards=[2, 2],
                  cycle_length=4)


@pytest.mark.parametrize("max_battles, outcome, cycle_length", [
    (5, "capped", None),   # cap reached and position repeated before battle 6: cap first
    (6, "cycle", 4),       # cap not reached: the repeated position ends the game
])
def test_2_6_cap_is_checked_before_position(max_battles, outcome, cycle_length):
    """2.6: before each battle the cap is checked first, then the position."""
    events, summary = play(rules(max_battles=max_battles), CYCLE)
    assert events[-1] == END(5, None, outcome)
    check_summary(summary, outcome=outcome, battles=5, cycle_length=cycle_length)


# ---------------------------------------------------------------------------------------------
# 2.7 Win condition


def test_2_7_wars_n_first_to_win_n_war_battles_wins_and_double_war_counts_once():
    """2.7 `wars:2`: A wins a double war in battle 1 (counts once, not twice, so play goes on)
    and a single war in battle 2: A wins at once, though B still holds 3S 4S."""
    events, summary = play(rules(win="wars:2"), WARS2)
    b = body(events)
    assert [e for e in b if e.kind in ("war", "collect")] == [
        WAR(1, (0, 1), 1), WAR(1, (0, 1), 2),
        COLLECT(1, 0, "7C", "7D", "2C", "3C", "4C", "JC", "2D", "3D", "4D", "JD",
                "5C", "6C", "8C", "AC", "5D", "6D", "8D", "9D"),
        WAR(2, (0, 1), 1),
        COLLECT(2, 0, "9C", "9H", "10C", "QC", "KC", "AS", "10D", "QD", "KD", "2S"),
    ]
    assert b[-2:] == [COLLECT(2, 0, "9C", "9H", "10C", "QC", "KC", "AS", "10D", "QD", "KD", "2S"),
                      END(2, 0, "win")]
    check_summary(summary, outcome="win", winner=0, battles=2, wars=3, war_battles=2,
                  max_war_depth=2, war_wins=[2, 0], final_cards=[28, 2], cards_set_aside=22)


def test_2_7_wars_n_game_still_ends_by_2_6_if_that_comes_first():
    """2.7: under `wars:3`, A takes every card (no war at all) before anyone wins 3 wars."""
    events, summary = play(rules(win="wars:3"), BATTLE)
    assert events[-1] == END(4, 0, "win")
    check_summary(summary, outcome="win", winner=0, battles=4, war_wins=[0, 0],
                  final_cards=[4, 0])


def test_2_7_all_cards_default_plays_on_after_wars():
    """2.7 `all_cards` (default): the WARS2 deal does not end after A's 2 war wins."""
    _, summary = play(rules(max_battles=2), WARS2)
    check_summary(summary, outcome="capped", winner=None, battles=2, war_wins=[2, 0])


# ---------------------------------------------------------------------------------------------
# Replay from the log


GAMES = [
    ("battle", {}, BATTLE, 0),
    ("war", {}, WAR1, 0),
    ("not_tied", {"players": 3}, NOT_TIED, 0),
    ("low_tie", {"players": 3}, LOW_TIE, 0),
    ("three_way", {"players": 3}, THREE_WAY, 0),
    ("double_war", {}, DOUBLE, 0),
    ("short3", {}, SHORT3, 0),
    ("short1", {}, SHORT1, 0),
    ("lose2", {"shortfall": "lose"}, SHORT3, 0),
    ("lose3", {"players": 3, "shortfall": "lose"}, LOSE3, 0),
    ("no_card3", {"players": 3}, NO_CARD3, 0),
    ("one_left", {}, ONE_LEFT, 0),
    ("all_out_draw", {}, ALL_OUT, 0),
    ("all_out4", {"players": 4}, ALL_OUT4, 0),
    ("table_order", {"max_battles": 4}, ORDER, 0),
    ("winner_first", {"pickup": "winner_first", "max_battles": 4}, ORDER, 0),
    ("shuffled_war", {"pickup": "shuffled"}, WAR1, 5),
    ("shuffled", {"pickup": "shuffled"}, BATTLE, 0),
    ("pooled", {"pickup": "pooled"}, POOLED, 0),
    ("pooled_war", {"pickup": "pooled"}, POOLED_WAR, 0),
    ("single_up", {"war_tiebreak": "single_up"}, SINGLE, 0),
    ("elimination", {"players": 3}, ELIM3, 0),
    ("capped", {"max_battles": 2}, BATTLE, 0),
    ("cycle", {}, CYCLE, 0),
    ("wars2", {"win": "wars:2"}, WARS2, 0),
]


@pytest.mark.parametrize("options, piles, seed", [g[1:] for g in GAMES], ids=[g[0] for g in GAMES])
def test_replay_log_accepts_each_game_and_gives_an_equal_summary(options, piles, seed):
    """Replay rebuilds each game from its log alone and reaches the same summary."""
    rule_set = rules(**options)
    events, summary, _ = play_game(rule_set, seed, deal(rule_set, *piles))
    assert replay_log(rule_set, events) == summary


@pytest.mark.parametrize("options, piles, seed", [g[1:] for g in GAMES], ids=[g[0] for g in GAMES])
def test_replay_log_raises_log_mismatch_when_one_card_of_one_event_changes(options, piles, seed):
    """Changing any single card of any single event (deal, play, down, collect, reshuffle,
    forfeit, set_aside) makes the log disagree with the rules: LogMismatch."""
    rule_set = rules(**options)
    events, _, _ = play_game(rule_set, seed, deal(rule_set, *piles))
    tampered_any = False
    for i, event in enumerate(events):
        if not event.cards:
            continue
        for k in (0, len(event.cards) - 1):
            cards = list(event.cards)
            cards[k] = (cards[k] + 1) % 52
            log = list(events)
            log[i] = event._replace(cards=tuple(cards))
            with pytest.raises(LogMismatch):
                replay_log(rule_set, log)
            tampered_any = True
    assert tampered_any
