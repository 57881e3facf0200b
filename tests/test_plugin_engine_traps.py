"""A family's engine that plays and yet breaks what its declaration promises (the hostile tester's
items 10, 11, 12 and 17): it returns no Summary, emits an event of a kind its family does not
declare, or a note no log can hold. Each is the plugin's error, said as an engine that raises is
(tests/test_fault_corpus_plugins.py): one line that names the family, its package, the game and
its seed, exit 2, nothing left of the run; by `war generate`, and by `war validate` and `war
replay`, which play the games again with the engine. And the golden writer and the kit
(pipeline.testing) say in one line what is wrong with the family or folder they are given.

In this process the example family (examples/war-slap, installed by tests/conftest.py) is given
a hostile engine as tests/test_plugin_engine_checks.py does; in `war` processes, a small family
written here (`badv`) is installed beside it.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from faultkit import one_line, tree
from faultkit import war as run_war
from pipeline import golden, testing
from pipeline.engines.game import play_game
from pipeline.errors import PluginError, RulesError
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.validate import validate
from pipeline.log.array_recorder import ArrayRecorder
from pipeline.log.batches import reference_shard
from pipeline.log.shard import shard_tables
from pipeline.model import families
from pipeline.model.families import registry
from pipeline.model.rules import build_rules
from rulekit import dataset_events
from test_fault_corpus_plugins import installed
from test_plugin_declaration_checks import CHECKED, WHERE, read
from test_plugin_declaration_checks import war as war_in
from test_plugin_engine_checks import engine  # noqa: F401  (the fixture: Slap War's engine replaced for a test)

GAMES = 24


def war(monkeypatch, capsys, *args):
    """`war ARGS` in this process: code, stdout, and stderr without the note that a family has
    no compiled engine (progress, not the error)."""
    code, out, err = run_war(monkeypatch, capsys, *args)
    return code, out, "".join(line for line in err.splitlines(True) if not line.startswith("note: "))


# ---------------------------------------------------------------- the hostile engines


def returns_none(rules, deal, chance, rec, chooser):
    """Plays the game to its end, and forgets to return its summary."""
    from war_slap.engine import SlapGame

    SlapGame(rules, deal, chance, rec, chooser).play()


def returns_text(rules, deal, chance, rec, chooser):
    """Returns the summary's outcome, not the summary."""
    from war_slap.engine import SlapGame

    return SlapGame(rules, deal, chance, rec, chooser).play().outcome


def emitting(kind: str, value=None, note=None, seats=()):
    """An engine that logs an event of `kind` with `value` and `note` at every tie, then plays
    the tie as Slap War does."""
    def play(rules, deal, chance, rec, chooser):
        from war_slap.engine import SlapGame

        class Odd(SlapGame):
            __slots__ = ()

            def tie(self, battle, tied, best):
                self.emit(battle, kind, tied[0], (), seats or (tied[0],) if kind == "decision" else seats,
                          (tied[0],) if kind == "decision" else (), value, note)
                return super().tie(battle, tied, best)

        return Odd(rules, deal, chance, rec, chooser).play()
    play.__qualname__ = f"emits_{kind}"
    return play


def swallowing(kind: str):
    """An engine that catches whatever the recorder raises of its odd event, and goes on."""
    def play(rules, deal, chance, rec, chooser):
        from war_slap.engine import SlapGame

        class Sly(SlapGame):
            __slots__ = ()

            def tie(self, battle, tied, best):
                try:
                    self.emit(battle, kind, tied[0], (), (), (), None, None)
                except Exception:  # noqa: BLE001  the hostile engine's own
                    pass
                return super().tie(battle, tied, best)

        return Sly(rules, deal, chance, rec, chooser).play()
    return play


ZONK = emitting("zonk")
BAD_NOTE = emitting("decision", value=0, note="")


