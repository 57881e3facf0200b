"""The deck, the deal and the variants beyond Classic War (rules sections 1, 3, 4, 5, 8), one
rule point at a time, on small hand-built deals.

Every expected event sequence and summary below was worked out by hand from docs/rules.md, not copied
from the engine. Cards not dealt in a test are declared set aside (out of play), so a game is won
by holding every card *in play*. The hand-built games use a fixed pickup order (`table_order` or
`winner_first`) so that whole games are exact. Shuffled deals are checked against a Fisher-Yates
shuffle of the deck in code order with the game's generator, dealt round-robin (rules 1.4).

Every game played here is also replayed from its log (`replay_log`), which must give an equal
summary.
"""

from __future__ import annotations

import pytest

from pipeline.model.cards import Deck
from pipeline.model.deal import check_deal, deck_of
from pipeline.errors import RulesError
from pipeline.engines.game import play_game, replay_log
from pipeline.model.rng import Xoshiro256
from pipeline.model.rules import build_rules
from rulekit import body, check_summary, fisher_yates, PLAY, DOWN, WAR, WAR_OUT, FORFEIT, COLLECT, SET_ASIDE, OUT, END

# The standard deck with its two Jokers: code = 4 x rank index + suit index, Jokers 52 and 53.
# Labels of the 52 suited cards are the same with or without Jokers.
DECK54 = Deck(13, 4, 2)


# ---------------------------------------------------------------------------------------------
# Helpers


def code(card) -> int:
    """A card code from a label ("10H", "JK1") of the standard deck, or a code given as is."""
    return card if isinstance(card, int) else DECK54.parse(card)


def cs(*cards) -> tuple[int, ...]:
    return tuple(code(x) for x in cards)


def classic(**options):
    return build_rules("classic", {"pickup": "table_order", **options})


def multi(**options):
    """Multiplayer War (defaults: 3 players, war_down 1), fixed `table_order` pickup."""
    return build_rules("multiplayer", {"pickup": "table_order", **options})


def razboi(**options):
    return build_rules("razboi", {"pickup": "table_order", **options})


def deal(rule_set, *piles):
    """An explicit deal of `piles` (top card first, labels or codes); every other card of the
    deck is set aside."""
    used = {code(x) for p in piles for x in p}
    rest = [c for c in range(deck_of(rule_set).size) if c not in used]
    return check_deal(rule_set, [[code(x) for x in p] for p in piles], rest)


def play(rule_set, piles, seed: int = 0):
    """Play a hand-built deal; check that its log replays to an equal summary."""
    events, summary, _ = play_game(rule_set, seed, deal(rule_set, *piles))
    assert replay_log(rule_set, events) == summary
    return events, summary


def play_seed(rule_set, seed: int):
    """Play the game of a seed (shuffled deal); check that its log replays to an equal summary."""
    events, summary, dealt = play_game(rule_set, seed)
    assert replay_log(rule_set, events) == summary
    return events, summary, dealt


def expected_deal(seed: int, size: int, players: int):
    """rules 1.4 by hand: shuffle codes 0..size-1, card i to seat i mod n until each seat has
    floor(size / n); the rest set aside."""
    deck = fisher_yates(Xoshiro256(seed), range(size))
    each = size // players
    piles = [[] for _ in range(players)]
    for i in range(each * players):
        piles[i % players].append(deck[i])
    return [tuple(p) for p in piles], tuple(deck[each * players:])


def deal_events(events, players):
    """The deal's events: each seat's pile, and the set-aside cards (or None if not logged)."""
    for seat in range(players):
        assert (events[seat].battle, events[seat].kind, events[seat].seat) == (0, "deal", seat)
    piles = [events[seat].cards for seat in range(players)]
    after = events[players]
    aside = after.cards if after.kind == "set_aside" and after.battle == 0 else None
    return piles, aside


def suit_run(suit: str, *ranks: str) -> list[str]:
    return [r + suit for r in ranks]


# ---------------------------------------------------------------------------------------------
# 1.1 Jokers


