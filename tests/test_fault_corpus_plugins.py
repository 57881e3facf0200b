"""The fault corpus, round four (issue 50): plugins that misbehave. A family's code is not war's:
a policy that chooses what it was not offered, a policy or engine that raises, a package that
calls sys.exit() as it is imported or declares a part of the wrong type, a shard the reference
engine plays that Ctrl-C must stop. Each ends in one line naming the family (and the decision,
the policy and the game where there is one), or a warning that leaves the family out; nothing
written is lost and no run is left to discard.

In this process the example family (examples/war-slap, installed by tests/conftest.py) is made to
misbehave by replacing its policy or engine; in `war` processes, a small family written here
(`faulty`: Classic War whose seat asks itself, before each war, whether to ponder) is installed
beside it, with a policy that never returns. Every process a test starts is reaped
(faultkit.Tagged).
"""

from __future__ import annotations

import os
import shutil
import signal
import time
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

from faultkit import can_see_processes, catches_ctrl_c, one_line, sign, tree, wait_for
from faultkit import procs  # noqa: F401  the fixture
from faultkit import war as run_war
from pipeline.engines import policies
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.validate import validate
from pipeline.model import families
from pipeline.model.families import registry
from pipeline.model.family import Decision, Family, Option, Policy, Variant
from pipeline.model.rules import build_rules
from rulekit import dataset_events
from validatekit import edit_game

GAMES = 24


def war(monkeypatch, capsys, *args):
    """`war ARGS` in this process: code, stdout, and stderr without the note that a family has
    no compiled engine (progress, not the error)."""
    code, out, err = run_war(monkeypatch, capsys, *args)
    return code, out, "".join(line for line in err.splitlines(True) if not line.startswith("note: "))


def other_seat(view, rng):
    """A slap policy that slaps for the other seat: seats it was not offered."""
    return (1 - view.seat,)


def boom(*args):
    raise ValueError("boom")


@pytest.fixture
def hostile_policy(monkeypatch):
    """Slap War's default policy (`always`) replaced: `hostile_policy(function)`."""
    def install(function):
        monkeypatch.setitem(policies.KINDS["slap"], "always", lambda: function)
    return install


@pytest.fixture(scope="module")
def slap(tmp_path_factory) -> Path:
    """Slap War at its defaults, with its own policy: every decision legal."""
    out = tmp_path_factory.mktemp("plugins") / "slap"
    generate(out, [Plan(build_rules("slap"), GAMES)], seed=4, shard_size=12)
    return out


# ---------------------------------------------------------------- 2: a choice not offered


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_policy_that_chooses_what_it_was_not_offered_is_refused_as_it_plays(workers, tmp_path, monkeypatch, capsys,
                                                                              hostile_policy):
    """It was written with exit 0, and validation called it good, while replay refused it."""
    hostile_policy(other_seat)
    out = tmp_path / "d"
    code, stdout, err = war(monkeypatch, capsys, "generate", "-v", "slap", "--games", GAMES, "--seed", 4,
                            "--shard-size", 12, "--workers", workers, "--out", out)
    one_line(code, stdout, err, 2, "slap", "slap:always", "seat ", "game ", "seed ", "options", "plugin")
    assert not out.exists(), "a refused run left its folder"


def test_validation_names_a_decision_outside_its_options(slap, tmp_path, monkeypatch, capsys, hostile_policy):
    """The log the hostile policy writes (each slap for the other seat), validated where that
    policy is installed: regeneration agrees with it, yet every game with a decision is bad,
    named at its first decision, with and without --deep."""
    bad = tmp_path / "bad"
    shutil.copytree(slap, bad)
    first: dict[int, int] = {}
    for e in dataset_events(bad):
        if e["kind"] == "decision" and e["note"] == "slap":
            first.setdefault(e["game_id"], e["seq"])
    assert len(first) >= 2

    def slap_for_the_other(rows):
        for row in rows:
            if row["kind"] == "decision" and row["note"] == "slap":
                row["seats"] = [1 - row["seat"]]
        return rows

    for gid in first:
        edit_game(bad, gid, "events", slap_for_the_other)
    sign(bad)
    hostile_policy(other_seat)  # the plugin that wrote such a log is the one installed
    for deep in (False, True):
        report = validate(bad, deep=deep)
        assert report.bad == len(first) and report.good == GAMES - len(first), report.problems
        named = {p.game_id: p for p in report.problems if p.game_id is not None}
        assert {gid: p.seq for gid, p in named.items()} == first, report.problems
        message = next(iter(named.values())).message
        assert "slap" in message and "options" in message, message
    gid = min(first)
    code, out, err = war(monkeypatch, capsys, "validate", bad)
    assert code != 0 and f"game {gid}" in out + err, out + err


