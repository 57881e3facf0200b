"""Steal War's decisions (rules 6.2, 6.3, 6.7 and 6.8, as read by docs/decisions.md rulings
11-14 and 19): looking at the next card and stealing won piles of its rank, one pile or several,
again with the next card, as earlier steals left them (6.2); the top card chosen for a won bundle,
the one the others see (6.3); a steal that takes a player's last cards (6.7); every decision logged
with its options, and replay refusing a steal or top card the player could not choose (6.8). Each
game is a small hand-built deal with scripted decisions (`Script`, tests/rulekit.py) whose events
and summary were worked out by hand, and every game is replayed from its log. Table order follows
the battle's turn order (rulings 11 and 13), so it starts with the battle's first seat.
"""

from __future__ import annotations

import pytest

from pipeline.errors import LogMismatch
from pipeline.engines.game import play_game, replay_log
from rulekit import (COLLECT, END, OUT, PLAY, STEAL_DECISION, STOLEN, TOP, Script, after_deal, check_summary,
                     code, cs, decision_index, run_steal, steal, steal_rules, tampered, top)


# ---------------------------------------------------------------------------------------------
# 6.2 Looking and stealing

# Two players: seat 1 wins battle 1 and puts 5C on top of its won pile; in battle 2 (first seat
# 1) seat 0 looks at 5H, the rank of that top card, and may steal.
STEAL2 = (["5C", "5H", "AC"], ["9D", "KD"])


