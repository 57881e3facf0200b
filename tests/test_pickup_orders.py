"""The pickup orders `natural` and `sorted` (docs/rules.md 2.4) and small decks (1.4), on deals
worked out by hand: the order a won table goes under the pile, whole games of a 4-card deck
under every fixed pickup, and the compiled engines giving the same games as the references."""

from __future__ import annotations

import pytest

from pipeline.engines.choice import compiled_plays
from pipeline.engines.game import play_game
from pipeline.log.shard import play_range, shard_tables
from pipeline.model.deal import check_deal
from pipeline.model.rules import build_rules


def first_collect(rules, piles):
    """The cards of the game's first collect, and the game's summary."""
    events, summary, _ = play_game(rules, 1, check_deal(rules, piles))
    return next(e.cards for e in events if e.kind == "collect"), summary


# A deck of 4 ranks in 2 suits: codes 0, 1 rank 0; 2, 3 rank 1; 4, 5 rank 2; 6, 7 rank 3.
# Seat 0 plays 0, seat 1 plays 1: a tie; the war lays 2 down and 6 up for seat 0, 4 down and 5
# up for seat 1; 6 (rank 3) beats 5 (rank 2). Table order: 0 1 2 6 4 5.
WAR_DEAL = [[0, 2, 6, 3], [1, 4, 5, 7]]


@pytest.mark.parametrize("pickup, order", [
    ("table_order", (0, 1, 2, 6, 4, 5)),
    ("winner_first", (0, 2, 6, 1, 4, 5)),
    # the stack: the battle's 0 1 (equal ranks, table order), the war's face-down 2 4, its
    # face-up 5 then 6 (lowest first); under the pile reversed
    ("natural", (6, 5, 4, 2, 1, 0)),
    # highest rank first: 6, then 4 and 5 (rank 2, table order), 2, then 0 and 1
    ("sorted", (6, 4, 5, 2, 0, 1)),
])
def test_a_war_is_collected_in_each_fixed_order(pickup, order):
    rules = build_rules("classic", {"ranks": "4", "suits": "2", "war_down": "1", "pickup": pickup})
    cards, _ = first_collect(rules, WAR_DEAL)
    assert cards == order


def test_natural_in_open_play_gives_each_rounds_higher_card_then_its_lower_from_the_last_round():
    """war_down=0, two players: battle 0 v 1 (tie), then 4 v 3: under the pile go 4, 3 (the last
    round: higher, lower), then 1, 0 (the first round's two cards of one rank: the later in
    table order first)."""
    rules = build_rules("classic", {"ranks": "3", "suits": "2", "war_down": "0", "pickup": "natural"})
    cards, _ = first_collect(rules, [[0, 4, 2], [1, 3, 5]])
    assert cards == (4, 3, 1, 0)


def test_a_forfeit_lies_face_down_in_natural_order():
    """shortfall=lose, three seats: seats 0 and 1 tie on rank 3 (codes 6, 7); seat 1 holds 1 card
    more, no more than war_down=1, so it forfeits it (code 2) face down; seat 0 alone is left and
    takes the table at once. The stack: the battle's 0, 6, 7 lowest first (0, then 6 and 7 in
    table order), the war's face-down forfeit 2; reversed: 2, 7, 6, 0."""
    rules = build_rules("multiplayer", {"players": "3", "ranks": "4", "suits": "2", "war_down": "1",
                                        "shortfall": "lose", "pickup": "natural"})
    cards, _ = first_collect(rules, [[6, 1, 3], [7, 2], [0, 4, 5]])
    assert cards == (2, 7, 6, 0)


# A deck of 2 ranks in 2 suits, open play: codes 0, 1 rank 0; 2, 3 rank 1. Seat 0 holds 2 0,
# seat 1 holds 1 3.
# Battle 1: 2 beats 1. Battle 2: 0 loses to 3. Under table_order, seat 0 holds 2 1 and seat 1
# 0 3: by ranks (1 0 against 0 1) the deal again, the suits swapped: a cycle of 2 battles found
# before the third (by cards it would come back only after battle 4). Under the others,
# seat 1 takes 3 0, so battle 3 ties 2 with 3, the war ties 1 with 0, and nobody has a card for
# the next war: the table is set aside and the game is a draw.
TINY = [[2, 0], [1, 3]]


@pytest.mark.parametrize("pickup, outcome, battles, cycle_length", [
    ("table_order", "cycle", 2, 2),
    ("winner_first", "draw", 3, None),
    ("natural", "draw", 3, None),
    ("sorted", "draw", 3, None),
])
def test_every_fixed_order_on_a_four_card_deck(pickup, outcome, battles, cycle_length):
    rules = build_rules("classic", {"ranks": "2", "suits": "2", "war_down": "0", "pickup": pickup})
    events, summary, _ = play_game(rules, 1, check_deal(rules, TINY))
    assert (summary.outcome, summary.battles, summary.cycle_length) == (outcome, battles, cycle_length)
    if outcome == "draw":
        assert [e.kind for e in events if e.battle == 3][-6:] == ["war_out", "war_out", "set_aside", "out", "out",
                                                                   "end"]


@pytest.mark.parametrize("variant, options", [
    ("classic", {"pickup": "natural"}),
    ("classic", {"pickup": "sorted", "war_down": "0"}),
    ("classic", {"pickup": "natural", "ranks": "3", "suits": "2", "war_down": "0"}),
    ("multiplayer", {"players": "4", "pickup": "natural", "shortfall": "lose"}),
    ("razboi", {"pickup": "sorted"}),
    ("arneson", {"pickup": "natural"}),
    ("arneson", {"pickup": "sorted", "war_tiebreak": "single_up"}),
    ("classic", {"ranks": "1", "suits": "2", "pickup": "natural"}),
    ("multiplayer", {"players": "3", "ranks": "2", "suits": "2", "pickup": "sorted", "war_down": "0"}),
    ("arneson", {"ranks": "2", "suits": "1"}),
])
def test_the_compiled_engines_give_the_references_games(variant, options):
    pytest.importorskip("numba")
    rules = build_rules(variant, options)
    assert compiled_plays(rules)
    _events, games = shard_tables(rules, 0, 9, 0, 60)
    _ids, _logs, records = play_range(rules, 0, 9, 0, 60)
    for name in ("outcome", "battles", "wars", "cycle_length", "final_cards"):
        assert games.column(name).to_pylist() == [r[name] for r in records], name


@pytest.mark.parametrize("options", [{"ranks": "1", "suits": "2"}, {"ranks": "2", "suits": "1"},
                                     {"ranks": "3", "suits": "1", "players": "3"}])
def test_a_deck_of_one_card_a_player_plays(options):
    """1.4: each player needs only one card; a tie with nothing left to add ends in a draw (2.3)."""
    for variant in ("classic", "steal", "arneson"):
        if variant == "arneson" and options.get("players"):
            continue
        rules = build_rules(variant, {**options, "jokers": "0"} if variant == "steal" else options)
        events, summary, deal = play_game(rules, 3)
        assert all(len(pile) == 1 for pile in deal.piles)
        assert summary.outcome in ("win", "draw") and summary.battles == 1