@pytest.fixture(scope="module")
def slap(tmp_path_factory) -> Path:
    """Slap War at its defaults, played by its own engine: every game good."""
    out = tmp_path_factory.mktemp("traps") / "slap"
    generate(out, [Plan(build_rules("slap"), GAMES)], seed=4, shard_size=12)
    return out


HOSTILE = {  # engine, what the line says of it
    "returns None": (returns_none, ("returned None", "Summary")),
    "returns a text": (returns_text, ("returned '", "Summary")),
    "an undeclared kind": (ZONK, ("'zonk'", "not among the family's declared kinds")),
    "another family's kind": (emitting("draw"), ("'draw'", "not among the family's declared kinds")),
    "a swallowed undeclared kind": (swallowing("zonk"), ("'zonk'", "not among the family's declared kinds")),
    "an empty note": (BAD_NOTE, ("note ''", "one word")),
    "a note of two words": (emitting("decision", note="two words"), ("note 'two words'", "one word")),
    "a note that is no text": (emitting("decision", note=7), ("note 7", "one word")),
}


# ---------------------------------------------------------------- 10, 11, 12: war generate


@pytest.mark.parametrize("case", list(HOSTILE))
def test_an_engine_that_breaks_its_declaration_is_the_plugin_s_error_and_nothing_is_left(case, engine, tmp_path,
                                                                                         monkeypatch, capsys):
    """It was `internal error: AttributeError: 'NoneType' object has no attribute 'outcome'`
    (exit 1), `internal error: KeyError: 'zonk'` (exit 1), `error: a note must be one word, got
    ''` (naming neither the plugin nor the game), each with the dataset's folder left behind;
    another family's kind was written into the log as if the family declared it."""
    play, said = HOSTILE[case]
    engine(play)
    out = tmp_path / "d"
    code, stdout, err = war(monkeypatch, capsys, "generate", "-v", "slap", "--games", GAMES, "--seed", 4,
                            "--shard-size", 12, "--out", out)
    one_line(code, stdout, err, 2, "plugin family 'slap'", "war_slap", "game ", "seed ", *said)
    assert not out.exists(), "a failed run left its folder"


@pytest.mark.parametrize("case", ["returns None", "an undeclared kind", "an empty note"])
def test_an_append_the_engine_fails_leaves_the_dataset_as_it_was(case, engine, slap, tmp_path, monkeypatch, capsys):
    kept = tmp_path / "kept"
    shutil.copytree(slap, kept)
    before = tree(kept)
    play, said = HOSTILE[case]
    engine(play)
    code, stdout, err = war(monkeypatch, capsys, "generate", "-v", "slap", "--set", "slap_order=seat",
                            "--games", GAMES, "--append", "--out", kept)
    one_line(code, stdout, err, 2, "plugin family 'slap'", "war_slap", *said)
    assert tree(kept) == before and not (kept / ".war").exists()


@pytest.mark.parametrize("case", ["returns None", "an undeclared kind", "an empty note"])
def test_every_way_a_game_is_played_says_the_same(case, engine):
    """A shard as generation plays it (log.shard.shard_tables: into the arrays, then the Event
    path for what they cannot hold), the Event path alone (engines.game.play_game: replay, the
    kit, the golden writer): the plugin's error, with the game's seed."""
    play, said = HOSTILE[case]
    engine(play)
    rules = build_rules("slap")
    for attempt in (lambda: shard_tables(rules, 0, 4, 0, GAMES),
                    lambda: [play_game(rules, seed) for seed in range(GAMES)]):
        with pytest.raises(PluginError) as caught:
            attempt()
        assert caught.value.owner == "war_slap" and caught.value.exit_code == 2 and caught.value.seed is not None
        assert all(s in str(caught.value) for s in said), str(caught.value)


