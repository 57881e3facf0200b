"""What each policy of Steal War and Arneson's War chooses, and what it may see (docs/decisions.md
rulings 12, 14, 15 and 19; rules 6.2, 6.3 and 7.2): steal `always`, `never`, `threshold:N` and
`random`, top card `as_played`, `highest`, `protect` and `random`, hand card `highest`, `lowest`,
`save_high` and `random`, on hand-made views; and no policy reads hidden information: every view
handed to a policy in real games is a frozen record of plain ints and tuples, exactly what is
recomputed from what that player may see, and two games that differ only in hidden cards give
the same view.
"""

from __future__ import annotations

import dataclasses
import sys

import pytest

import pipeline.engines.game as game_module
from pipeline.model.cards import Deck
from pipeline.model.deal import check_deal
from pipeline.engines.event import Recorder
from pipeline.engines.game import chooser_for, play_game
from pipeline.engines.arneson.policies import HandView, hand_highest, hand_lowest, hand_random, hand_save_high
from pipeline.engines.steal.policies import (StealView, TopView, steal_always, steal_never, steal_random,
                                             steal_threshold, top_as_played, top_highest, top_protect, top_random)
from pipeline.model.rng import Xoshiro256
from pipeline.model.rules import build_rules
from pipeline.engines.steal.reference import rank_copies
from rulekit import card

STEAL_DECK = Deck(13, 4, 2)   # Steal War's default deck: 52 cards and 2 Jokers
COPIES = rank_copies(STEAL_DECK.rank)


# =============================================================================================
# 1. Each policy on hand-made views
# =============================================================================================

def steal_view(eligible, seat=0, rank=5, in_war=False):
    return StealView(seat, card(rank), rank, tuple(eligible), 12, in_war)


def test_steal_always_never_threshold():
    view = steal_view([(1, 1), (2, 5), (3, 3)])
    assert steal_always(view, None) == (1, 2, 3)
    assert steal_never(view, None) == ()
    assert steal_threshold(3)(view, None) == (2, 3)
    assert steal_threshold(5)(view, None) == (2,)
    assert steal_threshold(6)(view, None) == ()
    assert steal_threshold(0)(view, None) == (1, 2, 3)
    # seat order from the seat after the stealer's is kept (here seat 2 of 4 steals 3, 0, 1)
    view = steal_view([(3, 2), (0, 7), (1, 4)], seat=2)
    assert steal_always(view, None) == (3, 0, 1)
    assert steal_threshold(4)(view, None) == (0, 1)
    assert steal_always(steal_view([]), None) == ()


def test_steal_random_is_a_fair_subset_from_the_generator():
    view = steal_view([(1, 4), (2, 4)])
    rng = Xoshiro256(7)
    picks = [steal_random(view, rng) for _ in range(4000)]
    assert set(picks) == {(), (1,), (2,), (1, 2)}  # every subset, in seat order
    for seat in (1, 2):
        share = sum(seat in p for p in picks) / len(picks)
        assert 0.45 < share < 0.55, share
    # the same generator state gives the same choices
    again = Xoshiro256(7)
    assert [steal_random(view, again) for _ in range(4000)] == picks


def top_view(cards, seat=0):
    return TopView(seat, tuple(cards), tuple(STEAL_DECK.rank[c] for c in cards), COPIES, (None, None))


def test_top_as_played_and_highest():
    view = top_view([card(3, 1), card(9, 0), card(2, 2), card(9, 3)])
    assert top_as_played(view, None) == card(3, 1)
    assert top_highest(view, None) == card(9, 0)  # ties: first in table order
    jokers = top_view([card(12, 0), 52])
    assert top_highest(jokers, None) == 52


