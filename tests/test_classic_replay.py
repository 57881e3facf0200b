"""Replaying Classic War from its log (rules 2): each of the 25 hand-built games of Classic
War's rule tests (the deals in tests/rulekit.py, under every pickup, shortfall, tie-break, cap and
win option those tests use) is rebuilt from its log alone to an equal summary, and a log with any
one card of any one event changed (deal, play, down, collect, reshuffle, forfeit, set_aside)
breaks the rules: `LogMismatch`.
"""

from __future__ import annotations

import pytest

from pipeline.errors import LogMismatch
from pipeline.engines.game import play_game, replay_log
from rulekit import (ALL_OUT, ALL_OUT4, BATTLE, CYCLE, DOUBLE, ELIM3, LOSE3, LOW_TIE, NO_CARD3, NOT_TIED, ONE_LEFT,
                     ORDER, POOLED, POOLED_WAR, SHORT1, SHORT3, SINGLE, THREE_WAY, WAR1, WARS2, classic_rules, deal)


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
    rule_set = classic_rules(**options)
    events, summary, _ = play_game(rule_set, seed, deal(rule_set, *piles))
    assert replay_log(rule_set, events) == summary


@pytest.mark.parametrize("options, piles, seed", [g[1:] for g in GAMES], ids=[g[0] for g in GAMES])
def test_replay_log_raises_log_mismatch_when_one_card_of_one_event_changes(options, piles, seed):
    """Changing any single card of any single event (deal, play, down, collect, reshuffle,
    forfeit, set_aside) makes the log disagree with the rules: LogMismatch."""
    rule_set = classic_rules(**options)
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
