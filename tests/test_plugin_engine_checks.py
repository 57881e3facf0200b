"""What war enforces of every family's engine, whatever the engine does (issue 52, item 3):

- a game in which a seat plays a randomized policy never ends, and is never recorded, as a cycle:
  its choices are drawn, so no position can be said to repeat (docs/plugins.md). The guide
  promised it, but war left it to the engine: Slap War's engine without its two lines that
  handle it (`forgetful`, below) had most of its games called cycles, and `war validate` called
  them good. War's shared game loop now looks for no cycle in such a game, an engine that says
  one anyway is the plugin's error, and validation names a game that claims one;
- a decision tampered with is named at the decision event itself (its seq), not at the event
  after it that no longer follows from it: for the example family's `slap` and for the built-in
  families' decisions (Steal War's `steal`, Arneson's War's `hand`).

The example family (examples/war-slap) is installed for the session by tests/conftest.py; here
its engine is replaced for a test as tests/test_fault_corpus_plugins.py does.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import test_fault_corpus_plugins as plugins_corpus  # its helpers that install a package as pip would
from faultkit import can_see_processes, sign
from faultkit import procs  # noqa: F401  the fixture
from rulekit import dataset_events, games_rows
from validatekit import copy, edit_game

from pipeline.engines import policies
from pipeline.engines.game import play_game
from pipeline.engines.play import FIXED_PICKUPS
from pipeline.errors import PluginError
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.validate import validate
from pipeline.model.families import registry
from pipeline.model.rules import build_rules

GAMES = 40
needs_proc = pytest.mark.skipif(not can_see_processes(), reason="needs Linux's /proc to find processes")
FIXED = {"pickup": "table_order"}  # a pickup order under which positions can repeat
RANDOM = ("random", "random")  # slap:random for both seats: each pair slapped with probability 1/2


def forgetful(rules, deal, chance, rec, chooser):
    """Slap War's engine without the two lines that stop it looking for cycles when a seat's
    policy draws: it looks for them under every fixed pickup order, as Classic War does."""
    from war_slap.engine import SlapGame

    game = SlapGame(rules, deal, chance, rec, chooser)
    if rules.pickup in FIXED_PICKUPS:
        game.seen = {}
    return game.play()


def says_cycle(rules, deal, chance, rec, chooser):
    """An engine that says every game it plays is a cycle, by itself: not through war's game
    loop."""
    from war_slap.engine import SlapGame

    class Claims(SlapGame):
        __slots__ = ()

        def battles(self) -> int:
            battle = super().battles()
            self.summary.outcome, self.summary.cycle_length, self.summary.cycle_key = "cycle", 1, 7
            return battle

    return Claims(rules, deal, chance, rec, chooser).play()


@pytest.fixture
def engine(monkeypatch):
    """`engine(function)`: Slap War's engine replaced for the test."""
    family = registry().families["slap"]

    def install(play):
        monkeypatch.setitem(registry().families, "slap", replace(family, play=play))
    return install


@pytest.fixture(scope="module")
def honest(tmp_path_factory) -> Path:
    """Slap War with both seats slapping at random, played by the example's own engine."""
    out = tmp_path_factory.mktemp("honest") / "d"
    generate(out, [Plan(build_rules("slap", FIXED), GAMES, policies=RANDOM)], seed=11, shard_size=20)
    return out


# ---------------------------------------------------------------- cycles under randomized policies


def test_the_forgetful_engine_would_call_games_cycles():
    """The premise: under policies that do not draw, the forgetful engine's games cycle (so it
    is the randomized policy alone that keeps them from it below)."""
    rules = build_rules("slap", FIXED)
    assert rules.pickup in FIXED_PICKUPS
    outcomes = [play_game(rules, seed, policies=("always", "always"))[1].outcome for seed in range(GAMES)]
    assert "cycle" in outcomes


