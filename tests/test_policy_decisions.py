"""The decisions of Steal War's and Arneson's War's policies in games (docs/decisions.md rulings
12-19, rules 6.8 and 7.5): randomized policies draw from their own generator, one a seat, seeded
as ruling 19 says, so the deal is the same whatever the policies and changing one seat's policy
changes nothing before that seat's own choice; replay reads every decision from the log and
refuses one with other options; and validation of logged decisions catches a decision changed to
another legal choice or to one the player did not have, and policies changed in the manifest.
The datasets are tampered with the helpers of tests/validatekit.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.storage.dataset import MANIFEST, Dataset
from pipeline.model.deal import shuffled_deal
from pipeline.engines.event import CheckingRecorder
from pipeline.errors import LogMismatch
from pipeline.engines.game import chooser_for, play_game, replay_log
from pipeline.jobs.generate import Plan, generate
from pipeline.engines.policies import PolicyChooser
from pipeline.model.rng import SplitMix64, Xoshiro256, policy_seed
from pipeline.model.rules import build_rules
from pipeline.jobs.validate import validate
from rulekit import file_events, games_rows, rewrite_game_events
from validatekit import copy, fix_manifest


# =============================================================================================
# 1. Randomized policies use their own generator
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
# 2. Validation of logged decisions
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
    rewrite_game_events(root / rel, gid, lambda events: [{**e, **changes} if e["seq"] == seq else e for e in events])
    fix_manifest(root, rel)


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