def test_1_1_standard_deck_is_52_cards_in_13_ranks_and_4_suits():
    """1.1: 52 cards; code = 4 x rank index + suit index, ranks 2 < ... < 10 < J < Q < K < A."""
    deck = deck_of(classic())
    assert deck.size == 52
    assert deck.rank == tuple(c // 4 for c in range(52))
    assert [deck.label(c) for c in (0, 1, 2, 3, 4, 35, 36, 51)] == \
        ["2♣", "2♦", "2♥", "2♠", "3♣", "10♠", "J♣", "A♠"]


def test_1_1_jokers_2_makes_54_cards_coded_52_and_53_above_every_rank():
    """1.1: with jokers = 2 the deck has 54 cards; the Jokers follow the suited cards (codes 52,
    53), share one rank and that rank is above the Ace's."""
    deck = deck_of(classic(jokers=2))
    assert deck.size == 54
    assert deck.cards() == list(range(54))
    assert deck.label(52) == "JK1" and deck.label(53) == "JK2"
    assert deck.rank[52] == deck.rank[53]
    assert deck.rank[52] > max(deck.rank[:52]) == deck.rank[code("AS")]


def test_1_1_joker_beats_an_ace():
    """1.1: JK1 beats AS (battle 1), and B, holding both, then wins: 2C < 3D."""
    events, summary = play(classic(jokers=2), (["AS", "2C"], ["JK1", "3D"]))
    assert body(events) == [
        PLAY(1, 0, "AS"), PLAY(1, 1, "JK1"), COLLECT(1, 1, "AS", "JK1"),
        PLAY(2, 0, "2C"), PLAY(2, 1, "3D"), COLLECT(2, 1, "2C", "3D"),
        OUT(2, 0), END(2, 1, "win"),
    ]
    check_summary(summary, outcome="win", winner=1, battles=2, wars=0, war_battles=0,
                  war_wins=[0, 0], final_cards=[0, 4], cards_set_aside=50)


def test_1_1_two_jokers_tie_and_go_to_war():
    """1.1 + 2.2: JK1 and JK2 tie: a war, 3 down and 1 up; KC beats 5D."""
    events, summary = play(classic(jokers=2),
                           (["JK1", "2C", "3C", "4C", "KC"], ["JK2", "2D", "3D", "4D", "5D"]))
    assert body(events) == [
        PLAY(1, 0, "JK1"), PLAY(1, 1, "JK2"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "KC"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "5D"),
        COLLECT(1, 0, "JK1", "JK2", "2C", "3C", "4C", "KC", "2D", "3D", "4D", "5D"),
        OUT(1, 1), END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=1, wars=1, war_battles=1,
                  max_war_depth=1, war_wins=[1, 0], final_cards=[10, 0], cards_set_aside=44)


# ---------------------------------------------------------------------------------------------
# 1.2 Custom deck


def test_1_2_custom_deck_codes_ranks_and_size():
    """1.2 / README.md (card codes): R ranks x S suits, code = S x rank index + suit index; Jokers are codes
    R x S and R x S + 1 and rank above all (ranks=4, suits=3, jokers=2: 14 cards)."""
    rule_set = classic(ranks=4, suits=3, jokers=2)
    deck = deck_of(rule_set)
    assert deck.size == 14
    assert deck.rank == (0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4)
    assert deck_of(classic(ranks=4, suits=3)).size == 12
    assert deck_of(classic(ranks=7, suits=2)).size == 14
    assert deck_of(classic(ranks=7, suits=2)).rank[:6] == (0, 0, 1, 1, 2, 2)


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
    rule_set = classic(ranks=4, suits=3, jokers=2, war_down=1)
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
    rule_set = classic(**options)
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
    pytest.param("classic", {"players": 8, "ranks": 4, "suits": 4}, "5", id="8p_on_16_cards"),
    pytest.param("classic", {"ranks": 3, "suits": 3}, "5", id="2p_on_9_cards"),
    pytest.param("classic", {"ranks": 0}, "ranks", id="ranks_0"),
    pytest.param("classic", {"suits": 0}, "suits", id="suits_0"),
])
def test_1_4_player_counts_outside_2_to_8_or_under_5_cards_each_are_refused(variant, options,
                                                                           fragment):
    """1.4 / 8: 2 to 8 players, as long as the deck gives each at least 5 cards; a deck needs
    at least 1 rank and 1 suit. Anything else is a RulesError."""
    with pytest.raises(RulesError, match=fragment):
        build_rules(variant, options)


@pytest.mark.parametrize("variant, options", [
    ("classic", {"players": 2}),
    ("classic", {"players": 8}),
    ("classic", {"players": 2, "ranks": 5, "suits": 2}),             # 10 cards: 5 each
    ("classic", {"players": 3, "ranks": 4, "suits": 4}),             # 16 cards: 5 each + 1
    ("classic", {"players": 8, "ranks": 4, "suits": 10}),            # 40 cards: 5 each
    ("multiplayer", {"players": 3}),
    ("multiplayer", {"players": 4}),
    ("razboi", {"players": 4}),
])
def test_1_4_player_counts_within_the_limits_are_accepted(variant, options):
    rule_set = build_rules(variant, options)
    assert rule_set.players == options["players"]
    assert deck_of(rule_set).size // rule_set.players >= 5


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
    events, summary = play(multi(), (["KC", "2C"], ["5D"], ["9H", "4H"]))
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
    events, summary = play(multi(players=4), (["KC", "2C"], ["5D"], ["9H", "4H"], ["3S", "AS"]))
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
    events, summary = play(multi(), MP_WAR)
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
    events, summary = play(multi(pickup="winner_first"), MP_WAR)
    b = body(events)
    assert b[8] == COLLECT(1, 0, "9C", "2C", "KC", "8D", "9H", "3H", "5H")
    assert b[9:] == [OUT(1, 2), PLAY(2, 0, "9C"), PLAY(2, 1, "6D"), COLLECT(2, 0, "9C", "6D"),
                     OUT(2, 1), END(2, 0, "win")]
    check_summary(summary, outcome="win", winner=0, final_cards=[8, 0, 0])