def test_war_s_loop_looks_for_no_cycle_when_a_seat_plays_a_randomized_policy(engine):
    engine(forgetful)
    rules = build_rules("slap", FIXED)
    for seats in (RANDOM, ("random", "always"), ("always", "random")):
        summaries = [play_game(rules, seed, policies=seats)[1] for seed in range(GAMES)]
        assert [s.outcome for s in summaries if s.outcome == "cycle"] == [], seats
        assert all(s.cycle_length is None and s.cycle_key is None for s in summaries)
    # a seating with no randomized policy still looks for cycles
    assert "cycle" in [play_game(rules, seed, policies=("always", "always"))[1].outcome for seed in range(GAMES)]


def test_the_forgetful_engine_plays_the_same_games_as_the_example_s_own(honest, engine, tmp_path):
    """Same seeds, same files: war's loop does what the two dropped lines did."""
    engine(forgetful)
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("slap", FIXED), GAMES, policies=RANDOM)], seed=11, shard_size=20)
    assert dataset_events(out) == dataset_events(honest)
    assert [r["outcome"] for r in games_rows(out)] == [r["outcome"] for r in games_rows(honest)]
    assert "cycle" not in {r["outcome"] for r in games_rows(out)}
    report = validate(out)
    assert report.ok and report.good == GAMES, report.problems


def test_an_engine_that_says_cycle_under_a_randomized_policy_is_the_plugin_s_error(engine, tmp_path):
    engine(says_cycle)
    rules = build_rules("slap", FIXED)
    with pytest.raises(PluginError) as caught:
        play_game(rules, 5, policies=("always", "random"))
    text = str(caught.value)
    assert "slap" in text and "cycle" in text and "slap:random" in text and "seat 1" in text, text
    assert "the error is the plugin's (war_slap)" in text, text
    out = tmp_path / "d"
    with pytest.raises(PluginError, match="cycle"):
        generate(out, [Plan(rules, 6, policies=RANDOM)], seed=3, shard_size=6)
    assert play_game(rules, 5, policies=("always", "always"))[1].outcome == "cycle"  # no policy draws: its say


@pytest.fixture(scope="module")
def claims(tmp_path_factory) -> Path:
    """A dataset whose games claim cycles under slap:random: written by the forgetful engine
    while war did not know the policy draws (its declaration said so only later)."""
    mp = pytest.MonkeyPatch()
    family = registry().families["slap"]
    try:
        mp.setitem(registry().families, "slap", replace(family, play=forgetful))
        mp.setattr(policies, "RANDOMIZED", policies.RANDOMIZED - {("slap", "random")})
        # and before war handed an undeclared policy a generator that refuses it: each seat its own
        from pipeline.engines import game as game_module
        seated = game_module.seated
        mp.setattr(game_module, "seated", lambda seats: (*seated(seats)[:2], (True,) * len(seats)))
        out = tmp_path_factory.mktemp("claims") / "d"
        generate(out, [Plan(build_rules("slap", FIXED), GAMES, policies=RANDOM)], seed=11, shard_size=20)
    finally:
        mp.undo()
    return out


@pytest.mark.parametrize("installed", ["the example's engine", "the forgetful engine"])
@pytest.mark.parametrize("deep", [False, True])
def test_validation_names_every_game_that_claims_a_cycle_under_a_randomized_policy(claims, installed, deep, engine):
    if installed == "the forgetful engine":
        engine(forgetful)  # the engine agrees with the log: war does not
    rows = games_rows(claims)
    cycles = {r["game_id"] for r in rows if r["outcome"] == "cycle"}
    assert cycles and len(cycles) < GAMES
    ends = {e["game_id"]: e["seq"] for e in dataset_events(claims) if e["kind"] == "end"}
    report = validate(claims, deep=deep)
    named = {p.game_id: p for p in report.problems if p.game_id is not None}
    assert set(named) == cycles and report.bad == len(cycles) and report.good == GAMES - len(cycles), report.problems
    for gid, problem in named.items():
        assert problem.seq == ends[gid], str(problem)
        assert "cycle" in problem.message and "slap:random" in problem.message and "randomized" in problem.message, \
            str(problem)
        assert problem.file is not None and "events" in problem.file, str(problem)