def test_the_events_that_are_right_go_the_way_they_went():
    """The recorder knows the family's kinds: one the family declares is written by the fast
    branch as before; Classic War's games record as before, byte for byte (the same tables)."""
    rec = ArrayRecorder(2, ("play", "collect", "end"))
    rec.begin()
    rec.emit(1, "play", 0, (3,))
    assert rec.lost is None and len(rec.codes) == 1
    for kind in ("draw", "zonk"):  # another family's, and nobody's: the slow branch, which gives up
        with pytest.raises(Exception, match="kind"):
            rec.emit(1, kind, 0, (3,))
    assert rec.lost is not None
    rules = build_rules("classic")
    first, again = reference_shard(rules, 0, 9, 0, 30), reference_shard(rules, 0, 9, 0, 30)
    assert first[0].equals(again[0]) and first[1].equals(again[1])


def test_a_built_in_family_s_engine_that_returns_no_summary_is_war_s_bug(monkeypatch):
    family = registry().families["table"]
    monkeypatch.setitem(registry().families, "table", replace(family, play=lambda *args: None))
    with pytest.raises(PluginError) as caught:
        play_game(build_rules("classic"), 1)
    assert caught.value.exit_code == 1 and "a bug of war's" in str(caught.value), str(caught.value)


# ---------------------------------------------------------------- validate and replay play them again


@pytest.mark.parametrize("case", ["returns None", "an undeclared kind", "an empty note"])
def test_validation_with_such_an_engine_blames_the_engine_not_the_dataset(case, engine, slap, tmp_path):
    """`war validate` plays every game again with the engine: a good dataset is not said to
    regenerate differently or to break the rules; each game cannot be checked, because of the
    plugin."""
    play, said = HOSTILE[case]
    engine(play)
    report = validate(slap)
    assert not report.ok and report.problems, "a game the engine cannot play was found good"
    for problem in report.problems:
        text = str(problem)
        assert "plugin family 'slap'" in text and "war_slap" in text and all(s in text for s in said), text
        assert "regenerates differently" not in text and "breaks the rules" not in text, text


@pytest.mark.parametrize("case", ["returns None", "an undeclared kind", "an empty note"])
def test_replaying_with_such_an_engine_is_the_plugin_s_error(case, engine, slap, monkeypatch, capsys):
    gid = next(e["game_id"] for e in dataset_events(slap) if e["kind"] == "decision")  # a game with a tie
    play, said = HOSTILE[case]
    engine(play)
    code, out, err = war(monkeypatch, capsys, "replay", slap, gid)
    one_line(code, out, err, 2, "plugin family 'slap'", "war_slap", *said)


# ---------------------------------------------------------------- the same in `war` processes, installed


BADV = '''
from pipeline.plugin import Family, Variant

FAMILY = Family(
    "badv", "war_badv.engine:play",
    options=("players", "jokers", "war_down", "pickup", "ranks", "suits", "win", "max_battles"),
    variants=(Variant("badv", "Bad War", "the test", "Classic War, by an engine that breaks its word."),),
    events=("deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect", "reshuffle", "out", "end"),
)
'''

BADV_ENGINE = '''
import os

from pipeline.plugin import TableGame

TRAP = os.environ.get("BADV_TRAP", "")


class BadGame(TableGame):
    __slots__ = ()

    def tie(self, battle, tied, best):
        if TRAP == "zonk":
            self.emit(battle, "zonk", tied[0], (), (), (), None, None)
        elif TRAP == "note":
            self.emit(battle, "war", None, (), tuple(tied), (), 0, "")
        return None


def play(rules, deal, chance, rec, chooser):
    summary = BadGame(rules, deal, chance, rec, chooser).play()
    return None if TRAP == "none" else summary
'''