@pytest.mark.parametrize("cards,expected", [
    # 5s: 4 copies - 2 in the bundle = 2 left; the 9: 3 left -> a 5, the first in table order
    ([card(3, 0), card(3, 1), card(7, 0)], card(3, 0)),
    ([card(7, 0), card(3, 2), card(3, 1)], card(3, 2)),
    # one of each: every rank has 3 left -> the higher rank
    ([card(2, 0), card(9, 0), card(4, 0)], card(9, 0)),
    # a Joker (2 copies, 1 left) beats an Ace (3 left)
    ([card(12, 0), 53], 53),
    # three 4s (1 left) beat a pair of Kings (2 left) and an Ace (3 left)
    ([card(12, 0), card(11, 0), card(2, 1), card(11, 1), card(2, 0), card(2, 3)], card(2, 1)),
    # fewest left ties between the 7 pair and the 3 pair (2 left each): the higher rank, then order
    ([card(1, 0), card(5, 2), card(1, 1), card(5, 0)], card(5, 2)),
    # all of a rank in the bundle: 0 left
    ([card(11, 0), card(0, 0), card(0, 1), card(0, 2), card(0, 3)], card(0, 0)),
])
def test_top_protect(cards, expected):
    assert top_protect(top_view(cards), None) == expected


def test_top_random_uses_the_generator():
    view = top_view([card(1), card(2), card(3)])
    rng = Xoshiro256(3)
    picks = [top_random(view, rng) for _ in range(3000)]
    assert set(picks) == set(view.cards)
    assert all(700 < picks.count(c) < 1300 for c in view.cards)