def test_validation_names_a_games_row_that_claims_a_cycle_under_a_randomized_policy(honest, tmp_path):
    """Only the record says cycle (its events end the game otherwise): named, at the record."""
    bad = copy(honest, tmp_path)
    gid = games_rows(bad)[3]["game_id"]

    def cycle(rows):
        return [{**r, "outcome": "cycle", "cycle_length": 2} for r in rows]

    edit_game(bad, gid, "games", cycle)
    sign(bad)
    report = validate(bad)
    named = [p for p in report.problems if p.game_id is not None]
    assert [p.game_id for p in named] == [gid] and report.bad == 1, report.problems
    assert "cycle" in named[0].message and "randomized" in named[0].message, str(named[0])


# ---------------------------------------------------------------- a tampered decision, at the decision


def tamper_decision(root: Path, tmp_path: Path, note: str, pick, change) -> tuple[int, int, int, Path]:
    """A copy of `root` with the first `note` decision that `pick(event)` takes changed by
    `change(event)` (another legal choice), re-signed: (game, its seq, its battle, the copy)."""
    bad = tmp_path / "bad"
    shutil.copytree(root, bad)
    row = next(e for e in dataset_events(bad) if e["kind"] == "decision" and e["note"] == note and pick(e))
    gid, seq = row["game_id"], row["seq"]

    def edit(rows):
        rows[seq] = {**rows[seq], **change(rows[seq])}
        return rows

    edit_game(bad, gid, "events", edit)
    sign(bad)
    return gid, seq, row["battle"], bad


def assert_named_at(report, gid: int, seq: int, battle: int, note: str):
    named = [p for p in report.problems if p.game_id is not None]
    assert report.bad == 1 and [p.game_id for p in named] == [gid], report.problems
    problem = named[0]
    assert problem.seq == seq, str(problem)
    assert note in problem.message and "decision" in problem.message, str(problem)
    assert f"battle {battle}" in problem.message, str(problem)
    return problem