# ---------------------------------------------------------------- 13: a plugin's code raises


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_policy_that_raises_is_the_plugin_s_error_named_and_nothing_is_left(workers, tmp_path, monkeypatch, capsys,
                                                                               hostile_policy):
    hostile_policy(boom)
    out = tmp_path / "d"
    code, stdout, err = war(monkeypatch, capsys, "generate", "-v", "slap", "--games", GAMES, "--seed", 4,
                            "--shard-size", 12, "--workers", workers, "--out", out)
    one_line(code, stdout, err, 2, "slap", "slap:always", "seat ", "game ", "seed ", "ValueError: boom", "plugin")
    assert not out.exists(), "a failed run left a run to discard"


def test_a_policy_that_exits_is_the_policy_s_error_not_its_engine_s(tmp_path, monkeypatch, capsys, hostile_policy):
    """A policy's function that calls sys.exit was said as its engine's failure (the engine's
    catch took it); now every place war calls a plugin's code judges alike (plugins_fault)."""
    import sys

    hostile_policy(lambda view, rng: sys.exit(0))
    out = tmp_path / "d"
    code, stdout, err = war(monkeypatch, capsys, "generate", "-v", "slap", "--games", GAMES, "--seed", 4,
                            "--out", out)
    said = one_line(code, stdout, err, 2, "slap:always", "seat ", "SystemExit", "plugin")
    assert "engine" not in said and not out.exists()


@pytest.fixture
def broken_engine(monkeypatch):
    family = registry().families["slap"]
    monkeypatch.setitem(registry().families, "slap", replace(family, play=boom))


def test_an_engine_that_raises_is_the_plugin_s_error_and_an_append_leaves_the_dataset_as_it_was(
        slap, tmp_path, monkeypatch, capsys, broken_engine):
    out = tmp_path / "d"
    code, stdout, err = war(monkeypatch, capsys, "generate", "-v", "slap", "--games", GAMES, "--out", out)
    one_line(code, stdout, err, 2, "slap", "engine", "game ", "seed ", "ValueError: boom", "plugin")
    assert not out.exists()
    kept = tmp_path / "kept"
    shutil.copytree(slap, kept)
    before = tree(kept)
    code, stdout, err = war(monkeypatch, capsys, "generate", "-v", "slap", "--set", "slap_order=seat",
                            "--games", GAMES, "--append", "--out", kept)
    one_line(code, stdout, err, 2, "slap", "ValueError: boom", "plugin")
    assert tree(kept) == before and not (kept / ".war").exists()


def test_replaying_with_an_engine_that_raises_is_one_line(slap, monkeypatch, capsys, broken_engine):
    gid = dataset_events(slap)[0]["game_id"]
    code, out, err = war(monkeypatch, capsys, "replay", slap, gid)
    one_line(code, out, err, 2, "slap", "engine", "ValueError: boom", "plugin")


# ---------------------------------------------------------------- 9: a package that will not load


class Point:
    """An entry point of the group whose `load()` does what a package's import does."""

    def __init__(self, name: str, load) -> None:
        self.name, self.value, self.module, self._load = name, f"war_{name}:FAMILY", f"war_{name}", load

    def load(self):
        return self._load()


def built(monkeypatch, *points):
    monkeypatch.setattr(families, "_points", lambda: list(points))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reg = families.build()
    return reg, [str(w.message) for w in caught if w.category is families.FamilyWarning]