def test_6_2_steal_one_pile_then_look_at_the_next_card_and_play():
    """Seat 0 steals seat 1's won pile with 5H: the bundle (5H, then the pile 5C 9D unchanged)
    goes on top of its own won pile. It looks at its next card, AC; no steal is possible any more
    (seat 1's won pile is empty), so it plays AC, which beats KD."""
    rule_set = steal_rules()
    script = Script([top(1, "5C", "5C", "9D"), steal(0, (1,), (1,)), top(0, "AC", "KD", "AC")])
    events, summary = run_steal(rule_set, STEAL2, script)
    assert after_deal(events, 2) == [
        PLAY(1, 0, "5C"), PLAY(1, 1, "9D"), TOP(1, 1, "5C", "5C", "9D"), COLLECT(1, 1, "5C", "9D"),
        PLAY(2, 1, "KD"),
        STEAL_DECISION(2, 0, "5H", (1,), (1,)), STOLEN(2, 0, ("5H", "5C", "9D"), (1,)),
        PLAY(2, 0, "AC"),
        TOP(2, 0, "AC", "KD", "AC"), COLLECT(2, 0, "AC", "KD"),
        OUT(2, 1),
        END(2, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=2, wars=0, final_cards=[5, 0],
                  cards_set_aside=49)
    # Policy view (ruling 19): the looked-at card and the size of each eligible pile.
    (view,) = script.views("steal", 0)
    assert (view.seat, view.card, view.eligible, view.in_war) == (0, code("5H"), ((1, 2),), False)


def test_6_2_a_player_may_always_play_instead_of_stealing():
    """The same position; seat 0 declines (an empty choice): the decision is logged with its
    option, nothing is stolen, and seat 0 plays the looked-at card, 5H, which loses to KD."""
    rule_set = steal_rules()
    piles = (["5C", "5H"], ["9D", "KD"])
    script = Script([top(1, "5C", "5C", "9D"), steal(0, (1,), ()), top(1, "KD", "KD", "5H")])
    events, summary = run_steal(rule_set, piles, script)
    assert after_deal(events, 2) == [
        PLAY(1, 0, "5C"), PLAY(1, 1, "9D"), TOP(1, 1, "5C", "5C", "9D"), COLLECT(1, 1, "5C", "9D"),
        PLAY(2, 1, "KD"),
        STEAL_DECISION(2, 0, "5H", (), (1,)),
        PLAY(2, 0, "5H"),
        TOP(2, 1, "KD", "KD", "5H"), COLLECT(2, 1, "KD", "5H"),
        OUT(2, 0),
        END(2, 1, "win"),
    ]
    check_summary(summary, outcome="win", winner=1, battles=2, final_cards=[0, 4])


# Three players. Battle 1 (turn 0 1 2): 8C 3D 2H, seat 0 wins, won pile 8C 3D 2H. Battle 2
# (turn 1 2 0): 4D KH 8S, seat 2 wins and puts 8S on top: won pile 8S 4D KH (seat 0 looked at 8S
# with 8C on top of its *own* won pile: no steal). Battle 3 (turn 2 0 1): 5H, 6C, then seat 1
# looks at 8D, the rank of the tops of seats 2's and 0's won piles.
STEAL3 = (["8C", "8S", "6C"], ["3D", "4D", "8D", "AD"], ["2H", "KH", "5H"])
STEAL3_OPENING = [
    top(0, "8C", "8C", "3D", "2H"),
    top(2, "8S", "4D", "KH", "8S"),
]
STEAL3_BATTLES_1_2 = [
    PLAY(1, 0, "8C"), PLAY(1, 1, "3D"), PLAY(1, 2, "2H"),
    TOP(1, 0, "8C", "8C", "3D", "2H"), COLLECT(1, 0, "8C", "3D", "2H"),
    PLAY(2, 1, "4D"), PLAY(2, 2, "KH"), PLAY(2, 0, "8S"),
    TOP(2, 2, "8S", "4D", "KH", "8S"), COLLECT(2, 2, "8S", "4D", "KH"),
]


def test_6_2_steal_several_piles_bundle_is_card_then_piles_from_the_seat_after_the_stealer():
    """Seat 1 steals both piles. The options and the bundle follow seat order from the seat after
    the stealer's: seat 2, then seat 0. Bundle: 8D, then seat 2's pile (8S 4D KH), then seat 0's
    (8C 3D 2H), each pile's order unchanged. Seats 0 and 2 are left with no card: out."""
    rule_set = steal_rules(players=3)
    script = Script(STEAL3_OPENING + [steal(1, (2, 0), (2, 0)), top(1, "5H", "5H", "6C", "AD")])
    events, summary = run_steal(rule_set, STEAL3, script)
    assert after_deal(events, 3) == STEAL3_BATTLES_1_2 + [
        PLAY(3, 2, "5H"), PLAY(3, 0, "6C"),
        STEAL_DECISION(3, 1, "8D", (2, 0), (2, 0)),
        STOLEN(3, 1, ("8D", "8S", "4D", "KH", "8C", "3D", "2H"), (2, 0)),
        PLAY(3, 1, "AD"),
        TOP(3, 1, "5H", "5H", "6C", "AD"), COLLECT(3, 1, "5H", "6C", "AD"),
        OUT(3, 0), OUT(3, 2),
        END(3, 1, "win"),
    ]
    check_summary(summary, outcome="win", winner=1, battles=3, final_cards=[0, 10, 0],
                  cards_set_aside=44)
    (view,) = script.views("steal", 1)
    assert view.eligible == ((2, 3), (0, 3))


def test_6_2_steal_again_with_the_next_card():
    """Seat 1 takes only seat 0's pile with 8D (bundle 8D 8C 3D 2H), looks at its next card, 8H,
    and may steal again: now only seat 2 is eligible. Then it plays AD. Its won pile: the battle
    bundle on top, then the second steal's bundle, then the first's."""
    rule_set = steal_rules(players=3)
    piles = (STEAL3[0], ["3D", "4D", "8D", "8H", "AD"], STEAL3[2])
    script = Script(STEAL3_OPENING + [steal(1, (2, 0), (0,)), steal(1, (2,), (2,)),
                                      top(1, "AD", "5H", "6C", "AD")])
    events, summary = run_steal(rule_set, piles, script)
    assert after_deal(events, 3) == STEAL3_BATTLES_1_2 + [
        PLAY(3, 2, "5H"), PLAY(3, 0, "6C"),
        STEAL_DECISION(3, 1, "8D", (0,), (2, 0)), STOLEN(3, 1, ("8D", "8C", "3D", "2H"), (0,)),
        STEAL_DECISION(3, 1, "8H", (2,), (2,)), STOLEN(3, 1, ("8H", "8S", "4D", "KH"), (2,)),
        PLAY(3, 1, "AD"),
        TOP(3, 1, "AD", "5H", "6C", "AD"), COLLECT(3, 1, "AD", "5H", "6C"),
        OUT(3, 0), OUT(3, 2),
        END(3, 1, "win"),
    ]
    check_summary(summary, outcome="win", winner=1, battles=3, final_cards=[0, 11, 0],
                  cards_set_aside=43)


def test_6_2_a_later_player_sees_the_won_piles_as_earlier_steals_left_them():
    """Battle 3 starts with seat 2, which steals seat 0's pile with 8H (its won pile becomes
    8H 8C 3D 2H on top of 8S 4D KH). Seat 1, later in the turn, looks at 8D: seat 0's pile is gone
    and seat 2's top is now 8H, so its only option is seat 2, whose whole won pile it takes."""
    rule_set = steal_rules(players=3)
    piles = (STEAL3[0], STEAL3[1], ["2H", "KH", "8H", "5H"])
    script = Script(STEAL3_OPENING + [steal(2, (0,), (0,)), steal(1, (2,), (2,)),
                                      top(1, "6C", "5H", "6C", "AD")])
    events, summary = run_steal(rule_set, piles, script)
    assert after_deal(events, 3) == STEAL3_BATTLES_1_2 + [
        STEAL_DECISION(3, 2, "8H", (0,), (0,)), STOLEN(3, 2, ("8H", "8C", "3D", "2H"), (0,)),
        PLAY(3, 2, "5H"), PLAY(3, 0, "6C"),
        STEAL_DECISION(3, 1, "8D", (2,), (2,)),
        STOLEN(3, 1, ("8D", "8H", "8C", "3D", "2H", "8S", "4D", "KH"), (2,)),
        PLAY(3, 1, "AD"),
        TOP(3, 1, "6C", "5H", "6C", "AD"), COLLECT(3, 1, "6C", "5H", "AD"),
        OUT(3, 0), OUT(3, 2),
        END(3, 1, "win"),
    ]
    check_summary(summary, outcome="win", winner=1, battles=3, final_cards=[0, 11, 0])
    (view,) = script.views("steal", 1)
    assert view.eligible == ((2, 7),)


def test_6_2_a_partial_steal_leaves_the_other_pile_and_6_7_the_cap_ends_the_game():
    """Seat 1 takes only seat 0's pile; seat 2 keeps its won pile (8S 4D KH), so seats 1 and 2
    play on, and the cap (max_battles = 3) ends the game as `capped` (6.7)."""
    rule_set = steal_rules(players=3, max_battles=3)
    script = Script(STEAL3_OPENING + [steal(1, (2, 0), (0,)), top(1, "AD", "5H", "6C", "AD")])
    events, summary = run_steal(rule_set, STEAL3, script)
    assert after_deal(events, 3) == STEAL3_BATTLES_1_2 + [
        PLAY(3, 2, "5H"), PLAY(3, 0, "6C"),
        STEAL_DECISION(3, 1, "8D", (0,), (2, 0)), STOLEN(3, 1, ("8D", "8C", "3D", "2H"), (0,)),
        PLAY(3, 1, "AD"),
        TOP(3, 1, "AD", "5H", "6C", "AD"), COLLECT(3, 1, "AD", "5H", "6C"),
        OUT(3, 0),
        END(3, None, "capped"),
    ]
    check_summary(summary, outcome="capped", winner=None, battles=3, final_cards=[0, 7, 3],
                  cards_set_aside=44)


def test_6_2_first_seat_rotates_to_the_next_seat_still_in_the_game():
    """Battle 1 starts with seat 0; seat 1 loses its only card and is out, so battle 2 starts
    with seat 2 (ruling 11): seat 2 plays first, and its card is first in table order."""
    rule_set = steal_rules(players=3, max_battles=2)
    piles = (["KC", "2C"], ["3D"], ["4H", "QH"])
    script = Script([top(0, "KC", "KC", "3D", "4H"), top(2, "2C", "QH", "2C")])
    events, summary = run_steal(rule_set, piles, script)
    assert after_deal(events, 3) == [
        PLAY(1, 0, "KC"), PLAY(1, 1, "3D"), PLAY(1, 2, "4H"),
        TOP(1, 0, "KC", "KC", "3D", "4H"), COLLECT(1, 0, "KC", "3D", "4H"),
        OUT(1, 1),
        PLAY(2, 2, "QH"), PLAY(2, 0, "2C"),
        TOP(2, 2, "2C", "QH", "2C"), COLLECT(2, 2, "2C", "QH"),
        END(2, None, "capped"),
    ]
    check_summary(summary, outcome="capped", battles=2, final_cards=[3, 0, 2])


# ---------------------------------------------------------------------------------------------
# 6.3 The won bundle


def test_6_3_the_top_card_chosen_is_the_one_others_see():
    """The deal of the one-pile steal, but seat 1 puts 9D (not 5C) on top of its won bundle: in
    battle 2 seat 0's 5H matches no visible top card, so no steal is offered; 5H loses to KD.
    Each bundle: the chosen card, then the others in table order (battle 2: KD first, as seat 1
    played first)."""
    rule_set = steal_rules(max_battles=2)
    script = Script([top(1, "9D", "5C", "9D"), top(1, "5H", "KD", "5H")])
    events, summary = run_steal(rule_set, STEAL2, script)
    assert after_deal(events, 2) == [
        PLAY(1, 0, "5C"), PLAY(1, 1, "9D"), TOP(1, 1, "9D", "5C", "9D"), COLLECT(1, 1, "9D", "5C"),
        PLAY(2, 1, "KD"), PLAY(2, 0, "5H"),
        TOP(2, 1, "5H", "KD", "5H"), COLLECT(2, 1, "5H", "KD"),
        END(2, None, "capped"),
    ]
    check_summary(summary, outcome="capped", battles=2, final_cards=[1, 4])


def test_6_3_one_card_won_needs_no_choice_and_6_6_a_player_robbed_of_all_its_cards_is_out():
    """Seat 1's draw pile is empty after battle 2 and its won pile (10D 2C 5C 9D) is all it has.
    In battle 3 seat 0 steals it with 10C, then plays KC; seat 1 has no card when it must play:
    out (6.6). KC alone is on the table: it is collected with no top-card decision."""
    rule_set = steal_rules()
    piles = (["5C", "2C", "10C", "KC"], ["9D", "10D"])
    script = Script([top(1, "5C", "5C", "9D"), top(1, "10D", "10D", "2C"), steal(0, (1,), (1,))])
    events, summary = run_steal(rule_set, piles, script)
    assert after_deal(events, 2) == [
        PLAY(1, 0, "5C"), PLAY(1, 1, "9D"), TOP(1, 1, "5C", "5C", "9D"), COLLECT(1, 1, "5C", "9D"),
        PLAY(2, 1, "10D"), PLAY(2, 0, "2C"),
        TOP(2, 1, "10D", "10D", "2C"), COLLECT(2, 1, "10D", "2C"),
        STEAL_DECISION(3, 0, "10C", (1,), (1,)),
        STOLEN(3, 0, ("10C", "10D", "2C", "5C", "9D"), (1,)),
        PLAY(3, 0, "KC"),
        OUT(3, 1),
        COLLECT(3, 0, "KC"),
        END(3, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=3, final_cards=[6, 0],
                  cards_set_aside=48)


# ---------------------------------------------------------------------------------------------
# 6.7 The end


def test_6_7_win_when_one_player_holds_every_card_in_play():
    """The one-pile steal game ends as soon as seat 1 holds no card: seat 0 holds all 5 cards in
    play (the other 49 were set aside)."""
    _, summary = run_steal(steal_rules(), STEAL2, Script(
        [top(1, "5C", "5C", "9D"), steal(0, (1,), (1,)), top(0, "KD", "KD", "AC")]))
    assert (summary.outcome, summary.winner, summary.final_cards) == ("win", 0, [5, 0])
    assert sum(summary.final_cards) + summary.cards_set_aside == 54


# ---------------------------------------------------------------------------------------------
# 6.8 Every decision is logged; replay reads decisions from the log and checks them


def later_player_game():
    rule_set = steal_rules(players=3)
    piles = (STEAL3[0], STEAL3[1], ["2H", "KH", "8H", "5H"])
    script = Script(STEAL3_OPENING + [steal(2, (0,), (0,)), steal(1, (2,), (2,)),
                                      top(1, "6C", "5H", "6C", "AD")])
    events, _ = run_steal(rule_set, piles, script)
    return rule_set, events


def test_6_8_replay_refuses_a_steal_from_a_seat_that_was_not_an_option():
    """Seat 1's steal in battle 3 had the single option seat 2 (seat 0's pile had just been
    stolen). A log that says it stole from seat 0, or from seats 2 and 0, or from itself, breaks
    the rules: LogMismatch at that decision."""
    rule_set, events = later_player_game()
    i = decision_index(events, "steal", 1)
    assert events[i].seat == 1 and events[i].options == (2,)
    for seats in [(0,), (2, 0), (1,), (2, 2)]:
        with pytest.raises(LogMismatch) as err:
            replay_log(rule_set, tampered(events, i, seats=seats))
        assert err.value.seq == i


def test_6_8_replay_refuses_a_steal_decision_with_other_options_or_where_none_was_possible():
    rule_set, events = later_player_game()
    i = decision_index(events, "steal", 1)
    with pytest.raises(LogMismatch):
        replay_log(rule_set, tampered(events, i, options=(2, 0)))
    # A decision logged where the player had no steal: battle 2, seat 1 played 4D.
    j = events.index(PLAY(2, 1, "4D"))
    log = events[:j] + [STEAL_DECISION(2, 1, "4D", (), (2,))] + events[j:]
    with pytest.raises(LogMismatch):
        replay_log(rule_set, log)


def test_6_8_replay_of_a_legal_but_different_steal_choice_disagrees_later():
    """Declining the steal is a legal option, but the log then goes on as if the steal happened:
    the following events no longer match the rules."""
    rule_set, events = later_player_game()
    i = decision_index(events, "steal", 1)
    with pytest.raises(LogMismatch) as err:
        replay_log(rule_set, tampered(events, i, seats=()))
    assert err.value.seq > i


def test_6_8_replay_refuses_a_top_card_that_was_not_won():
    """The top-card decision must name one of the won (table) cards."""
    rule_set, events = later_player_game()
    i = decision_index(events, "top", 2)
    assert events[i].cards == cs("6C")
    for card in ("8H", "2S", "JK1"):  # a card in a won pile, a set-aside card, a Joker
        with pytest.raises(LogMismatch) as err:
            replay_log(rule_set, tampered(events, i, cards=cs(card)))
        assert err.value.seq == i


def test_6_8_decisions_by_policies_are_logged_with_their_options_and_replay():
    """A seeded game with policies (ruling 19): every steal and top decision is logged with its
    options, each chosen seat or card is among them, and the log replays."""
    rule_set = steal_rules(players=3, max_battles=300)
    events, summary, _ = play_game(rule_set, 21, policies=("greedy", "cautious", "random"))
    decisions = [e for e in events if e.kind == "decision"]
    assert {e.note for e in decisions} == {"steal", "top"}
    for e in decisions:
        assert e.options, e
        if e.note == "steal":
            assert set(e.seats) <= set(e.options)
        else:
            assert len(e.cards) == 1 and e.cards[0] in e.options
    assert replay_log(rule_set, events, policies=("greedy", "cautious", "random")) == summary
