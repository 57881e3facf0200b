"""Policies of Steal War and Arneson's War (docs/decisions.md 11-19, pipeline/policies.py).

1. the registry and the parsing of a seat's policy (profiles, `kind:name`, bare names, parameters,
   one-line errors);
2. each policy's choice on hand-made views;
3. no policy can see hidden information: every view handed to a policy in real games is a frozen
   record of plain ints and tuples, exactly recomputable from what that player may see; and two
   games that differ only in hidden cards give the same view;
4. randomized policies draw from their own generator (ruling 19);
5. `war generate --tournament`;
6. validation of logged decisions (legal but different, illegal, policies changed in the manifest).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import pipeline.engines.game as game_module
from pipeline.model.cards import Deck
from pipeline.cli import app, main
from pipeline.storage.dataset import MANIFEST, Dataset
from pipeline.model.deal import check_deal, shuffled_deal
from pipeline.engines.event import CheckingRecorder, Recorder
from pipeline.errors import LogMismatch, RulesError
from pipeline.engines.game import (NoChooser, chooser_for, play_game, policy_specs, replay_log, resolve_policies)
from pipeline.jobs.generate import Plan, generate
from pipeline.engines.policies import (DEFAULTS, KINDS, PROFILES, HandView, PolicyChooser, StealView, TopView, hand_highest, hand_lowest, hand_random, hand_save_high, parse_policy, parse_seating, seat_policies, steal_always, steal_never, steal_random, steal_threshold, top_as_played, top_highest, top_protect, top_random)
from pipeline.model.rng import SplitMix64, Xoshiro256, game_seed, policy_seed
from pipeline.model.rules import build_rules
from pipeline.engines.steal.reference import rank_copies
from pipeline.storage.files import sha256_file
from pipeline.jobs.validate import validate
from rulekit import file_events, rewrite_game_events

STEAL_KINDS = ("steal", "top")
HAND_KINDS = ("hand",)
STEAL_DECK = Deck(13, 4, 2)   # Steal War's default deck: 52 cards and 2 Jokers
COPIES = rank_copies(STEAL_DECK.rank)


def card(rank: int, suit: int = 0) -> int:
    """A standard deck's code: rank index (0 = 2 .. 12 = A, 13 = Joker) x 4 + suit."""
    return 4 * rank + suit


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def ok(*args):
    result = invoke(*args)
    assert result.exit_code == 0, f"war {' '.join(map(str, args))} -> {result.exit_code}\n" \
                                  f"stdout: {result.stdout}\nstderr: {result.stderr}"
    return result


def run_main(monkeypatch, capsys, *args) -> tuple[int, str, str]:
    """`war ARGS` through pipeline.cli.main (the one-line error boundary)."""
    monkeypatch.setattr(sys, "argv", ["war", *map(str, args)])
    capsys.readouterr()
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, err: str, mentions: str) -> None:
    assert code == 2, err
    lines = err.strip("\n").splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    assert "Traceback" not in err
    assert mentions.lower() in lines[0].lower(), lines[0]


def rules_error(text: str, kinds=STEAL_KINDS) -> str:
    with pytest.raises(RulesError) as info:
        parse_policy(text, kinds)
    message = str(info.value)
    assert "\n" not in message and message, message
    return message


# =============================================================================================
# 1. Registry and parsing
# =============================================================================================

def test_war_policies_lists_every_kind_and_policy():
    out = ok("policies").stdout
    lines = out.splitlines()
    for kind, names in KINDS.items():
        line = next((ln for ln in lines if ln.startswith(f"{kind}: ") and "(default" in ln), None)
        assert line is not None, out
        for name in names:
            assert name in line, (name, line)
        assert f"(default {DEFAULTS[kind]})" in line
    assert "threshold:N" in out  # the parameter is shown
    profiles = next(ln for ln in lines if ln.startswith("profiles:"))
    for name in PROFILES:
        assert name in profiles
    assert "steal: decides steal, top" in out
    assert "arneson: decides hand" in out
    assert "classic" not in out  # a variant without decisions is not listed