def exits():
    raise SystemExit(3)


def test_a_package_that_exits_as_it_is_imported_is_left_out(monkeypatch):
    reg, said = built(monkeypatch, Point("exits", exits))
    assert len(said) == 1 and said[0].startswith("the family of entry point `exits = war_exits:FAMILY` is left out")
    assert "SystemExit" in said[0], said
    assert set(reg.families) == {"table", "steal", "arneson"}


def test_ctrl_c_while_a_package_imports_is_not_swallowed(monkeypatch):
    def interrupted():
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        built(monkeypatch, Point("stops", interrupted))


TYPED = Family(
    "typed", "pipeline.engines.table.reference:play_table",
    options=("players", "jokers", "war_down", "pickup", "ranks", "suits", "win", "max_battles",
             Option("typed_option", 1, "A number of the test's.", minimum=0, maximum=3)),
    variants=(Variant("typed", "Typed War", "the test", "Classic War under another name."),),
    events=("deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect", "decision", "out", "end"),
    decisions=(Decision("typed", "card", "seat {seat} picks {card}", "a card",
                        (Policy("any", "war_slap.policies:always"),), "any"),),
    profiles={"greedy": {"typed": "any"}},
    report=(("outcomes", {}),),
)


def test_the_typed_declaration_holds_together(monkeypatch):
    reg, said = built(monkeypatch, Point("typed", lambda: TYPED))
    assert said == [] and "typed" in reg.families


@pytest.mark.parametrize("part, wrong", [
    ("options", lambda f: (*f.options, 3)),
    ("options", lambda f: (*f.options[:-1], replace(f.options[-1], minimum="0"))),
    ("options", lambda f: (*f.options[:-1], replace(f.options[-1], choices=None))),
    ("options", lambda f: "players"),
    ("variants", lambda f: ("typed",)),
    ("variants", lambda f: (replace(f.variants[0], defaults=["typed_option"]),)),
    ("events", lambda f: (*f.events, 7)),
    ("decisions", lambda f: (replace(f.decisions[0], policies=("any",)),)),
    ("decisions", lambda f: (replace(f.decisions[0], policies=(Policy("any", 12),)),)),
    ("profiles", lambda f: {"greedy": "any"}),
    ("name", lambda f: 5),
    ("play", lambda f: 5),
    ("report", lambda f: "counts"),
    ("compiled_options", lambda f: ["players"]),
])
def test_a_declaration_with_a_part_of_the_wrong_type_is_left_out(part, wrong, monkeypatch):
    family = replace(TYPED, **{part: wrong(TYPED)})
    reg, said = built(monkeypatch, Point("typed", lambda: family))
    assert len(said) == 1, said
    assert said[0].startswith("the family of entry point `typed = war_typed:FAMILY` is left out: "), said
    assert part.rstrip("s") in said[0] or part in said[0], said
    assert set(reg.families) == {"table", "steal", "arneson"}


# ---------------------------------------------------------------- in `war` processes

FAULTY = '''
from pipeline.model.family import Decision, Family, Policy, Variant

FAMILY = Family(
    "faulty", "war_faulty.engine:play",
    options=("players", "jokers", "war_down", "pickup", "ranks", "suits", "win", "max_battles"),
    variants=(Variant("faulty", "Faulty War", "the test", "Classic War whose seat ponders before a war."),),
    events=("deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect", "reshuffle",
            "decision", "out", "end"),
    decisions=(Decision("ponder", "seats", "seat {seat} ponders", "ponder?",
                        (Policy("fine", "war_faulty.engine:fine"), Policy("forever", "war_faulty.engine:forever")),
                        "fine"),),
)
'''