def test_3_2_tie_for_a_lower_card_is_no_war():
    """3.2: 5D and 5H tie, but below AC: no war, AC takes the three cards."""
    events, summary = play(multi(), (["AC", "2C"], ["5D", "3D"], ["5H", "4H"]))
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
    events, summary = play(multi(players=4),
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
    events, summary = play(multi(), (["7C", "2C", "KC", "3C", "AC"],
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
    events, summary = play(multi(players=4), (["QC", "2C", "5C", "6C"],
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
    events, summary = play(multi(), (["9C", "KC"], ["9D", "2D", "3D"], ["5H", "6H"]))
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
    events, summary = play(multi(shortfall="lose"), (["9C", "KC"], ["9D", "2D", "3D"], ["5H", "6H"]))
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
    events, summary = play(multi(), (["9C"], ["9D", "2D", "3D"], ["5H", "6H"]))
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
    events, summary = play(multi(), (["9C"], ["9D"], ["5H", "6H"]))
    assert body(events) == [
        PLAY(1, 0, "9C"), PLAY(1, 1, "9D"), PLAY(1, 2, "5H"), WAR(1, (0, 1), 1),
        WAR_OUT(1, 0), WAR_OUT(1, 1), SET_ASIDE(1, "9C", "9D", "5H"),
        OUT(1, 0), OUT(1, 1), END(1, 2, "win"),
    ]
    check_summary(summary, outcome="win", winner=2, battles=1, wars=1, war_wins=[0, 0, 0],
                  final_cards=[0, 0, 1], cards_set_aside=51)


# ---------------------------------------------------------------------------------------------
# 4 Jokers


@pytest.mark.parametrize("seed", [0, 99])
def test_4_jokers_variant_54_cards_27_each(seed):
    """4: `jokers` is Classic War with 54 cards (2 Jokers), 27 each, nothing set aside."""
    rule_set = build_rules("jokers")
    assert rule_set.jokers == 2 and rule_set.players == 2 and rule_set.war_down == 3
    assert deck_of(rule_set).size == 54
    events, summary, _ = play_seed(rule_set, seed)
    piles, aside = deal_events(events, 2)
    assert [len(p) for p in piles] == [27, 27] and aside is None
    assert sorted(piles[0] + piles[1]) == list(range(54))
    assert list(piles) == expected_deal(seed, 54, 2)[0]
    assert sum(summary.final_cards) + summary.cards_set_aside == 54


def test_4_jokers_variant_joker_tie_is_a_classic_war():
    rule_set = build_rules("jokers", {"pickup": "table_order"})
    events, summary = play(rule_set, (["JK2", "2C", "3C", "4C", "5C"], ["JK1", "2D", "3D", "4D", "KD"]))
    assert body(events) == [
        PLAY(1, 0, "JK2"), PLAY(1, 1, "JK1"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C", "3C", "4C"), PLAY(1, 0, "5C"),
        DOWN(1, 1, "2D", "3D", "4D"), PLAY(1, 1, "KD"),
        COLLECT(1, 1, "JK2", "JK1", "2C", "3C", "4C", "5C", "2D", "3D", "4D", "KD"),
        OUT(1, 0), END(1, 1, "win"),
    ]
    check_summary(summary, winner=1, final_cards=[0, 10], cards_set_aside=44)


@pytest.mark.parametrize("variant, players, each, aside", [
    ("classic", 2, 27, 0),
    ("multiplayer", 3, 18, 0),
    ("razboi", 2, 27, 0),
])
@pytest.mark.parametrize("seed", [3, 4])
def test_4_jokers_2_is_an_option_of_other_variants(variant, players, each, aside, seed):
    """4: any other variant may add Jokers with jokers = 2: a 54-card deck, dealt as in 1.4."""
    rule_set = build_rules(variant, {"jokers": 2})
    assert rule_set.jokers == 2 and rule_set.players == players
    assert deck_of(rule_set).size == 54
    events, summary, _ = play_seed(rule_set, seed)
    piles, logged_aside = deal_events(events, players)
    assert [len(p) for p in piles] == [each] * players
    assert (logged_aside is None) == (aside == 0)
    assert list(piles) == expected_deal(seed, 54, players)[0]
    assert sum(summary.final_cards) + summary.cards_set_aside == 54


def test_4_jokers_in_multiplayer_tie_and_war_one_down_one_up():
    """4 + 3.2: JK1 and JK2 tie for the highest (AH, below them, takes no part): a war of 1 down,
    1 up; KC beats QD, seat 0 takes all seven cards."""
    events, summary = play(multi(jokers=2),
                           (["JK1", "2C", "KC"], ["JK2", "2D", "QD"], ["AH"]))
    assert body(events) == [
        PLAY(1, 0, "JK1"), PLAY(1, 1, "JK2"), PLAY(1, 2, "AH"), WAR(1, (0, 1), 1),
        DOWN(1, 0, "2C"), PLAY(1, 0, "KC"), DOWN(1, 1, "2D"), PLAY(1, 1, "QD"),
        COLLECT(1, 0, "JK1", "JK2", "AH", "2C", "KC", "2D", "QD"),
        OUT(1, 1), OUT(1, 2), END(1, 0, "win"),
    ]
    check_summary(summary, outcome="win", winner=0, battles=1, wars=1,
                  final_cards=[7, 0, 0], cards_set_aside=47)


def test_4_joker_beats_ace_in_razboi():
    events, summary = play(razboi(jokers=2), (["AS"], ["JK2"]))
    assert body(events) == [PLAY(1, 0, "AS"), PLAY(1, 1, "JK2"), COLLECT(1, 1, "AS", "JK2"),
                            OUT(1, 0), END(1, 1, "win")]
    check_summary(summary, winner=1, final_cards=[0, 2], cards_set_aside=52)


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
    fillers = [DECK54.label(c).replace("♣", "C").replace("♦", "D").replace("♥", "H")
               .replace("♠", "S") for c in range(52)]
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
    events, summary = play(razboi(), (a, b))
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
    events, summary = play(razboi(), (a, b))
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
    events, summary = play(razboi(), (["2C", "3C", "AC"], ["2D", "3D", "KD"]))
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
    events, summary = play(razboi(), (a, b))
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
    events, summary = play(razboi(ace_value=14), (a, b))
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
    events, summary = play(razboi(), piles)
    assert body(events) == expected
    check_summary(summary, outcome="win", winner=0, battles=1, wars=1,
                  final_cards=[2 * (value + 1), 0])


@pytest.mark.parametrize("ace_value", [1, 5, 11, 14])
def test_5_1_ace_value_sets_the_size_of_an_ace_war(ace_value):
    """5.1 `ace_value` v: a tie on Aces puts v - 1 down (none when v = 1), the v-th up."""
    piles, expected = war_game("A", ace_value, "KH", "2H")
    events, summary = play(razboi(ace_value=ace_value), piles)
    assert body(events) == expected
    check_summary(summary, winner=0, final_cards=[2 * (ace_value + 1), 0])


@pytest.mark.parametrize("ace_value", [5, 11, 14])
def test_5_1_joker_tie_puts_ace_value_down(ace_value):
    """5.1 with jokers = 2: a Joker is worth one more than the Ace (v = ace_value + 1), so a
    Joker tie puts ace_value cards down and the next one up."""
    rule_set = razboi(jokers=2, ace_value=ace_value)
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
    events, summary = play(razboi(jokers=2), (a, b))
    assert body(events)[3] == DOWN(1, 0, *a[1:12]) and len(a[1:12]) == 11
    assert body(events)[4] == PLAY(1, 0, "AC")
    assert body(events)[5:7] == [DOWN(1, 1, *b[1:12]), PLAY(1, 1, "KD")]
    check_summary(summary, winner=0, final_cards=[26, 0])


def test_5_2_repeated_tie_is_sized_by_the_new_rank_8s_then_3s():
    """5.2: 8s tie (7 down, 1 up); the up cards 3C 3D tie: the new war is sized by 3 (2 down,
    1 up), not by 8; AC beats KD."""
    a = ["8C", "2C", "4C", "5C", "6C", "7C", "9C", "10C", "3C", "JC", "QC", "AC"]
    b = ["8D", "2D", "4D", "5D", "6D", "7D", "9D", "10D", "3D", "JD", "QD", "KD"]
    events, summary = play(razboi(), (a, b))
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
    events, summary = play(razboi(), (a, b))
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
    events, summary = play(razboi(players=3), (a, ["5D", "6D"], c))
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
    events, summary = play(razboi(players=4), (a, b, c, d))
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
    events, summary = play(razboi(), (a, b))
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
    events, summary = play(razboi(shortfall="lose"), (a, b))
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