@pytest.mark.parametrize("text,kinds,spec", [
    ("greedy", STEAL_KINDS, "steal:always,top:highest"),
    ("cautious", STEAL_KINDS, "steal:never,top:protect"),
    ("random", STEAL_KINDS, "steal:random,top:random"),
    ("default", STEAL_KINDS, "steal:always,top:as_played"),
    ("greedy", HAND_KINDS, "hand:highest"),
    ("cautious", HAND_KINDS, "hand:save_high"),
    ("random", HAND_KINDS, "hand:random"),
    ("default", HAND_KINDS, "hand:random"),
    ("  greedy  ", STEAL_KINDS, "steal:always,top:highest"),
])
def test_profiles(text, kinds, spec):
    assert parse_policy(text, kinds).spec == spec


@pytest.mark.parametrize("text,kinds,spec", [
    ("steal:never", STEAL_KINDS, "steal:never,top:as_played"),          # kinds left out: default
    ("top:protect", STEAL_KINDS, "steal:always,top:protect"),
    ("top:protect,steal:never", STEAL_KINDS, "steal:never,top:protect"),  # canonical kind order
    ("hand:lowest", HAND_KINDS, "hand:lowest"),
    ("highest", HAND_KINDS, "hand:highest"),        # bare name owned by one kind
    ("save_high", HAND_KINDS, "hand:save_high"),
    ("highest", STEAL_KINDS, "steal:always,top:highest"),
    ("never", STEAL_KINDS, "steal:never,top:as_played"),
    ("protect, always", STEAL_KINDS, "steal:always,top:protect"),
    ("threshold:4", STEAL_KINDS, "steal:threshold:4,top:as_played"),
    ("steal:threshold:4", STEAL_KINDS, "steal:threshold:4,top:as_played"),
    ("steal:threshold:04,top:random", STEAL_KINDS, "steal:threshold:4,top:random"),
    ("steal:threshold:0", STEAL_KINDS, "steal:threshold:0,top:as_played"),
])
def test_kind_name_and_bare_names(text, kinds, spec):
    policy = parse_policy(text, kinds)
    assert policy.spec == spec
    # the canonical spec parses to itself
    assert parse_policy(policy.spec, kinds) == policy


def test_randomized_flag_and_functions():
    assert parse_policy("random", STEAL_KINDS).randomized
    assert parse_policy("top:random", STEAL_KINDS).randomized
    assert parse_policy("default", HAND_KINDS).randomized        # hand:random is the default
    assert not parse_policy("greedy", STEAL_KINDS).randomized
    assert not parse_policy("threshold:3", STEAL_KINDS).randomized
    fns = parse_policy("steal:threshold:4,top:protect", STEAL_KINDS).functions()
    assert set(fns) == set(STEAL_KINDS) and fns["top"] is top_protect
    view = StealView(0, card(5), 5, ((1, 3), (2, 4)), 10, False)
    assert fns["steal"](view, None) == (2,)


@pytest.mark.parametrize("text,kinds,mentions", [
    ("bogus", STEAL_KINDS, "'bogus'"),                              # unknown policy / profile
    ("steal:bogus", STEAL_KINDS, "unknown steal policy 'bogus'"),
    ("hand:bogus", HAND_KINDS, "unknown hand policy"),
    ("foo:bar", STEAL_KINDS, "'foo:bar'"),                          # unknown kind
    ("hand:highest", STEAL_KINDS, "no decision 'hand'"),            # kind of another variant
    ("steal:always", HAND_KINDS, "no decision 'steal'"),
    ("steal:threshold", STEAL_KINDS, "needs a pile size"),          # missing parameter
    ("threshold", STEAL_KINDS, "needs a pile size"),
    ("steal:threshold:x", STEAL_KINDS, "needs a pile size"),
    ("steal:threshold:-1", STEAL_KINDS, "needs a pile size"),
    ("steal:always:3", STEAL_KINDS, "takes no parameter"),          # extra parameter
    ("top:random:2", STEAL_KINDS, "takes no parameter"),
    ("hand:highest:1", HAND_KINDS, "takes no parameter"),
    ("steal:always,steal:never", STEAL_KINDS, "steal given twice"),  # a kind twice
    ("always,never", STEAL_KINDS, "steal given twice"),
    ("highest,lowest", HAND_KINDS, "hand given twice"),
    ("random,top:protect", STEAL_KINDS, "'random'"),               # bare name of two kinds
    ("steal:", STEAL_KINDS, "names no policy"),
    ("", STEAL_KINDS, "policy"),
])
def test_parse_errors_are_one_line(text, kinds, mentions):
    assert mentions in rules_error(text, kinds)