FAULTY_ENGINE = '''
from pipeline.engines.table.reference import TableGame


def fine(seat, rng):
    return (seat,)


def forever(seat, rng):
    while True:
        pass


class PonderGame(TableGame):
    __slots__ = ("chooser",)

    def __init__(self, rules, deal, chance, rec, chooser):
        super().__init__(rules, deal, chance, rec)
        self.chooser = chooser

    def wars(self, battle, tied, best):
        seat = tied[0]
        chosen = self.chooser.choose("ponder", seat, seat, (seat,))
        self.emit(battle, "decision", seat, (), chosen, (seat,), None, "ponder")
        return super().wars(battle, tied, best)


def play(rules, deal, chance, rec, chooser):
    return PonderGame(rules, deal, chance, rec, chooser).play()
'''


def installed(site: Path, points: dict[str, str], files: dict[str, str]) -> Path:
    """A folder that holds `files` and a dist-info with the entry points `points`, as pip would."""
    for name, text in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text, encoding="utf-8")
    info = site / "war_test_plugins-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: war-test-plugins\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[war.families]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()),
                                           encoding="utf-8")
    return site


def with_site(monkeypatch, site: Path) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))


needs_proc = pytest.mark.skipif(not can_see_processes(), reason="needs Linux's /proc to find processes")


@needs_proc
def test_every_command_goes_on_without_a_package_that_exits_or_is_mistyped(slap, tmp_path, monkeypatch, procs):
    """sys.exit() as it imported ended every command that read rule sets (exit 3, not a word);
    an `int` among the options, an internal error. Each is left out with one warning line."""
    site = installed(tmp_path / "site", {"exits": "war_exits:FAMILY", "typed": "war_typed:FAMILY"}, {
        "war_exits.py": "import sys\nsys.exit(3)\n",
        "war_typed.py": "from pipeline.model.family import Family, Variant\n"
                        "FAMILY = Family('typed', 'x:y', options=('players', 3), "
                        "variants=(Variant('typed', 'T', 't', 't'),), events=('deal', 'play', 'collect', 'out', 'end'))\n",
    })
    with_site(monkeypatch, site)
    for args in (["variants"], ["replay", slap, "0"]):
        proc = procs.war(*args)
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, (proc.returncode, err)
        left_out = [line for line in err.splitlines() if "is left out" in line]
        assert len(left_out) == 2 and "Traceback" not in err, err
        assert "`exits = war_exits:FAMILY`" in left_out[0] and "SystemExit" in left_out[0], left_out
        assert "`typed = war_typed:FAMILY`" in left_out[1] and "int" in left_out[1], left_out
        assert ("Game 0 · slap" if args[0] == "replay" else "classic") in out


STOPPED_WITHIN = 10.0  # seconds from Ctrl-C to the exit; it was the whole shard's time, or never


@needs_proc
@pytest.mark.parametrize("playing", ["a policy that never returns", "a long shard of the example family"])
def test_ctrl_c_stops_a_shard_the_reference_engine_plays(playing, tmp_path, monkeypatch, procs):
    site = installed(tmp_path / "site", {"faulty": "war_faulty:FAMILY"},
                     {"war_faulty/__init__.py": FAULTY, "war_faulty/engine.py": FAULTY_ENGINE})
    with_site(monkeypatch, site)
    out = tmp_path / "d"
    args = (["-v", "faulty", "--policy", "*=forever", "--games", "10"] if playing.startswith("a policy")
            else ["-v", "slap", "--games", "2000"])
    proc = procs.war("generate", *args, "--out", out)
    catches_ctrl_c(proc)
    wait_for(out / ".war" / "plan.json", proc)
    time.sleep(1.5)  # inside the shard's games
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    start = time.monotonic()
    try:
        _, err = proc.communicate(timeout=STOPPED_WITHIN + 60)
    except Exception:
        pytest.fail("still running a minute after Ctrl-C")
    took = time.monotonic() - start
    assert proc.returncode == 130, (proc.returncode, err)
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: interrupted; finish with: war generate ") \
        and errors[0].endswith("--resume"), err
    assert "Traceback" not in err and "internal error" not in err
    assert took < STOPPED_WITHIN, f"exit {took:.1f} s after Ctrl-C"
    assert (out / ".war").is_dir() and not (out / "manifest.json").exists()  # the run, to resume
