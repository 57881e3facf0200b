"""Steal War and Arneson's War (rules sections 6 and 7, as read by docs/decisions.md rulings
11-19), one rule point at a time, on small hand-built deals with scripted decisions.

Every decision is answered by `Script`, a chooser that hands out pre-set answers from one queue
per (kind, seat) and asserts the options it was offered, so each game is exact. The engines are
run directly (`play_steal`, `play_arneson`) with a `Recorder` and the game's generator. Every
expected event sequence and summary below was worked out by hand from docs/rules.md and the rulings,
not copied from the engine. Cards not dealt in a test are declared set aside (out of play).

Two readings these tests rely on, where rules 2.4's wording leaves room (see the notes at the
tests that use them):
- *Table order* is "the order in which the cards came onto the table". In Steal War the cards
  come onto the table in the battle's turn order (ruling 11: each player in turn looks, may steal,
  then plays; ruling 13: wars are fought in turn order), so table order starts with the battle's
  first seat, not with seat 0.
- In Arneson's War both players put their face-down cards down and then both choose and play
  their fourth cards (ruling 16), so a war's table order is: both players' face-down cards (seat
  0's, then seat 1's), then both fourth cards.

Every game is also replayed from its log (`replay_log`), which reads the decisions from the log
and must give an equal summary; a decision changed to an option the player did not have must
raise `LogMismatch`.
"""

from __future__ import annotations

import pytest

from pipeline.engines.arneson.reference import play_arneson
from pipeline.model.cards import Deck
from pipeline.model.deal import check_deal, deck_of
from pipeline.engines.chance import RandomChance
from pipeline.engines.event import Event, Recorder
from pipeline.errors import DealError, LogMismatch, RulesError
from pipeline.engines.game import play_game, replay_log
from pipeline.model.rng import Xoshiro256
from pipeline.model.rules import build_rules
from pipeline.engines.steal.reference import play_steal
from rulekit import (check_summary, fisher_yates, DEAL, PLAY, DOWN, WAR, WAR_OUT, COLLECT, SET_ASIDE, RESHUFFLE,
                     DRAW, OUT, END)

# The standard deck with its two Jokers: code = 4 x rank index + suit index (C D H S), Jokers 52
# and 53 ("JK1", "JK2"). The 52 suited cards have the same codes without Jokers (Arneson's War).
DECK = Deck(13, 4, 2)


# ---------------------------------------------------------------------------------------------
# Helpers


def c(card) -> int:
    """The code of a card label ("10H", "JK1"), or a code as is."""
    return card if isinstance(card, int) else DECK.parse(card)


def cs(*cards) -> tuple[int, ...]:
    return tuple(c(x) for x in cards)


def steal_rules(**options):
    return build_rules("steal", options)


def arneson_rules(**options):
    """Arneson's War with a fixed `table_order` pickup unless a test says otherwise."""
    return build_rules("arneson", {"pickup": "table_order", **options})


def deal(rule_set, *piles):
    """An explicit deal of `piles` (top card first); every other card of the deck is set aside."""
    used = {c(x) for p in piles for x in p}
    rest = [code for code in range(deck_of(rule_set).size) if code not in used]
    return check_deal(rule_set, [[c(x) for x in p] for p in piles], rest)


class Script:
    """A chooser with pre-set answers: one queue per (kind, seat), in the order asked. Each answer
    carries the options the engine must offer; the offered options are asserted."""

    randomized = False

    def __init__(self, answers):
        """`answers`: (kind, seat, offered options, answer) tuples, or a dict
        {(kind, seat): [(offered options, answer), ...]}."""
        self.queues: dict[tuple[str, int], list] = {}
        if isinstance(answers, dict):
            for key, queue in answers.items():
                self.queues[key] = [(tuple(o), a) for o, a in queue]
        else:
            for kind, seat, offered, answer in answers:
                self.queues.setdefault((kind, seat), []).append((tuple(offered), answer))
        self.asked: list[tuple[str, int, tuple, object]] = []  # (kind, seat, options, view)

    def choose(self, kind, seat, view, options):
        queue = self.queues.get((kind, seat))
        assert queue, f"unscripted {kind} decision for seat {seat} among {list(options)}"
        offered, answer = queue.pop(0)
        assert tuple(options) == offered, (
            f"{kind} decision of seat {seat}: offered {list(options)}, expected {list(offered)}")
        self.asked.append((kind, seat, tuple(options), view))
        return answer

    def finished(self) -> None:
        left = {key: queue for key, queue in self.queues.items() if queue}
        assert not left, f"scripted answers never asked for: {left}"

    def views(self, kind, seat):
        return [view for k, s, _, view in self.asked if (k, s) == (kind, seat)]