def test_no_decisions_variant_takes_no_policy():
    message = rules_error("greedy", ())
    assert "no decisions" in message
    classic = build_rules("classic")
    with pytest.raises(RulesError, match="no decisions") as info:
        resolve_policies(classic, ("greedy", "greedy"))
    assert "\n" not in str(info.value)
    assert resolve_policies(classic) == () and policy_specs(classic) == ()
    assert isinstance(chooser_for(classic, (), 1), NoChooser)
    with pytest.raises(RulesError, match="no decisions"):
        policy_specs(classic, {0: "greedy"})
    with pytest.raises(RulesError, match="no decisions"):
        Plan(classic, 3, policies=("greedy", "greedy"))


def test_seat_policies_and_seat_out_of_range():
    specs = [p.spec for p in seat_policies({1: "cautious", -1: "greedy"}, 3, STEAL_KINDS)]
    assert specs == ["steal:always,top:highest", "steal:never,top:protect", "steal:always,top:highest"]
    assert [p.spec for p in seat_policies({}, 2, HAND_KINDS)] == ["hand:random", "hand:random"]
    for seat in (2, 5, -2):
        with pytest.raises(RulesError, match="seats are 0..1") as info:
            seat_policies({seat: "greedy"}, 2, STEAL_KINDS)
        assert "\n" not in str(info.value)
    # the failing seat is named
    with pytest.raises(RulesError, match="policy of seat 1"):
        seat_policies({1: "bogus"}, 2, STEAL_KINDS)


def test_resolve_policies_and_plan_keep_canonical_specs():
    steal = build_rules("steal")
    assert policy_specs(steal) == ("steal:always,top:as_played",) * 2
    assert policy_specs(steal, ("greedy", "threshold:3")) == ("steal:always,top:highest",
                                                              "steal:threshold:3,top:as_played")
    plan = Plan(build_rules("arneson"), 5, policies=("highest", "cautious"))
    assert plan.policies == ("hand:highest", "hand:save_high")
    with pytest.raises(RulesError, match="policy of seat 1"):
        resolve_policies(steal, ("greedy", "hand:highest"))


@pytest.mark.parametrize("args,mentions", [
    (["-v", "steal", "--policy", "5=greedy"], "seat 5"),
    (["-v", "steal", "--policy", "0=bogus"], "bogus"),
    (["-v", "steal", "--policy", "0=steal:threshold"], "needs a pile size"),
    (["-v", "steal", "--policy", "0=greedy", "--policy", "0=cautious"], "twice"),
    (["-v", "steal", "--policy", "greedy"], "SEAT=POLICY"),
    (["-v", "classic", "--policy", "0=greedy"], "no decisions"),
    (["-v", "arneson", "--policy", "0=steal:always"], "no decision 'steal'"),
])
def test_cli_policy_errors(monkeypatch, capsys, tmp_path, args, mentions):
    out = tmp_path / "ds"
    code, _, err = run_main(monkeypatch, capsys, "generate", *args, "-n", 3, "--out", out, "-q")
    assert_one_line_error(code, err, mentions)
    assert not out.exists()


def test_cli_policy_star_and_seats(tmp_path):
    out = tmp_path / "ds"
    ok("generate", "-v", "steal", "-n", 4, "--policy", "*=cautious", "--policy", "1=threshold:2",
       "--out", out, "-q")
    entry = json.loads((out / MANIFEST).read_text())["rule_sets"][0]
    assert entry["policies"] == ["steal:never,top:protect", "steal:threshold:2,top:as_played"]