@pytest.fixture(scope="module")
def slaps(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("slaps") / "d"
    generate(out, [Plan(build_rules("slap"), 24)], seed=4, shard_size=12)
    return out


@pytest.mark.parametrize("deep", [False, True])
def test_a_slap_decision_changed_to_letting_the_pair_go_is_named_at_the_decision(slaps, tmp_path, deep):
    gid, seq, battle, bad = tamper_decision(slaps, tmp_path, "slap", lambda e: e["seats"], lambda e: {"seats": []})
    assert_named_at(validate(bad, deep=deep), gid, seq, battle, "slap")


@pytest.fixture(scope="module")
def steals(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("steals") / "d"
    generate(out, [Plan(build_rules("steal"), 20, policies=("random", "threshold:3"))], seed=9, shard_size=10)
    return out


@pytest.mark.parametrize("seat", [0, 1])
def test_a_steal_decision_changed_to_stealing_nothing_is_named_at_the_decision(steals, tmp_path, seat):
    gid, seq, battle, bad = tamper_decision(steals, tmp_path, "steal", lambda e: e["seats"] and e["seat"] == seat,
                                            lambda e: {"seats": []})
    assert_named_at(validate(bad), gid, seq, battle, "steal")


@pytest.fixture(scope="module")
def hands(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hands") / "d"
    generate(out, [Plan(build_rules("arneson"), 20, policies=("random", "save_high"))], seed=9, shard_size=10)
    return out


@pytest.mark.parametrize("seat", [0, 1])
def test_an_arneson_hand_card_changed_to_another_of_the_hand_is_named_at_the_decision(hands, tmp_path, seat):
    def other(e):
        return {"cards": [next(c for c in e["options"] if c != e["cards"][0])]}

    gid, seq, battle, bad = tamper_decision(hands, tmp_path, "hand",
                                            lambda e: e["seat"] == seat and len(e["options"]) >= 2 and e["battle"] >= 3,
                                            other)
    assert_named_at(validate(bad), gid, seq, battle, "hand")


# ---------------------------------------------------------------- a package that never handles it, installed


COIN = '''
from pipeline.model.family import Decision, Family, Policy, Variant

FAMILY = Family(
    "coin", "war_coin.engine:play",
    options=("players", "jokers", "war_down", "pickup", "ranks", "suits", "win", "max_battles"),
    variants=(Variant("coin", "Coin War", "the test", "Classic War; a tie's first seat may take the table."),),
    events=("deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect", "reshuffle",
            "decision", "out", "end"),
    decisions=(Decision("grab", "seats", "seat {seat} [[seats?grabs|waits]]", "grab the table?",
                        (Policy("always", "war_coin.engine:always"),
                         Policy("coin", "war_coin.engine:coin", "a coin toss", randomized=True)),
                        "always"),),
)
'''

COIN_ENGINE = '''
from pipeline.engines.table.reference import TableGame


def always(seat, rng):
    return (seat,)


def coin(seat, rng):
    return (seat,) if rng.bounded(2) else ()


class CoinGame(TableGame):
    """Looks for cycles as Classic War does, whoever sits: it never asks whether a choice is drawn."""

    __slots__ = ("chooser",)

    def __init__(self, rules, deal, chance, rec, chooser):
        super().__init__(rules, deal, chance, rec)
        self.chooser = chooser

    def wars(self, battle, tied, best):
        seat = tied[0]
        chosen = self.chooser.choose("grab", seat, seat, (seat,))
        self.emit(battle, "decision", seat, (), chosen, (seat,), None, "grab")
        return (seat, 0) if chosen else super().wars(battle, tied, best)


def play(rules, deal, chance, rec, chooser):
    return CoinGame(rules, deal, chance, rec, chooser).play()
'''


@needs_proc
def test_an_installed_family_whose_engine_ignores_randomized_policies_has_no_cycle(tmp_path, monkeypatch, procs):
    """The issue's case, as a user meets it: a package's engine that looks for cycles whoever
    sits. Under a fixed pickup order its games under `always` cycle; with one seat tossing a
    coin, none does, and `war validate` finds every game good."""
    site = plugins_corpus.installed(tmp_path / "site", {"coin": "war_coin:FAMILY"},
                                    {"war_coin/__init__.py": COIN, "war_coin/engine.py": COIN_ENGINE})
    plugins_corpus.with_site(monkeypatch, site)
    outcomes = {}
    for seats in (("*=always",), ("0=always", "1=coin")):
        out = tmp_path / seats[-1].replace("=", "-")
        args = [a for s in seats for a in ("--policy", s)]
        proc = procs.war("generate", "-v", "coin", "--set", "pickup=table_order", "--set", "max_battles=3000",
                         *args, "--games", 30, "--seed", 2, "--out", out)
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        outcomes[seats[-1]] = [o for f in sorted((out / "games").rglob("*.parquet"))
                               for o in pq.read_table(f, columns=["outcome"]).column("outcome").to_pylist()]
        proc = procs.war("validate", out)
        said, err = proc.communicate(timeout=600)
        assert proc.returncode == 0 and "Traceback" not in err, said + err
    assert "cycle" in outcomes["*=always"]
    assert "cycle" not in outcomes["1=coin"] and len(outcomes["1=coin"]) == 30, outcomes


def losing_a_card(rules, deal, chance, rec, chooser):
    """Slap War's engine with a `collect` that logs every card it takes but puts one fewer under
    the pile: each battle balances in its log, and the log regenerates itself."""
    from war_slap.engine import SlapGame

    class Leaky(SlapGame):
        __slots__ = ()

        def collect(self, seat, cards, battle, kind="collect"):
            self.piles[seat].extend(cards[:-1])
            self.emit(battle, kind, seat, cards)

    return Leaky(rules, deal, chance, rec, chooser).play()


def test_an_engine_that_loses_cards_its_log_says_it_took_is_not_validated_good(engine, tmp_path):
    """`war validate` called all 20 such games good: its shortcut regenerates the shard with the
    same engine (the same log) and balances each battle; `war replay` refused every one. A game
    must end with the whole deck held or set aside (games rows' final_cards), else the shard goes
    game by game, where the ledger names each game."""
    engine(losing_a_card)
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("slap"), 20)], seed=3)
    rows = games_rows(out)
    assert all(sum(r["final_cards"]) + r["cards_set_aside"] < 52 for r in rows)
    report = validate(out)
    assert not report.ok and report.bad == 20 and report.good == 0, report.summary()
