"""Război, the Romanian war (rules 5, with 1.2 and 8): a war's size is the tied rank's value v, v - 1
cards down and the v-th up, for every rank, an Ace by `ace_value` and a Joker one more (5.1); a
repeated tie is sized by the new rank (5.2); several players, and running short under
`last_card_up` and `lose` (5.3); and war sizes by rank need the standard deck, so `ranks` and
`suits` are not options of Război (1.2, 8). On small hand-built deals with a fixed pickup order,
whose events and summaries were worked out by hand from docs/rules.md; cards not dealt are set
aside, and every game is replayed from its log to an equal summary (tests/rulekit.py).
"""

from __future__ import annotations

import pytest

from pipeline.errors import RulesError
from pipeline.model.deal import deck_of
from pipeline.model.rules import build_rules
from rulekit import (COLLECT, DECK54, DOWN, END, FORFEIT, OUT, PLAY, WAR, body, check_summary, label, play,
                     razboi_rules, suit_run)


# ---------------------------------------------------------------------------------------------
# 5 Război


def test_5_razboi_defaults():
    """5 / 8: war size by rank, Ace value 11, 2 players, the standard deck."""
    rule_set = build_rules("razboi")
    assert rule_set.war_down == "by_rank" and rule_set.ace_value == 11
    assert rule_set.players == 2 and rule_set.jokers == 0
    assert deck_of(rule_set).size == 52


def war_game(rank: str, value: int, win_up: str, lose_up: str):
    """A two-player Război deal where both players tie on `rank`, hold exactly v - 1 cards to
    put down and one to turn up; seat 0's up card wins. Returns (piles, expected body)."""
    avoid = {rank + s for s in "CDHS"} | {win_up, lose_up}
    fillers = [label(c) for c in range(52)]
    fillers = [f for f in fillers if f not in avoid]
    down_a, down_b = fillers[:value - 1], fillers[value - 1:2 * (value - 1)]
    a = [rank + "C", *down_a, win_up]
    b = [rank + "D", *down_b, lose_up]
    expected = [PLAY(1, 0, rank + "C"), PLAY(1, 1, rank + "D"), WAR(1, (0, 1), 1)]
    if down_a:
        expected.append(DOWN(1, 0, *down_a))
    expected.append(PLAY(1, 0, win_up))
    if down_b:
        expected.append(DOWN(1, 1, *down_b))
    expected.append(PLAY(1, 1, lose_up))
    expected += [COLLECT(1, 0, *a[:1], *b[:1], *a[1:], *b[1:]), OUT(1, 1), END(1, 0, "win")]
    return (a, b), expected


