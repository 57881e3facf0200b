"""The deck and the deal (rules 1.1, 1.2, 1.4 and 8): the standard deck's codes and ranks and
its two Jokers above the Ace (1.1); a custom deck of R ranks and S suits, its codes, labels and
ranks, where suits never matter (1.2); the shuffled deal, a Fisher-Yates shuffle of the deck in
code order with the game's generator dealt round-robin with the leftovers set aside (1.4); and the
player counts, 2 to 8 with at least one card each (1.4, 8, docs/decisions.md ruling 10). Every
expected event sequence and summary was worked out by hand from docs/rules.md, not copied from
the engine; every game is replayed from its log to an equal summary (tests/rulekit.py).
"""

from __future__ import annotations

import pytest

from pipeline.errors import RulesError
from pipeline.model.cards import Deck
from pipeline.model.deal import deck_of
from pipeline.model.rng import Xoshiro256
from pipeline.model.rules import build_rules
from rulekit import (COLLECT, DOWN, END, OUT, PLAY, WAR, body, check_summary, classic_rules, code, deal_events,
                     expected_deal, fisher_yates, play, play_seed)


# ---------------------------------------------------------------------------------------------
# 1.1 The standard deck and its Jokers


def test_1_1_standard_deck_is_52_cards_in_13_ranks_and_4_suits():
    """1.1: 52 cards; code = 4 x rank index + suit index, ranks 2 < ... < 10 < J < Q < K < A."""
    deck = deck_of(classic_rules())
    assert deck.size == 52
    assert deck.rank == tuple(c // 4 for c in range(52))
    assert [deck.label(c) for c in (0, 1, 2, 3, 4, 35, 36, 51)] == \
        ["2♣", "2♦", "2♥", "2♠", "3♣", "10♠", "J♣", "A♠"]


def test_1_1_jokers_2_makes_54_cards_coded_52_and_53_above_every_rank():
    """1.1: with jokers = 2 the deck has 54 cards; the Jokers follow the suited cards (codes 52,
    53), share one rank and that rank is above the Ace's."""
    deck = deck_of(classic_rules(jokers=2))
    assert deck.size == 54
    assert deck.cards() == list(range(54))
    assert deck.label(52) == "JK1" and deck.label(53) == "JK2"
    assert deck.rank[52] == deck.rank[53]
    assert deck.rank[52] > max(deck.rank[:52]) == deck.rank[code("AS")]


# ---------------------------------------------------------------------------------------------
# 1.2 Custom deck


def test_1_2_custom_deck_codes_ranks_and_size():
    """1.2 / README.md (card codes): R ranks x S suits, code = S x rank index + suit index; Jokers are codes
    R x S and R x S + 1 and rank above all (ranks=4, suits=3, jokers=2: 14 cards)."""
    rule_set = classic_rules(ranks=4, suits=3, jokers=2)
    deck = deck_of(rule_set)
    assert deck.size == 14
    assert deck.rank == (0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4)
    assert deck_of(classic_rules(ranks=4, suits=3)).size == 12
    assert deck_of(classic_rules(ranks=7, suits=2)).size == 14
    assert deck_of(classic_rules(ranks=7, suits=2)).rank[:6] == (0, 0, 1, 1, 2, 2)


def test_1_2_custom_deck_labels():
    """Labels come from pipeline.cards.Deck: every card has its own label, the Jokers are JK1
    and JK2, and each label reads back as its code (in an explicit deal, say)."""
    for deck in (Deck(4, 3, 2), Deck(3, 5, 2), Deck(20, 1, 0)):
        labels = [deck.label(c) for c in range(deck.size)]
        assert len(set(labels)) == deck.size
        assert all(deck.parse(lab) == c for c, lab in enumerate(labels))
    deck = Deck(4, 3, 2)
    assert deck.label(12) == "JK1" and deck.label(13) == "JK2"
    # Cards of the same rank share the rank part of the label; suits 0, 1, 2 are the first three.
    assert [deck.label(c) for c in (3, 4, 5)] == ["2♣", "2♦", "2♥"]


def test_1_2_custom_deck_ranks_compare_by_index_and_suits_never_matter():
    """1.2 with ranks=4, suits=3, jokers=2, war_down=1: codes 3 and 5 are both rank 1 (in the
    standard deck they would be 2♠ and 3♦, not a tie), so they tie: a war, 1 down, 1 up. Code 11
    (rank 3) beats code 2 (rank 0), seat 0 takes the table. Then Joker 12 beats code 10, the
    highest suited rank."""
    rule_set = classic_rules(ranks=4, suits=3, jokers=2, war_down=1)
    events, summary = play(rule_set, ([3, 0, 11, 12], [5, 1, 2, 10]))
    assert body(events) == [
        PLAY(1, 0, 3), PLAY(1, 1, 5), WAR(1, (0, 1), 1),
        DOWN(1, 0, 0), PLAY(1, 0, 11), DOWN(1, 1, 1), PLAY(1, 1, 2),
        COLLECT(1, 0, 3, 5, 0, 11, 1, 2),
        PLAY(2, 0, 12), PLAY(2, 1, 10), COLLECT(2, 0, 12, 10),
        OUT(2, 1), END(2, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=2, wars=1, war_wins=[1, 0],
                  final_cards=[8, 0], cards_set_aside=6)


@pytest.mark.parametrize("options, players, size, each, aside", [
    pytest.param({"ranks": 4, "suits": 3, "jokers": 2}, 2, 14, 7, 0, id="4x3+2_2p"),
    pytest.param({"ranks": 5, "suits": 3}, 2, 15, 7, 1, id="5x3_2p"),
    pytest.param({"ranks": 4, "suits": 4, "players": 3}, 3, 16, 5, 1, id="4x4_3p"),
    pytest.param({"ranks": 3, "suits": 5, "jokers": 2, "players": 3}, 3, 17, 5, 2, id="3x5+2_3p"),
])
@pytest.mark.parametrize("seed", [1, 2024])
def test_1_2_shuffled_deal_of_a_custom_deck_has_exactly_its_cards(options, players, size, each,
                                                                  aside, seed):
    """1.2 + 1.4: a shuffled deal of a custom deck deals every code 0..size-1 exactly once:
    floor(size / n) to each seat, the rest set aside, as the Fisher-Yates shuffle dealt
    round-robin; the whole game keeps every card (held + set aside = size)."""
    rule_set = classic_rules(**options)
    assert deck_of(rule_set).size == size
    events, summary, dealt = play_seed(rule_set, seed)
    piles, logged_aside = deal_events(events, players)
    assert [len(p) for p in piles] == [each] * players
    assert sorted([c for p in piles for c in p] + list(logged_aside or ())) == list(range(size))
    assert len(logged_aside or ()) == aside
    want_piles, want_aside = expected_deal(seed, size, players)
    assert list(piles) == want_piles and (logged_aside or ()) == want_aside
    assert list(dealt.piles) == want_piles and dealt.set_aside == want_aside
    assert sum(summary.final_cards) + summary.cards_set_aside == size
    assert summary.outcome in ("win", "draw", "capped", "cycle")


# ---------------------------------------------------------------------------------------------
# 1.4 Shuffle and deal


@pytest.mark.parametrize("variant, options, players, each, aside", [
    pytest.param("classic", {}, 2, 26, 0, id="classic_2p"),
    pytest.param("classic", {"players": 3}, 3, 17, 1, id="classic_3p"),
    pytest.param("multiplayer", {}, 3, 17, 1, id="multiplayer_default_3p"),
    pytest.param("multiplayer", {"players": 4}, 4, 13, 0, id="multiplayer_4p"),
    pytest.param("classic", {"players": 5}, 5, 10, 2, id="classic_5p"),
    pytest.param("razboi", {"players": 3}, 3, 17, 1, id="razboi_3p"),
    pytest.param("classic", {"players": 8}, 8, 6, 4, id="classic_8p"),
])
@pytest.mark.parametrize("seed", [0, 7, 123456789])
def test_1_4_deal_is_the_shuffle_dealt_round_robin_with_leftovers_set_aside(variant, options,
                                                                           players, each, aside,
                                                                           seed):
    """1.4: the deck (codes in ascending order) is shuffled with Xoshiro256(seed), Fisher-Yates;
    card i goes to seat i mod n until each has floor(52 / n), a pile keeps the order received
    (first card received on top); leftovers are set aside and logged (3 players: 17 each + 1)."""
    rule_set = build_rules(variant, options)
    assert rule_set.players == players
    events, summary, _ = play_seed(rule_set, seed)
    deck = fisher_yates(Xoshiro256(seed), range(52))
    piles, logged_aside = deal_events(events, players)
    assert [len(p) for p in piles] == [each] * players
    for i in range(each * players):
        assert piles[i % players][i // players] == deck[i]
    if aside:
        assert logged_aside == tuple(deck[each * players:])
        assert len(logged_aside) == aside
    else:
        assert logged_aside is None
    assert summary.cards_set_aside >= aside
    assert sum(summary.final_cards) + summary.cards_set_aside == 52


@pytest.mark.parametrize("variant, options, fragment", [
    pytest.param("classic", {"players": 1}, "players", id="1_player"),
    pytest.param("classic", {"players": 9}, "players", id="9_players"),
    pytest.param("multiplayer", {"players": 9}, "players", id="multiplayer_9_players"),
    pytest.param("razboi", {"players": 1}, "players", id="razboi_1_player"),
    pytest.param("classic", {"players": 8, "ranks": 7, "suits": 1}, "without a card", id="8p_on_7_cards"),
    pytest.param("classic", {"ranks": 1, "suits": 1}, "without a card", id="2p_on_1_card"),
    pytest.param("classic", {"ranks": 0}, "ranks", id="ranks_0"),
    pytest.param("classic", {"suits": 0}, "suits", id="suits_0"),
])
def test_1_4_player_counts_outside_2_to_8_or_without_a_card_each_are_refused(variant, options,
                                                                             fragment):
    """1.4 / 8: 2 to 8 players, as long as the deck gives each at least one card; a deck needs
    at least 1 rank and 1 suit. Anything else is a RulesError."""
    with pytest.raises(RulesError, match=fragment):
        build_rules(variant, options)


@pytest.mark.parametrize("variant, options", [
    ("classic", {"players": 2}),
    ("classic", {"players": 8}),
    ("classic", {"players": 2, "ranks": 5, "suits": 2}),             # 10 cards: 5 each
    ("classic", {"players": 3, "ranks": 4, "suits": 4}),             # 16 cards: 5 each + 1
    ("classic", {"players": 8, "ranks": 4, "suits": 10}),            # 40 cards: 5 each
    ("classic", {"players": 8, "ranks": 4, "suits": 2}),             # 8 cards: 1 each
    ("classic", {"players": 2, "ranks": 1, "suits": 2}),             # 2 cards: 1 each
    ("classic", {"players": 3, "ranks": 2, "suits": 2}),             # 4 cards: 1 each + 1
    ("multiplayer", {"players": 3}),
    ("multiplayer", {"players": 4}),
    ("razboi", {"players": 4}),
])
def test_1_4_player_counts_within_the_limits_are_accepted(variant, options):
    rule_set = build_rules(variant, options)
    assert rule_set.players == options["players"]
    assert deck_of(rule_set).size // rule_set.players >= 1