def test_cli_policy_two_seats_of_three_players(tmp_path):
    rules = build_rules("steal", {"players": 3})
    seating = parse_seating(["0=greedy", "1=cautious"])
    assert policy_specs(rules, seating) == ("steal:always,top:highest", "steal:never,top:protect",
                                          "steal:always,top:as_played")


# =============================================================================================
# 2. Each policy on hand-made views
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
# 3. No policy reads hidden information
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
    family_of(rules).play(rules, deal, RandomChance(Xoshiro256(seed)), rec, Tap())
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


# =============================================================================================
# 4. Randomized policies use their own generator
# =============================================================================================

def test_policy_seed_follows_ruling_19():
    for seed in (0, 1, 42, 2**64 - 1, 0x5EA75EA75EA75EA7):
        sm = SplitMix64(seed ^ 0x5EA75EA75EA75EA7)
        outputs = [sm.next() for _ in range(8)]
        seeds = [policy_seed(seed, seat) for seat in range(8)]
        assert seeds == outputs
        assert len(set(seeds)) == 8 and seed not in seeds


def test_policy_chooser_seeds_each_seat_apart():
    rules = build_rules("steal", {"players": 3})
    chooser = chooser_for(rules, ("random",) * 3, 1234)
    assert isinstance(chooser, PolicyChooser) and chooser.randomized
    state = lambda g: (g.s0, g.s1, g.s2, g.s3)  # noqa: E731
    for seat, rng in enumerate(chooser.rngs):
        assert state(rng) == state(Xoshiro256(policy_seed(1234, seat)))
    assert len({state(r) for r in chooser.rngs} | {state(Xoshiro256(1234))}) == 4
    assert not chooser_for(rules, ("greedy", "cautious", "threshold:1"), 1).randomized


def deal_events(events):
    return [ev for ev in events if ev.battle == 0 and ev.kind in ("deal", "set_aside")]


@pytest.mark.parametrize("variant,policy_sets", [
    ("steal", [("random", "random"), ("random", "always"), ("greedy", "cautious"), ()]),
    ("arneson", [("random", "random"), ("highest", "lowest"), ("save_high", "random"), ()]),
])
def test_deal_is_the_same_whatever_the_policies(variant, policy_sets):
    rules = build_rules(variant)
    for seed in range(12):
        expected = shuffled_deal(rules, Xoshiro256(seed))
        for policies in policy_sets:
            events = play_game(rules, seed, policies=policies)[0]
            deals = deal_events(events)
            assert [ev.cards for ev in deals if ev.kind == "deal"] == [tuple(p) for p in expected.piles]


def first_difference(a, b):
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)


@pytest.mark.parametrize("variant,base,changed,seat", [
    ("steal", ("random", "random"), ("random", "always"), 1),
    ("steal", ("random", "random"), ("cautious", "random"), 0),
    ("arneson", ("random", "random"), ("random", "highest"), 1),
    ("arneson", ("random", "random"), ("lowest", "random"), 0),
])
def test_changing_one_seats_policy_changes_nothing_before_its_own_choice(variant, base, changed, seat):
    """Changing one seat's policy leaves the game as it was (deal, reshuffles, pickups and the other
    seat's random choices) up to the first decision of that seat that comes out differently."""
    rules = build_rules(variant)
    diverged = other_random_after_same = 0
    for s in range(30):
        a = play_game(rules, s, policies=base)[0]
        b = play_game(rules, s, policies=changed)[0]
        i = first_difference(a, b)
        if i is None:
            assert len(a) == len(b)
            continue
        diverged += 1
        assert a[i].kind == b[i].kind == "decision", (s, a[i], b[i])
        assert a[i].seat == b[i].seat == seat, (s, a[i], b[i])
        assert a[i].options == b[i].options and a[i].note == b[i].note   # same options, another choice
        # teeth: the changed seat decided the same way before, and the other seat's random
        # policy drew again afterwards, with no effect
        same = [k for k in range(i) if a[k].kind == "decision" and a[k].seat == seat]
        if same and any(a[k].kind == "decision" and a[k].seat != seat and len(a[k].options) > 1
                        for k in range(same[0], i)):
            other_random_after_same += 1
    assert diverged >= 5
    assert other_random_after_same >= 3