def test_5_1_tie_on_8s_seven_down_eighth_up():
    """5.1: 'A tie on 8s: 7 down, 1 up.'"""
    a = ["8C", "2C", "3C", "4C", "5C", "6C", "7C", "9C", "KC"]
    b = ["8D", "2D", "3D", "4D", "5D", "6D", "7D", "9D", "QD"]
    events, summary = play(razboi_rules(), (a, b))
    assert body(events) == [
        PLAY(1, 0, "8C"), PLAY(1, 1, "8D"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C", "4C", "5C", "6C", "7C", "9C"), PLAY(1, 0, "KC"),
        DOWN(1, 1, "2D", "3D", "4D", "5D", "6D", "7D", "9D"), PLAY(1, 1, "QD"),
        COLLECT(1, 0, "8C", "8D", "2C", "3C", "4C", "5C", "6C", "7C", "9C", "KC",
                "2D", "3D", "4D", "5D", "6D", "7D", "9D", "QD"),
        OUT(1, 1), END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=1, wars=1, war_battles=1,
                  max_war_depth=1, war_wins=[1, 0], final_cards=[18, 0], cards_set_aside=34)


def test_5_1_tie_on_kings_nine_down_tenth_up():
    """5.1: 'A tie on Kings: 9 down, 1 up.' AC beats 3H."""
    a = ["KC", *suit_run("C", "2", "3", "4", "5", "6", "7", "8", "9", "10"), "AC"]
    b = ["KD", *suit_run("D", "2", "3", "4", "5", "6", "7", "8", "9", "10"), "3H"]
    events, summary = play(razboi_rules(), (a, b))
    assert body(events) == [
        PLAY(1, 0, "KC"), PLAY(1, 1, "KD"), WAR(1, (0, 1), 1),
        DOWN(1, 0, *a[1:10]), PLAY(1, 0, "AC"),
        DOWN(1, 1, *b[1:10]), PLAY(1, 1, "3H"),
        COLLECT(1, 0, "KC", "KD", *a[1:], *b[1:]),
        OUT(1, 1), END(1, 0, "win"),
    ]
    assert len(a[1:10]) == 9
    check_summary(summary, outcome="win", winner=0, wars=1, final_cards=[22, 0])


def test_5_1_tie_on_2s_one_down_one_up():
    events, summary = play(razboi_rules(), (["2C", "3C", "AC"], ["2D", "3D", "KD"]))
    assert body(events) == [
        PLAY(1, 0, "2C"), PLAY(1, 1, "2D"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "3C"), PLAY(1, 0, "AC"), DOWN(1, 1, "3D"), PLAY(1, 1, "KD"),
        COLLECT(1, 0, "2C", "2D", "3C", "AC", "3D", "KD"),
        OUT(1, 1), END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, wars=1, final_cards=[6, 0])


def test_5_1_tie_on_aces_default_ace_value_11_ten_down():
    """5.1: A = 11 by default: 10 down, 11th up."""
    a = ["AC", *suit_run("C", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J"), "KC"]
    b = ["AD", *suit_run("D", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J"), "QD"]
    events, summary = play(razboi_rules(), (a, b))
    assert body(events) == [
        PLAY(1, 0, "AC"), PLAY(1, 1, "AD"), WAR(1, (0, 1), 1),
        DOWN(1, 0, *a[1:11]), PLAY(1, 0, "KC"),
        DOWN(1, 1, *b[1:11]), PLAY(1, 1, "QD"),
        COLLECT(1, 0, "AC", "AD", *a[1:], *b[1:]),
        OUT(1, 1), END(1, 0, "win"),
    ]
    assert len(a[1:11]) == 10
    check_summary(summary, outcome="win", winner=0, wars=1, final_cards=[24, 0])


def test_5_1_tie_on_aces_with_ace_value_14_thirteen_down():
    """5.1 `ace_value` = 14: 13 down, 14th up. AH beats 4H."""
    a = ["AC", *suit_run("C", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"),
         "2H", "AH"]
    b = ["AD", *suit_run("D", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"),
         "3H", "4H"]
    events, summary = play(razboi_rules(ace_value=14), (a, b))
    assert body(events) == [
        PLAY(1, 0, "AC"), PLAY(1, 1, "AD"), WAR(1, (0, 1), 1),
        DOWN(1, 0, *a[1:14]), PLAY(1, 0, "AH"),
        DOWN(1, 1, *b[1:14]), PLAY(1, 1, "4H"),
        COLLECT(1, 0, "AC", "AD", *a[1:], *b[1:]),
        OUT(1, 1), END(1, 0, "win"),
    ]
    assert len(a[1:14]) == 13
    check_summary(summary, outcome="win", winner=0, wars=1, final_cards=[30, 0])


# The war values of rules 5.1, written out: 2..10 their number; J, Q, K 10; A 11 (default).
VALUES = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10,
          "J": 10, "Q": 10, "K": 10, "A": 11}


@pytest.mark.parametrize("rank", list(VALUES))
def test_5_1_every_rank_war_size(rank):
    """5.1: a tie on a rank of value v: each tied player puts v - 1 down and the v-th up."""
    value = VALUES[rank]
    win_up = "AH" if rank != "A" else "KH"
    lose_up = "2H" if rank != "2" else "3H"
    piles, expected = war_game(rank, value, win_up, lose_up)
    events, summary = play(razboi_rules(), piles)
    assert body(events) == expected
    check_summary(summary, outcome="win", winner=0, battles=1, wars=1,
                  final_cards=[2 * (value + 1), 0])


@pytest.mark.parametrize("ace_value", [1, 5, 11, 14])
def test_5_1_ace_value_sets_the_size_of_an_ace_war(ace_value):
    """5.1 `ace_value` v: a tie on Aces puts v - 1 down (none when v = 1), the v-th up."""
    piles, expected = war_game("A", ace_value, "KH", "2H")
    events, summary = play(razboi_rules(ace_value=ace_value), piles)
    assert body(events) == expected
    check_summary(summary, winner=0, final_cards=[2 * (ace_value + 1), 0])


@pytest.mark.parametrize("ace_value", [5, 11, 14])
def test_5_1_joker_tie_puts_ace_value_down(ace_value):
    """5.1 with jokers = 2: a Joker is worth one more than the Ace (v = ace_value + 1), so a
    Joker tie puts ace_value cards down and the next one up."""
    rule_set = razboi_rules(jokers=2, ace_value=ace_value)
    fill = [DECK54.label(c) for c in range(52)]
    fill = [f for f in fill if f not in ("A♥", "2♥")]
    down_a, down_b = fill[:ace_value], fill[ace_value:2 * ace_value]
    a = ["JK1", *down_a, "A♥"]
    b = ["JK2", *down_b, "2♥"]
    events, summary = play(rule_set, (a, b))
    assert body(events) == [
        PLAY(1, 0, "JK1"), PLAY(1, 1, "JK2"), WAR(1, (0, 1), 1),
        DOWN(1, 0, *down_a), PLAY(1, 0, "AH"),
        DOWN(1, 1, *down_b), PLAY(1, 1, "2H"),
        COLLECT(1, 0, "JK1", "JK2", *down_a, "AH", *down_b, "2H"),
        OUT(1, 1), END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, wars=1,
                  final_cards=[2 * (ace_value + 2), 0], cards_set_aside=54 - 2 * (ace_value + 2))


def test_5_1_joker_tie_default_eleven_down_explicit():
    """5.1: default Ace 11, so a Joker is 12: 11 down, 12th up."""
    a = ["JK1", *suit_run("C", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q"), "AC"]
    b = ["JK2", *suit_run("D", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q"), "KD"]
    events, summary = play(razboi_rules(jokers=2), (a, b))
    assert body(events)[3] == DOWN(1, 0, *a[1:12]) and len(a[1:12]) == 11
    assert body(events)[4] == PLAY(1, 0, "AC")
    assert body(events)[5:7] == [DOWN(1, 1, *b[1:12]), PLAY(1, 1, "KD")]
    check_summary(summary, winner=0, final_cards=[26, 0])


def test_5_2_repeated_tie_is_sized_by_the_new_rank_8s_then_3s():
    """5.2: 8s tie (7 down, 1 up); the up cards 3C 3D tie: the new war is sized by 3 (2 down,
    1 up), not by 8; AC beats KD."""
    a = ["8C", "2C", "4C", "5C", "6C", "7C", "9C", "10C", "3C", "JC", "QC", "AC"]
    b = ["8D", "2D", "4D", "5D", "6D", "7D", "9D", "10D", "3D", "JD", "QD", "KD"]
    events, summary = play(razboi_rules(), (a, b))
    assert body(events) == [
        PLAY(1, 0, "8C"), PLAY(1, 1, "8D"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "4C", "5C", "6C", "7C", "9C", "10C"), PLAY(1, 0, "3C"),
        DOWN(1, 1, "2D", "4D", "5D", "6D", "7D", "9D", "10D"), PLAY(1, 1, "3D"),
        WAR(1, (0, 1), 2),
        DOWN(1, 0, "JC", "QC"), PLAY(1, 0, "AC"),
        DOWN(1, 1, "JD", "QD"), PLAY(1, 1, "KD"),
        COLLECT(1, 0, "8C", "8D", "2C", "4C", "5C", "6C", "7C", "9C", "10C", "3C",
                "2D", "4D", "5D", "6D", "7D", "9D", "10D", "3D",
                "JC", "QC", "AC", "JD", "QD", "KD"),
        OUT(1, 1), END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=1, wars=2, war_battles=1,
                  max_war_depth=2, war_wins=[1, 0], final_cards=[24, 0])


def test_5_2_repeated_tie_is_sized_by_the_new_rank_2s_then_kings():
    """5.2: 2s tie (1 down, 1 up); the up cards KC KD tie: 9 down, 1 up; AC beats QD."""
    nine_a = suit_run("C", "3", "4", "5", "6", "7", "8", "9", "10", "J")
    nine_b = suit_run("D", "3", "4", "5", "6", "7", "8", "9", "10", "J")
    a = ["2C", "QH", "KC", *nine_a, "AC"]
    b = ["2D", "JH", "KD", *nine_b, "QD"]
    events, summary = play(razboi_rules(), (a, b))
    assert body(events) == [
        PLAY(1, 0, "2C"), PLAY(1, 1, "2D"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "QH"), PLAY(1, 0, "KC"), DOWN(1, 1, "JH"), PLAY(1, 1, "KD"),
        WAR(1, (0, 1), 2),
        DOWN(1, 0, *nine_a), PLAY(1, 0, "AC"), DOWN(1, 1, *nine_b), PLAY(1, 1, "QD"),
        COLLECT(1, 0, "2C", "2D", "QH", "KC", "JH", "KD", *nine_a, "AC", *nine_b, "QD"),
        OUT(1, 1), END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, wars=2, max_war_depth=2, final_cards=[26, 0])


def test_5_3_three_players_war_by_rank_non_tied_cards_go_to_the_winner():
    """5.3 (+ 2.2), 3 players: 8C and 8H tie (5D lower, not in the war): 7 down, 1 up each; KC
    beats QH and seat 0 takes seat 1's 5D too. Seat 2 is out; then 8C beats 6D."""
    a = ["8C", "2C", "3C", "4C", "5C", "6C", "7C", "9C", "KC"]
    c = ["8H", "2H", "3H", "4H", "5H", "6H", "7H", "9H", "QH"]
    events, summary = play(razboi_rules(players=3), (a, ["5D", "6D"], c))
    assert body(events) == [
        PLAY(1, 0, "8C"), PLAY(1, 1, "5D"), PLAY(1, 2, "8H"), WAR(1, (0, 2), 1),
        DOWN(1, 0, *a[1:8]), PLAY(1, 0, "KC"),
        DOWN(1, 2, *c[1:8]), PLAY(1, 2, "QH"),
        COLLECT(1, 0, "8C", "5D", "8H", *a[1:], *c[1:]),
        OUT(1, 2),
        PLAY(2, 0, "8C"), PLAY(2, 1, "6D"), COLLECT(2, 0, "8C", "6D"),
        OUT(2, 1), END(2, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=2, wars=1, war_wins=[1, 0, 0],
                  final_cards=[20, 0, 0], cards_set_aside=32)


def test_5_3_four_players_three_way_war_on_4s_then_two_way_war_on_3s():
    """5.3, 4 players: 4C 4D 4H tie (2S lower): 3 down, 1 up each; up cards 3C 3D 2H: a new war
    between seats 0 and 1 sized by 3 (2 down, 1 up); AC beats KD. Seats 1 and 2 are out; then
    4C beats 3S and seat 0 wins."""
    a = ["4C", "5C", "6C", "7C", "3C", "8C", "9C", "AC"]
    b = ["4D", "5D", "6D", "7D", "3D", "8D", "9D", "KD"]
    c = ["4H", "5H", "6H", "7H", "2H"]
    d = ["2S", "3S"]
    events, summary = play(razboi_rules(players=4), (a, b, c, d))
    assert body(events) == [
        PLAY(1, 0, "4C"), PLAY(1, 1, "4D"), PLAY(1, 2, "4H"), PLAY(1, 3, "2S"),
        WAR(1, (0, 1, 2), 1),
        DOWN(1, 0, "5C", "6C", "7C"), PLAY(1, 0, "3C"),
        DOWN(1, 1, "5D", "6D", "7D"), PLAY(1, 1, "3D"),
        DOWN(1, 2, "5H", "6H", "7H"), PLAY(1, 2, "2H"),
        WAR(1, (0, 1), 2),
        DOWN(1, 0, "8C", "9C"), PLAY(1, 0, "AC"),
        DOWN(1, 1, "8D", "9D"), PLAY(1, 1, "KD"),
        COLLECT(1, 0, "4C", "4D", "4H", "2S", "5C", "6C", "7C", "3C", "5D", "6D", "7D", "3D",
                "5H", "6H", "7H", "2H", "8C", "9C", "AC", "8D", "9D", "KD"),
        OUT(1, 1), OUT(1, 2),
        PLAY(2, 0, "4C"), PLAY(2, 3, "3S"), COLLECT(2, 0, "4C", "3S"),
        OUT(2, 3), END(2, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=2, wars=2, war_battles=1,
                  max_war_depth=2, war_wins=[1, 0, 0, 0], final_cards=[23, 0, 0, 0],
                  cards_set_aside=29)


@pytest.mark.parametrize("m", [1, 2, 5, 7, 8])
def test_5_3_running_short_last_card_up_on_8s(m):
    """5.3 (2.3 `last_card_up`): an 8s war needs 7 down + 1 up. Seat 0 holds m cards after its
    8: with m <= 7 it puts m - 1 down and its last card (KC) up; with m = 8 it is a full war.
    Seat 1 holds a full war; KC beats QD."""
    short = ["2C", "3C", "4C", "5C", "6C", "7C", "9C"][:m - 1]
    a = ["8C", *short, "KC"]
    b = ["8D", "2D", "3D", "4D", "5D", "6D", "7D", "9D", "QD"]
    events, summary = play(razboi_rules(), (a, b))
    expected = [PLAY(1, 0, "8C"), PLAY(1, 1, "8D"), WAR(1, (0, 1), 1)]
    if short:
        expected.append(DOWN(1, 0, *short))
    expected += [
        PLAY(1, 0, "KC"),
        DOWN(1, 1, "2D", "3D", "4D", "5D", "6D", "7D", "9D"), PLAY(1, 1, "QD"),
        COLLECT(1, 0, "8C", "8D", *short, "KC", *b[1:]),
        OUT(1, 1), END(1, 0, "win"),
    ]
    assert body(events) == expected
    check_summary(summary, outcome="win", winner=0, wars=1, final_cards=[m + 1 + 9, 0])


def test_5_3_running_short_lose_option():
    """5.3 (2.3 `lose`): seat 0 holds 5 cards for an 8s war (7 down + 1 up): it forfeits them and
    is out at once; seat 1 takes the table without adding cards and wins."""
    a = ["8C", "2C", "3C", "4C", "5C", "KC"]
    b = ["8D", "2D", "3D", "4D", "5D", "6D", "7D", "9D", "QD"]
    events, summary = play(razboi_rules(shortfall="lose"), (a, b))
    assert body(events) == [
        PLAY(1, 0, "8C"), PLAY(1, 1, "8D"), WAR(1, (0, 1), 1),
        FORFEIT(1, 0, "2C", "3C", "4C", "5C", "KC"), OUT(1, 0),
        COLLECT(1, 1, "8C", "8D", "2C", "3C", "4C", "5C", "KC"),
        END(1, 1, "win"),
    ]
    check_summary(summary, outcome="win", winner=1, wars=1, war_wins=[0, 1], final_cards=[0, 15])


@pytest.mark.parametrize("options, name", [
    ({"ranks": 4}, "ranks"),
    ({"suits": 3}, "suits"),
    ({"ranks": 13}, "ranks"),
    ({"suits": 4}, "suits"),
    ({"ranks": 4, "suits": 3}, "ranks"),
])
def test_5_razboi_refuses_ranks_and_suits(options, name):
    """1.2 / 8: Război's war sizes need the standard ranks: `ranks`, `suits` are not options of
    `razboi` (RulesError naming the option), even at their standard values."""
    with pytest.raises(RulesError, match=f"'{name}'"):
        build_rules("razboi", options)


def test_1_2_war_size_by_rank_needs_the_standard_deck_in_any_variant():
    """1.2: war_down = by_rank on a custom deck is refused."""
    with pytest.raises(RulesError):
        build_rules("classic", {"war_down": "by_rank", "ranks": 4, "suits": 3})