@pytest.mark.parametrize("trap, said", [("none", "returned None"), ("zonk", "'zonk'"), ("note", "note ''")])
def test_an_installed_family_s_engine_that_breaks_its_word_ends_war_generate_in_one_line(trap, said, tmp_path,
                                                                                         monkeypatch):
    """The tester's case as a user meets it: `war generate -v badv`."""
    site = installed(tmp_path / "site", {"badv": "war_badv:FAMILY"},
                     {"war_badv/__init__.py": BADV, "war_badv/engine.py": BADV_ENGINE})
    monkeypatch.setenv("BADV_TRAP", trap)
    out = tmp_path / "d"
    run = war_in(site, "generate", "-v", "badv", "--games", 20, "--seed", 3, "--out", out)
    err = "".join(line for line in run.stderr.splitlines(True) if not line.startswith("note: "))
    one_line(run.returncode, run.stdout, err, 2, "plugin family 'badv'", "war_badv", "game ", "seed ", said)
    assert not out.exists()


# ---------------------------------------------------------------- 17: the golden writer and the kit


def golden_main(capsys, *argv) -> tuple[int, str, str]:
    """`python -m pipeline.golden ARGV` in this process: its exit code, stdout and stderr."""
    try:
        code = golden.main(list(map(str, argv)))
    except SystemExit as done:  # argparse's way out
        code = done.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("out", ["", "--out="])
def test_the_golden_writer_refuses_an_empty_folder(out, tmp_path, monkeypatch, capsys):
    """`--out ''` wrote the golden files into the current folder and said "wrote classic.txt"."""
    monkeypatch.chdir(tmp_path)
    argv = ["table", out] if out else ["table", "--out", ""]
    code, stdout, err = golden_main(capsys, *argv)
    one_line(code, stdout, err, 2, "--out ''")
    assert list(tmp_path.iterdir()) == [] and "wrote" not in stdout


def test_the_golden_writer_given_a_variant_names_its_family(tmp_path, capsys):
    code, stdout, err = golden_main(capsys, "classic", "--out", tmp_path / "g")
    one_line(code, stdout, err, 2, "'classic' is a variant of family 'table'")
    assert not (tmp_path / "g").exists()


def test_the_golden_writer_says_a_folder_it_cannot_write_in_one_line(tmp_path, capsys):
    """`--out /proc/nope` ended with exit 1, the code of a full disk, for a path that is wrong."""
    (tmp_path / "file").write_text("x")
    bad = [tmp_path / "file" / "sub"] + ([Path("/proc/nope")] if Path("/proc").is_dir() else [])
    for out in bad:
        code, stdout, err = golden_main(capsys, "table", "--out", out)
        one_line(code, stdout, err, 2, str(out))


def test_the_golden_writer_says_a_failing_engine_in_one_line(engine, tmp_path, capsys):
    engine(returns_none)
    code, stdout, err = golden_main(capsys, "slap", "--out", tmp_path / "g")
    one_line(code, stdout, err, 2, "plugin family 'slap'", "war_slap", "returned None")


@pytest.mark.parametrize("check", [testing.cases, testing.check_golden, testing.check_drawn_never_cycle,
                                   lambda name: testing.check_games(name, games=1)])
def test_the_kit_names_a_family_that_is_not_installed(check):
    """`testing.cases("nosuch")` and `check_golden("nosuch")` raised a bare KeyError('nosuch')."""
    with pytest.raises(RulesError, match="no family 'nosuch' is installed"):
        check("nosuch")
    with pytest.raises(RulesError, match="'classic' is a variant of family 'table'"):
        check("classic")


@pytest.mark.parametrize("check", [testing.cases, testing.check_golden])
def test_the_kit_says_why_an_installed_family_is_left_out(check, monkeypatch):
    reg, _ = read(monkeypatch, replace(CHECKED, play="war_nowhere.engine:play"))
    monkeypatch.setattr(families, "registry", lambda outside=True: reg)
    with pytest.raises(RulesError) as caught:
        check("checked")
    said = str(caught.value)
    assert "'checked'" in said and "installed but left out" in said and WHERE in said and "war_nowhere" in said, said


def test_the_kit_still_takes_an_installed_family():
    assert testing.cases("slap")[0] == ("slap", {}) and testing.cases("table")[0] == ("classic", {})