def hand_view(hand, in_war=False, tied_rank=None):
    hand = tuple(sorted(hand))
    return HandView(0, hand, tuple(c // 4 for c in hand), in_war, tied_rank, 20, 20, 3)


@pytest.mark.parametrize("hand,highest,lowest", [
    ([card(2, 1), card(10, 0), card(7, 3)], card(10, 0), card(2, 1)),
    ([card(4, 0), card(4, 2), card(1, 3)], card(4, 0), card(1, 3)),   # ties: first in the hand
    ([card(6, 1), card(6, 2), card(9, 0)], card(9, 0), card(6, 1)),
    ([card(8, 0)], card(8, 0), card(8, 0)),
])
def test_hand_highest_lowest_save_high(hand, highest, lowest):
    battle, war = hand_view(hand), hand_view(hand, True, 5)
    assert hand_highest(battle, None) == highest
    assert hand_lowest(battle, None) == lowest
    assert hand_save_high(battle, None) == lowest   # keep high cards for wars
    assert hand_save_high(war, None) == highest     # a war's fourth card: the highest


def test_hand_random_is_uniform_over_the_hand():
    view = hand_view([card(1), card(5), card(9)])
    rng = Xoshiro256(11)
    picks = [hand_random(view, rng) for _ in range(3000)]
    assert set(picks) == set(view.hand)
    assert all(800 < picks.count(c) < 1200 for c in view.hand)


# =============================================================================================
# 2. No policy reads hidden information
# =============================================================================================

PLAIN = (int, bool, type(None))


def assert_plain(value, path="view") -> None:
    """Only ints, bools, None and tuples of them: no list, deque, dict or object of the game."""
    if isinstance(value, tuple):
        assert type(value) is tuple, path
        for i, item in enumerate(value):
            assert_plain(item, f"{path}[{i}]")
    else:
        assert type(value) in PLAIN, f"{path} is a {type(value).__name__}: {value!r}"


def assert_sealed(view, state_objects) -> None:
    assert dataclasses.is_dataclass(view)
    assert type(view).__dataclass_params__.frozen
    assert not hasattr(view, "__dict__") or set(vars(view)) == {f.name for f in dataclasses.fields(view)}
    for f in dataclasses.fields(view):
        value = getattr(view, f.name)
        assert_plain(value, f"{type(view).__name__}.{f.name}")
        assert all(value is not obj for obj in state_objects)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(view, dataclasses.fields(view)[0].name, 99)


def public_events(events, battle):
    return [ev for ev in events if ev.battle == battle]


class SpyChooser:
    """Wraps the real PolicyChooser. At each decision it checks, from the engine's own state (read
    from the calling engine's game object), that the view is exactly what is recomputed from visible information
    only; then lets the real policy choose."""

    def __init__(self, inner, rules, recorder) -> None:
        self.inner = inner
        self.randomized = inner.randomized
        self.rules = rules
        self.recorder = recorder
        self.rank = Deck(rules.ranks, rules.suits, rules.jokers).rank
        self.views: list[tuple[str, int, object, tuple]] = []

    def choose(self, kind, seat, view, options):
        caller = sys._getframe(1).f_locals
        game = caller["self"]  # the engine's game object: its piles, won piles, table, hands
        rank = self.rank
        n = self.rules.players
        battle = caller["battle"]
        events = public_events(self.recorder.events, battle)
        wars = sum(1 for ev in events if ev.kind == "war")
        if kind == "steal":
            draw, won = game.piles, game.won
            # visible to this seat: its looked-at card, the won piles' tops and sizes, its own count
            looked = draw[seat][0]
            tops = tuple(w[0] if w else None for w in won)
            sizes = tuple(len(w) for w in won)
            own = len(draw[seat]) + len(won[seat])
            order = [(seat + k) % n for k in range(1, n)]
            expected = StealView(seat, looked, rank[looked],
                                 tuple((o, sizes[o]) for o in order
                                       if tops[o] is not None and rank[tops[o]] == rank[looked]),
                                 own, wars > 0)
            assert options == tuple(o for o, _ in expected.eligible)
            objects = [draw, won, *draw, *won]
        elif kind == "top":
            won, table = game.won, game.table
            expected = TopView(seat, tuple(table), tuple(rank[c] for c in table), rank_copies(rank),
                               tuple(w[0] if w else None for w in won))
            assert options == tuple(table)
            objects = [won, table, game.piles, *won]
        else:
            hands, piles, won = game.hands, game.piles, game.won
            other = 1 - seat
            hand = tuple(sorted(hands[seat]))
            plays = [ev for ev in events if ev.kind == "play"]
            expected = HandView(seat, hand, tuple(rank[c] for c in hand), wars > 0,
                                rank[plays[-1].cards[0]] if wars else None,
                                len(piles[seat]) + len(won[seat]), len(piles[other]) + len(won[other]),
                                len(hands[other]))
            assert options == hand
            objects = [hands, piles, won, *hands, *piles, *won]
        assert type(view) is type(expected)
        assert view == expected, (kind, view, expected)
        assert view.seat == seat
        assert_sealed(view, objects)
        self.views.append((kind, seat, view, options))
        choice = self.inner.choose(kind, seat, view, options)
        if kind == "steal":
            assert set(choice) <= set(options)
        else:
            assert choice in options
        return choice


def spy_games(monkeypatch, rules, seeds, policies):
    """Play real games through play_game, with a SpyChooser around the real chooser; every view."""
    real = game_module.chooser_for
    views = []
    for seed in seeds:
        rec = Recorder()
        spies = []
        monkeypatch.setattr(game_module, "chooser_for",
                            lambda r, p, s: spies.append(SpyChooser(real(r, p, s), rules, rec)) or spies[-1])
        events = play_game(rules, seed, recorder=rec, policies=policies)[0]
        assert events[-1].kind == "end" and len(spies) == 1
        views.extend(spies[0].views)
        # the spy changed nothing: the plain generator plays the same game
        monkeypatch.setattr(game_module, "chooser_for", real)
        assert play_game(rules, seed, policies=policies)[0] == events
    return views


@pytest.mark.parametrize("variant,options,policies", [
    ("steal", {}, ("random", "random")),
    ("steal", {}, ("greedy", "cautious")),
    ("steal", {}, ("threshold:2", "random")),
    ("steal", {"players": 3}, ("random", "greedy", "top:random")),
    ("steal", {"players": 4, "war_down": 1}, ("random",) * 4),
])
def test_steal_views_hold_only_visible_information(monkeypatch, variant, options, policies):
    views = spy_games(monkeypatch, build_rules(variant, options), range(25), policies)
    kinds = {kind for kind, *_ in views}
    assert kinds == {"steal", "top"}
    assert any(v.in_war for kind, _, v, _ in views if kind == "steal"), "no steal in a war was seen"
    assert sum(kind == "steal" for kind, *_ in views) >= 20


@pytest.mark.parametrize("options,policies", [
    ({}, ("random", "save_high")),
    ({}, ("highest", "lowest")),
    ({"pickup": "table_order", "war_tiebreak": "single_up"}, ("random", "random")),
])
def test_arneson_views_hold_only_visible_information(monkeypatch, options, policies):
    views = spy_games(monkeypatch, build_rules("arneson", options), range(25), policies)
    assert {kind for kind, *_ in views} == {"hand"}
    assert any(v.in_war for *_, v, _ in views), "no war decision was seen"


def first_views(rules, deal, policies, seed=1):
    """Every decision (kind, seat, view, choice) of a game on an explicit deal."""
    seen = []
    real = chooser_for(rules, policies, seed)

    class Tap:
        randomized = real.randomized

        def choose(self, kind, seat, view, options):
            choice = real.choose(kind, seat, view, options)
            seen.append((kind, seat, view, choice))
            return choice

    from pipeline.engines.chance import RandomChance
    from pipeline.engines.families import family_of

    rec = Recorder()
    family_of(rules).reference()(rules, deal, RandomChance(Xoshiro256(seed)), rec, Tap())
    return seen, rec.events


def test_steal_view_ignores_the_order_of_the_opponents_draw_pile():
    """Battle 1: seat 0's K beats a 2 (seat 0 chooses the top card); battle 2: seat 1's 5 beats a 3
    (seat 1's won pile shows a 5); battle 3: seat 0 looks at a 5 and may steal. Two deals differ
    only in the order of seat 1's draw pile below the two cards it has played."""
    rules = build_rules("steal")
    head0, head1 = [card(11, 0), card(1, 0), card(3, 0)], [card(0, 1), card(3, 1)]
    rest = [c for c in range(54) if c not in head0 + head1]
    pile0 = head0 + rest[:24]
    tail1 = rest[24:]
    deal_a = check_deal(rules, [pile0, head1 + tail1])
    deal_b = check_deal(rules, [pile0, head1 + tail1[::-1]])
    assert deal_a.piles[1][2] != deal_b.piles[1][2]  # seat 1's next card differs
    policies = ("steal:always,top:as_played", "default")
    seen_a, events_a = first_views(rules, deal_a, policies)
    seen_b, events_b = first_views(rules, deal_b, policies)
    mine_a = [s for s in seen_a if s[1] == 0]
    mine_b = [s for s in seen_b if s[1] == 0]
    assert mine_a[0][0] == "top" and mine_a[0][2] == mine_b[0][2]
    steal_a = next(s for s in mine_a if s[0] == "steal")
    steal_b = next(s for s in mine_b if s[0] == "steal")
    assert steal_a[2] == steal_b[2] == StealView(0, card(3, 0), 3, ((1, 2),), 27, False)
    # every seat-0 decision up to that steal saw the same thing
    k = mine_a.index(steal_a)
    assert [s[2] for s in mine_a[:k + 1]] == [s[2] for s in mine_b[:k + 1]]


def test_hand_view_ignores_the_opponents_hand_and_pile_order():
    """Arneson: two deals that differ only in seat 1's pile order (so in seat 1's hand): seat 0's
    first view is the same; and seat 1's first view is the same whatever seat 0 chose."""
    rules = build_rules("arneson")
    pile0 = [card(r, 0) for r in range(13)] + [card(r, 1) for r in range(13)]
    pile1 = [card(r, 2) for r in range(13)] + [card(r, 3) for r in range(13)]
    deal_a = check_deal(rules, [pile0, pile1])
    deal_b = check_deal(rules, [pile0, pile1[::-1]])
    seen_a, _ = first_views(rules, deal_a, ("highest", "lowest"))
    seen_b, _ = first_views(rules, deal_b, ("highest", "lowest"))
    assert seen_a[0][:3] == seen_b[0][:3]
    assert seen_a[0][2] == HandView(0, (card(0, 0), card(1, 0), card(2, 0)), (0, 1, 2), False, None,
                                    23, 23, 3)
    assert seen_a[1][2].hand != seen_b[1][2].hand  # seat 1 really held other cards
    # seat 0's choice is hidden from seat 1: highest or lowest, seat 1's first view is the same
    seen_c, _ = first_views(rules, deal_a, ("lowest", "lowest"))
    assert seen_a[0][3] != seen_c[0][3]
    assert seen_a[1][:3] == seen_c[1][:3]
