"""Classic War's pickup, tie-breaks and ends (rules 2.4 to 2.7): the order won cards join the
pile, `table_order`, `winner_first`, and the random orders `shuffled` and `pooled` (a won pile
reshuffled into an empty pile, even mid-war) checked against a Fisher-Yates shuffle with the
game's generator (2.4, docs/rules.md "Randomness"); a repeated tie under `repeat` and `single_up`
(2.5); elimination, `win`, `draw`, the `max_battles` cap and a repeated position, `cycle`, the cap
checked first (2.6); and `wars:N`, the first to win N war battles (2.7). One rule point at a time
on small hand-built deals (tests/rulekit.py) whose expected events and summaries were worked out
by hand from docs/rules.md; cards not dealt are set aside, and every game is replayed from its
log to an equal summary.
"""

from __future__ import annotations

import pytest

from pipeline.model.rng import Xoshiro256
from rulekit import (ALL_OUT, BATTLE, COLLECT, CYCLE, DOUBLE, DOWN, ELIM3, END, NOT_TIED, ORDER, OUT, PLAY, POOLED,
                     POOLED_WAR, RESHUFFLE, SINGLE, WAR, WAR1, WARS2, body, check_summary, classic_rules, cs,
                     fisher_yates, label, play)


# ---------------------------------------------------------------------------------------------
# 2.4 Collecting


def test_2_4_table_order_battle_cards_then_each_war_seat_by_seat():
    """2.4 `table_order`: B wins the war and takes 7C 7D | A's 3 down, A's up | B's 3 down, B's
    up, at the bottom in that order: B then plays 7C, 7D, 2C (cap after 4 battles)."""
    events, summary = play(classic_rules(max_battles=4), ORDER)
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
    events, summary = play(classic_rules(pickup="winner_first", max_battles=4), ORDER)
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
    events, summary = play(classic_rules(players=3, pickup="winner_first"), NOT_TIED)
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
    events, summary = play(classic_rules(pickup="shuffled"), WAR1, seed=seed)
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
    events, summary = play(classic_rules(pickup="shuffled"), BATTLE, seed=seed)
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
    events, summary = play(classic_rules(pickup="pooled"), POOLED, seed=seed)
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
    events, summary = play(classic_rules(pickup="pooled"), POOLED_WAR, seed=seed)
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
    events, summary = play(classic_rules(war_tiebreak="repeat"), DOUBLE)
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
    events, summary = play(classic_rules(war_tiebreak="single_up"), SINGLE)
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
    events, summary = play(classic_rules(war_tiebreak="repeat"), SINGLE)
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
    events, summary = play(classic_rules(players=3), ELIM3)
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
    events, summary = play(classic_rules(), BATTLE)
    assert events[-1] == END(4, 0, "win")
    assert summary.final_cards == [4, 0] and summary.cards_set_aside == 48
    assert sum(summary.final_cards) + summary.cards_set_aside == 52


def test_2_6_draw_when_no_player_has_a_card():
    """2.6 `draw`: both players run out inside the same war (2.3): no winner."""
    events, summary = play(classic_rules(), ALL_OUT)
    assert events[-1] == END(1, None, "draw")
    check_summary(summary, outcome="draw", winner=None, final_cards=[0, 0])


def test_2_6_max_battles_cap_gives_capped():
    """2.6 `capped`: with max_battles = 2 the BATTLE game stops after 2 battles, no winner."""
    events, summary = play(classic_rules(max_battles=2), BATTLE)
    assert body(events) == [
        PLAY(1, 0, "KS"), PLAY(1, 1, "5H"), COLLECT(1, 0, "KS", "5H"),
        PLAY(2, 0, "2C"), PLAY(2, 1, "3D"), COLLECT(2, 1, "2C", "3D"),
        END(2, None, "capped"),
    ]
    check_summary(summary, outcome="capped", winner=None, battles=2, final_cards=[2, 2],
                  cycle_length=None)


def test_2_6_game_that_ends_on_the_last_allowed_battle_is_a_win():
    """2.6: the cap applies only to a game without an end; BATTLE ends in battle 4 = cap."""
    _, summary = play(classic_rules(max_battles=4), BATTLE)
    check_summary(summary, outcome="win", winner=0, battles=4)


def test_2_6_cycle_when_a_position_repeats():
    """2.6 `cycle`: A [3C] vs B [2C 2D 6D], table order. The position before battle 4 (A: 3C 2D,
    B: 2C 6D) is, by ranks, the one before battle 2 (A: 3C 2C, B: 2D 6D): the 2s have swapped
    suits, which never decide a game, so it ends as a cycle of length 2 after 3 battles (by
    cards it would have gone on to battle 5, a cycle of 4)."""
    events, summary = play(classic_rules(), CYCLE)
    assert body(events) == [
        PLAY(1, 0, "3C"), PLAY(1, 1, "2C"), COLLECT(1, 0, "3C", "2C"),
        PLAY(2, 0, "3C"), PLAY(2, 1, "2D"), COLLECT(2, 0, "3C", "2D"),
        PLAY(3, 0, "2C"), PLAY(3, 1, "6D"), COLLECT(3, 1, "2C", "6D"),
        END(3, None, "cycle"),
    ]
    check_summary(summary, outcome="cycle", winner=None, battles=3, wars=0, final_cards=[2, 2],
                  cycle_length=2)


@pytest.mark.parametrize("max_battles, outcome, cycle_length", [
    (3, "capped", None),   # cap reached and position repeated before battle 4: cap first
    (4, "cycle", 2),       # cap not reached: the repeated position ends the game
])
def test_2_6_cap_is_checked_before_position(max_battles, outcome, cycle_length):
    """2.6: before each battle the cap is checked first, then the position."""
    events, summary = play(classic_rules(max_battles=max_battles), CYCLE)
    assert events[-1] == END(3, None, outcome)
    check_summary(summary, outcome=outcome, battles=3, cycle_length=cycle_length)


# ---------------------------------------------------------------------------------------------
# 2.7 Win condition


def test_2_7_wars_n_first_to_win_n_war_battles_wins_and_double_war_counts_once():
    """2.7 `wars:2`: A wins a double war in battle 1 (counts once, not twice, so play goes on)
    and a single war in battle 2: A wins at once, though B still holds 3S 4S."""
    events, summary = play(classic_rules(win="wars:2"), WARS2)
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
    events, summary = play(classic_rules(win="wars:3"), BATTLE)
    assert events[-1] == END(4, 0, "win")
    check_summary(summary, outcome="win", winner=0, battles=4, war_wins=[0, 0],
                  final_cards=[4, 0])


def test_2_7_all_cards_default_plays_on_after_wars():
    """2.7 `all_cards` (default): the WARS2 deal does not end after A's 2 war wins."""
    _, summary = play(classic_rules(max_battles=2), WARS2)
    check_summary(summary, outcome="capped", winner=None, battles=2, war_wins=[2, 0])