def steal(seat, options, chosen):
    """A steal answer: `options` the seats offered (in order), `chosen` the seats taken."""
    return ("steal", seat, tuple(options), tuple(chosen))


def top(seat, chosen, *options):
    """A top-card answer: `options` the won cards offered, in table order."""
    return ("top", seat, cs(*options), c(chosen))


def hand(seat, chosen, *options):
    """A hand-card answer: `options` the hand, sorted by code."""
    return ("hand", seat, cs(*options), c(chosen))


def check_decisions_logged(events, script) -> None:
    """rules 6.8 / 7.5: every decision asked of the chooser is logged, in order, with the options
    it had, and nothing else is logged as a decision."""
    logged = [(e.note, e.seat, e.options) for e in events if e.kind == "decision"]
    assert logged == [(kind, seat, options) for kind, seat, options, _ in script.asked]


def run_steal(rule_set, piles, script, seed: int = 0):
    """Play a hand-built Steal War deal with scripted decisions; check the log replays."""
    rec = Recorder()
    chance = RandomChance(Xoshiro256(seed))
    summary = play_steal(rule_set, deal(rule_set, *piles), chance, rec, script)
    script.finished()
    check_decisions_logged(rec.events, script)
    assert replay_log(rule_set, rec.events, policies=("default",) * rule_set.players) == summary
    return rec.events, summary


def run_arneson(rule_set, piles, script, seed: int = 0):
    """Play a hand-built Arneson deal with scripted decisions; check the log replays. The replay's
    policies are not randomized, like the script, so cycle detection is the same (ruling 18)."""
    rec = Recorder()
    chance = RandomChance(Xoshiro256(seed))
    summary = play_arneson(rule_set, deal(rule_set, *piles), chance, rec, script)
    script.finished()
    check_decisions_logged(rec.events, script)
    assert replay_log(rule_set, rec.events, policies=("hand:highest", "hand:highest")) == summary
    return rec.events, summary


def after_deal(events, players: int):
    """The events after the deal events and the set-aside event of a hand-built deal."""
    assert [e.kind for e in events[:players + 1]] == ["deal"] * players + ["set_aside"]
    return events[players + 1:]


def tampered(events, index: int, **fields):
    """A copy of the log with event `index` changed (fields: cards, seats, options)."""
    log = list(events)
    log[index] = log[index]._replace(**{name: tuple(value) for name, value in fields.items()})
    return log


def decision_index(events, note: str, nth: int = 0) -> int:
    return [i for i, e in enumerate(events) if e.kind == "decision" and e.note == note][nth]


def STEAL_DECISION(b, seat, card, chosen, options):
    """Ruling 12: cards = the looked-at card, seats = the chosen seats, options = the eligible."""
    return Event(b, "decision", seat, cs(card), seats=tuple(chosen), options=tuple(options), note="steal")


def STOLEN(b, seat, bundle, seats):
    """Ruling 12: the bundle put on top of the stealer's won pile, top first."""
    return Event(b, "steal", seat, cs(*bundle), seats=tuple(seats))


def TOP(b, seat, chosen, *options):
    """Ruling 14: cards = the chosen top card, options = the table cards in table order."""
    return Event(b, "decision", seat, cs(chosen), options=cs(*options), note="top")


def HAND(b, seat, depth, chosen, *options):
    """Ruling 15: cards = the chosen card, options = the hand sorted by code, value = war depth."""
    return Event(b, "decision", seat, cs(chosen), options=cs(*options), value=depth, note="hand")


# =============================================================================================
# Steal War (rules 6)
# =============================================================================================

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
    assert deck.rank[52] == deck.rank[53] > deck.rank[c("AS")]
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
    assert (view.seat, view.card, view.eligible, view.in_war) == (0, c("5H"), ((1, 2),), False)


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
    assert (view.card, view.in_war) == (c("QC"), True)


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


# =============================================================================================
# Arneson's War (rules 7)
# =============================================================================================

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
    assert (view.in_war, view.tied_rank) == (True, deck_of(rule_set).rank[c("7D")])


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