def test_replay_log_reads_decisions_from_the_log():
    for variant, policies in (("steal", ("random", "threshold:2")), ("arneson", ("random", "save_high"))):
        rules = build_rules(variant)
        for seed in range(5):
            events, summary, _ = play_game(rules, seed, policies=policies)
            assert replay_log(rules, events, policies=policies) == summary
            rec = CheckingRecorder(events)
            replay_log(rules, events, rec, policies=policies)
            assert rec.events == events


def test_log_chooser_refuses_changed_options():
    rules = build_rules("arneson")
    events = play_game(rules, 3, policies=("highest", "lowest"))[0]
    i = next(k for k, ev in enumerate(events) if ev.kind == "decision")
    bad = list(events)
    bad[i] = bad[i]._replace(options=bad[i].options[:-1])
    with pytest.raises(LogMismatch) as info:
        replay_log(rules, bad)
    assert info.value.seq == i and "options" in str(info.value)


# =============================================================================================
# 5. Tournaments
# =============================================================================================

@pytest.fixture(scope="module")
def tournament(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tournament") / "D"
    ok("generate", "-v", "steal", "-n", 30, "--tournament", "always", "--tournament", "never",
       "--tournament", "threshold:5", "--out", out, "-q")
    return out


def games_rows(root: Path) -> list[dict]:
    rows = []
    for f in Dataset.open(root).files("games"):
        rows.extend(pq.read_table(root / f.path).to_pylist())
    return rows


def test_tournament_plays_every_ordered_pair_on_the_same_seeds(tournament):
    manifest = json.loads((tournament / MANIFEST).read_text())
    entries = manifest["rule_sets"]
    assert len(entries) == 6
    specs = {"always": "steal:always,top:as_played", "never": "steal:never,top:as_played",
             "threshold:5": "steal:threshold:5,top:as_played"}
    pairs = [tuple(e["policies"]) for e in entries]
    assert sorted(pairs) == sorted((specs[a], specs[b]) for a in specs for b in specs if a != b)
    assert len({e["rules_id"] for e in entries}) == 1
    assert all(e["games"] == 30 and e["seed"] == manifest["master_seed"] for e in entries)
    rows = games_rows(tournament)
    assert len(rows) == 6 * 30
    seeds: dict[int, dict[int, int]] = {}
    by_ordinal = {e["ordinal"]: e for e in entries}
    for row in rows:
        ordinal = row["game_id"] // 1_000_000_000
        assert row["policies"] == by_ordinal[ordinal]["policies"]   # canonical, per seat
        seeds.setdefault(ordinal, {})[row["game_index"]] = row["game_seed"]
    expected = {i: game_seed(manifest["master_seed"], i) for i in range(30)}
    assert all(s == expected for s in seeds.values())


def test_tournament_validates_and_games_differ_by_policy(tournament):
    report = validate(tournament)
    assert report.ok and report.good == 180, report.problems[:3]
    rows = games_rows(tournament)
    battles = {}
    for r in rows:
        battles.setdefault(tuple(r["policies"]), []).append(r["battles"])
    assert len({tuple(v) for v in battles.values()}) > 1  # the policies matter


@pytest.mark.parametrize("args,mentions", [
    (["-v", "steal", "--tournament", "always"], "at least two"),
    (["-v", "steal", "--tournament", "always", "--tournament", "always"], "at least two"),
    (["-v", "steal", "--set", "players=3", "--tournament", "always", "--tournament", "never"],
     "2 players"),
    (["-v", "steal", "--policy", "0=always", "--tournament", "always", "--tournament", "never"],
     "not both"),
    (["-v", "classic", "--tournament", "always", "--tournament", "never"], "no decisions"),
    (["-v", "steal", "--tournament", "always", "--tournament", "bogus"], "bogus"),
])
def test_tournament_errors(monkeypatch, capsys, tmp_path, args, mentions):
    out = tmp_path / "ds"
    code, _, err = run_main(monkeypatch, capsys, "generate", *args, "-n", 3, "--out", out, "-q")
    assert_one_line_error(code, err, mentions)
    assert not out.exists()


def test_tournament_arneson(tmp_path):
    out = tmp_path / "ds"
    ok("generate", "-v", "arneson", "-n", 5, "-t", "greedy", "-t", "cautious", "--out", out, "-q")
    entries = json.loads((out / MANIFEST).read_text())["rule_sets"]
    assert [e["policies"] for e in entries] == [["hand:highest", "hand:save_high"],
                                                ["hand:save_high", "hand:highest"]]


def test_tournament_same_policy_spelled_twice(monkeypatch, capsys, tmp_path):
    out = tmp_path / "ds"
    code, _, err = run_main(monkeypatch, capsys, "generate", "-v", "steal", "-n", 3,
                            "-t", "always", "-t", "steal:always", "--out", out, "-q")
    assert_one_line_error(code, err, "two different")


# =============================================================================================
# 6. Validation of logged decisions
# =============================================================================================

STEAL_GAMES, ARNESON_GAMES = 30, 20


@pytest.fixture(scope="module")
def steal_ds(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("decisions") / "steal"
    generate(out, [Plan(build_rules("steal"), STEAL_GAMES, policies=("random", "threshold:3"))],
             seed=9, shard_size=10)
    return out


@pytest.fixture(scope="module")
def arneson_ds(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("decisions") / "arneson"
    generate(out, [Plan(build_rules("arneson"), ARNESON_GAMES, policies=("random", "save_high"))],
             seed=9, shard_size=10)
    return out


def copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst


def all_events(root: Path) -> list[tuple[str, dict]]:
    return [(f.path, e) for f in Dataset.open(root).files("events") for e in file_events(root / f.path)]


def find_event(root: Path, test) -> tuple[str, dict]:
    """The first event row (in game order) for which test(row) holds, and its file."""
    for rel, row in all_events(root):
        if test(row):
            return rel, row
    raise AssertionError("no such event in the dataset")


def tamper(root: Path, rel: str, gid: int, seq: int, **changes) -> None:
    """Rewrite one events file with one event changed, and fix up the manifest so that only
    the game-level checks can see it."""
    path = root / rel
    rewrite_game_events(path, gid, lambda events: [{**e, **changes} if e["seq"] == seq else e for e in events])
    data = json.loads((root / MANIFEST).read_text())
    for f in data["files"]:
        if f["path"] == rel:
            f["sha256"] = sha256_file(path)
            f["rows"] = pq.ParquetFile(path).metadata.num_rows
    (root / MANIFEST).write_text(json.dumps(data, indent=2))


def only_game(report, gid):
    assert not report.ok
    assert report.bad == 1, [str(p) for p in report.problems]
    assert [p.game_id for p in report.problems] == [gid], [str(p) for p in report.problems]
    return report.problems[0]


def test_decision_datasets_are_clean(steal_ds, arneson_ds):
    for root, n in ((steal_ds, STEAL_GAMES), (arneson_ds, ARNESON_GAMES)):
        report = validate(root)
        assert report.ok and report.good == n, [str(p) for p in report.problems[:3]]
        entry = Dataset.open(root).rule_set(0)
        for row in games_rows(root):
            assert row["policies"] == entry.policies
    assert Dataset.open(steal_ds).rule_set(0).policies == ["steal:random,top:random",
                                                           "steal:threshold:3,top:as_played"]
    assert Dataset.open(arneson_ds).rule_set(0).policies == ["hand:random", "hand:save_high"]
    notes = {(r["kind"], r["note"]) for _, r in all_events(steal_ds)}
    assert {("decision", "steal"), ("decision", "top"), ("steal", None)} <= notes


@pytest.mark.parametrize("seat", [0, 1])
def test_steal_flipped_to_not_stealing(steal_ds, tmp_path, seat):
    """A steal decision that took piles, changed to taking none (the `steal` event left): a legal
    choice, but not this game's; the game is reported at the decision or the event after it."""
    root = copy(steal_ds, tmp_path)
    rel, row = find_event(root, lambda r: r["kind"] == "decision" and r["note"] == "steal"
                          and r["seats"] and r["seat"] == seat)
    tamper(root, rel, row["game_id"], row["seq"], seats=[])
    problem = only_game(validate(root), row["game_id"])
    assert problem.seq in (row["seq"], row["seq"] + 1), str(problem)
    assert problem.file == rel


def test_steal_of_a_seat_not_among_the_options(steal_ds, tmp_path):
    root = copy(steal_ds, tmp_path)
    rel, row = find_event(root, lambda r: r["kind"] == "decision" and r["note"] == "steal")
    tamper(root, rel, row["game_id"], row["seq"], seats=[row["seat"]])  # its own pile
    problem = only_game(validate(root), row["game_id"])
    assert problem.seq == row["seq"], str(problem)
    assert "breaks the rules" in problem.message
    assert str(list(row["options"])) in problem.message, str(problem)


def test_top_changed_to_another_table_card(steal_ds, tmp_path):
    root = copy(steal_ds, tmp_path)
    rel, row = find_event(root, lambda r: r["kind"] == "decision" and r["note"] == "top")
    other = next(c for c in row["options"] if c != row["cards"][0])
    tamper(root, rel, row["game_id"], row["seq"], cards=[other])
    problem = only_game(validate(root), row["game_id"])
    assert row["seq"] <= problem.seq <= row["seq"] + 1, str(problem)


def test_top_card_not_on_the_table(steal_ds, tmp_path):
    root = copy(steal_ds, tmp_path)
    rel, row = find_event(root, lambda r: r["kind"] == "decision" and r["note"] == "top")
    alien = next(c for c in range(54) if c not in row["options"])
    tamper(root, rel, row["game_id"], row["seq"], cards=[alien])
    problem = only_game(validate(root), row["game_id"])
    assert problem.seq == row["seq"], str(problem)
    assert str(list(row["options"])) in problem.message, str(problem)


@pytest.mark.parametrize("seat", [0, 1])
def test_hand_card_changed_to_another_card_of_the_hand(arneson_ds, tmp_path, seat):
    root = copy(arneson_ds, tmp_path)
    rel, row = find_event(root, lambda r: r["kind"] == "decision" and r["note"] == "hand"
                          and r["seat"] == seat and len(r["options"]) >= 2 and r["battle"] >= 3)
    other = next(c for c in row["options"] if c != row["cards"][0])
    tamper(root, rel, row["game_id"], row["seq"], cards=[other])
    problem = only_game(validate(root), row["game_id"])
    assert row["seq"] <= problem.seq <= row["seq"] + 3, str(problem)
    assert problem.file == rel


def test_hand_card_not_in_the_hand(arneson_ds, tmp_path):
    root = copy(arneson_ds, tmp_path)
    rel, row = find_event(root, lambda r: r["kind"] == "decision" and r["note"] == "hand"
                          and r["battle"] >= 3)
    alien = next(c for c in range(52) if c not in row["options"])
    tamper(root, rel, row["game_id"], row["seq"], cards=[alien])
    problem = only_game(validate(root), row["game_id"])
    assert problem.seq == row["seq"], str(problem)
    assert "breaks the rules" in problem.message
    assert str(list(row["options"])) in problem.message, str(problem)


@pytest.mark.parametrize("which,policies", [
    ("steal", ["steal:never,top:as_played", "steal:threshold:3,top:as_played"]),
    ("steal", ["steal:threshold:3,top:as_played", "steal:random,top:random"]),
    ("arneson", ["hand:save_high", "hand:random"]),
    ("arneson", ["hand:random", "hand:highest"]),
])
def test_policies_changed_in_the_manifest(request, tmp_path, which, policies):
    """The manifest's policies of the rule set changed (the games' policies column left): every
    game is bad, whether it regenerates differently or only its record disagrees."""
    root = copy(request.getfixturevalue(f"{which}_ds"), tmp_path)
    data = json.loads((root / MANIFEST).read_text())
    data["rule_sets"][0]["policies"] = policies
    (root / MANIFEST).write_text(json.dumps(data, indent=2))
    n = STEAL_GAMES if which == "steal" else ARNESON_GAMES
    report = validate(root)
    assert report.bad == n and report.good == 0
    assert sorted(p.game_id for p in report.problems) == list(range(n))
