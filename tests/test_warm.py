"""A first run (pipeline/log/warm.py, its mechanism in pipeline/engines/compiled/jit/warm.py):
the compile estimate read from numba's cache, the build (with or without positions) each rule
set names, each step compiled once and for numbers, never for a literal, shared between this
process and a helper (forked on Linux, a new Python when this process has another thread) that
an interrupt stops, the checks claimed by one process, this process waiting for the helper's
steps, and `war generate` saying it compiles."""

from __future__ import annotations

import os
import sys

import pytest

pytest.importorskip("numba")

from compiledkit import build_id  # noqa: E402
from pipeline.engines.choice import ENGINES  # noqa: E402
from pipeline.engines.compiled.jit.warm import all_builds, warm_rules  # noqa: E402
from pipeline.model.rules import build_rules  # noqa: E402


def test_compile_estimate_reads_numbas_cache(tmp_path):
    """With an empty cache the engine is announced as compiling; once warm, as not. Run in a
    fresh process whose cache is an empty folder: only the check runs there, nothing compiles."""
    import subprocess
    import sys

    from pipeline.log.warm import compile_estimate, warm

    warm(validation=True)
    assert compile_estimate(validation=True) == 0
    code = "from pipeline.log.warm import compile_estimate as e; print(e(), e(validation=True))"
    env = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    engine, with_checks = map(float, out.split())
    assert engine > 5 and with_checks == engine  # the checks compile beside the engine, in warm's helper


def test_each_rule_set_names_the_build_that_plays_it():
    """A game keeps positions only when its rules can repeat one (a fixed pickup order), and
    Arneson's War always: warm compiles the build a run's rule sets name, and its tiny game is
    played by that build."""
    from pipeline.engines.compiled.jit.warm import engines_for

    builds = {("classic", ()): ("table", False), ("classic", (("pickup", "pooled"),)): ("table", False),
              ("classic", (("pickup", "winner_first"),)): ("table", True),
              ("multiplayer", (("players", "3"), ("pickup", "table_order"))): ("table", True),
              ("steal", ()): ("steal", False), ("arneson", ()): ("arneson", True),
              ("arneson", (("pickup", "shuffled"),)): ("arneson", True)}
    for (variant, options), build in builds.items():
        rules = build_rules(variant, dict(options))
        assert engines_for([rules]) == {build}, (variant, options)
        game = ENGINES[build[0]].structures(rules)["game"]
        assert (game.positions is not None) == build[1], (variant, options)
    assert engines_for([build_rules("classic"), build_rules("steal")]) == {("table", False), ("steal", False)}
    for build in all_builds():
        assert engines_for([warm_rules(build)]) == {build}


# What a fresh process has compiled for a literal: each compiled function of the project with a
# signature that holds one (Literal[int](0)). A caller that passes a literal (`count = 0`)
# where its other calls pass an int64 makes numba type and compile the callee a second time,
# a second or more of a first run each.
FOR_LITERALS = """
import sys
import numba
def for_literals():
    return {f"{d.py_func.__module__}.{d.py_func.__name__}": [str(s) for s in d.signatures]
            for m in list(sys.modules.values()) if getattr(m, "__name__", "").startswith("pipeline.")
            for d in vars(m).values() if isinstance(d, numba.core.dispatcher.Dispatcher)
            and any(isinstance(t, numba.types.Literal) for s in d.signatures for t in s)}
"""


# A first run in a fresh process with an empty cache: warm shares the compile between two
# processes, then reports each called step's signatures, and whether it came from the cache.
# A step of this process's that calls one of the helper's (open_battle calls reshuffle) waits
# for the helper's (Helper.awaited): before, which process compiled it first was a race, which
# a loaded machine once lost (a fresh clone's suite, 2026-12-02), and which this process lost
# on every run once its own steps compiled faster (2026-12-02, afternoon).
FIRST_RUN = FOR_LITERALS + """
import json, sys, threading, time
import pipeline.log.warm as shard
from pipeline.engines.compiled.jit.warm import all_builds, called, step_types, warm_rules, with_parts
from pipeline.engines.choice import ENGINES
from pipeline.log.warm import compile_estimate, warm
from pipeline.model.rules import build_rules
build = (sys.argv[1], sys.argv[2] == "True")
helpers = []
class Seen(shard.Helper):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        helpers.append("forked" if self.pid else "new python")
shard.Helper = Seen
if sys.argv[3:] == ["thread"]:
    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
warm(validation=True, engines=(build,))
print(json.dumps(helpers))
module = ENGINES[build[0]]
structures = with_parts(module.structures(warm_rules(build)))
print(json.dumps([[group, step.py_func.__name__, [str(s) for s in step.signatures],
                   str(step_types(step, structures)) if called(step, structures) else None,
                   sum(step.stats.cache_hits.values())] for group, steps in enumerate(module.STEPS) for step in steps]))
print(json.dumps({str(other[1]): compile_estimate(engines=(other,)) for other in all_builds() if other[0] == build[0]}))
print(json.dumps(for_literals()))
"""


@pytest.mark.parametrize("build, thread", [(build, False) for build in all_builds()] + [(("table", False), True)],
                         ids=lambda p: build_id(p) if isinstance(p, tuple) else ("another-thread" if p else "alone"))
def test_a_first_run_compiles_each_step_once(build, thread, tmp_path):
    """The types warm compiles each step for are those its game calls it with: the game compiles
    no second version of a step, and loads those the helper compiled from the cache (a wrong
    type, or a helper that did nothing, would compile them again). A step only another step
    calls (Steal War's lay_down) is not compiled by this process at all; one of this process's
    own the helper may have needed first, and compiled into the cache. A step the build never
    calls (cycle detection's, in a build without positions) is not compiled. Then numba's
    cache holds this build and not the engine's other one (the table engine's): a run that needs
    the other is told it compiles. The helper is forked on Linux, and a new Python when this
    process has another thread (whose locks a forked child would inherit half-held). Nothing
    this process compiles is compiled for a literal (FOR_LITERALS)."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", FIRST_RUN, build[0], str(build[1])] + ["thread"] * thread,
                         capture_output=True, text=True, env=env, check=True).stdout
    helpers, steps, estimates, literals = map(json.loads, out.splitlines())
    assert literals == {}
    assert helpers == ["new python" if thread or sys.platform != "linux" else "forked"]
    assert estimates.pop(str(build[1])) == 0
    assert all(seconds > 0 for seconds in estimates.values()) and len(estimates) == (build[0] == "table")
    assert steps and all(group in (0, 1) for group, *_ in steps)
    assert any(expected is not None for _, _, _, expected, _ in steps)
    for group, name, signatures, expected, hits in steps:
        if expected is None:
            assert signatures == [], name
            continue
        assert signatures in ([expected], []), name
        assert signatures or group == 1, name
        if signatures and group == 1:
            assert hits == 1, name  # loaded: the helper compiled it


def test_the_helpers_share_of_a_first_run_compiles_nothing_for_a_literal(tmp_path):
    """What warm's helper compiles (the second group of steps of every build, the encoder, the
    checks; here in one fresh process) is compiled for numbers, never for a literal that one
    caller passes where the others pass a number. The first process's share is checked by the
    test above."""
    import json
    import subprocess

    code = FOR_LITERALS + f"""
import json, os
from pipeline.engines.compiled.jit.warm import all_builds
from pipeline.log.warm import compile_in_helper
compile_in_helper(sorted(all_builds()), {str(tmp_path / "checks")!r}, open(os.devnull, "w"))
print(json.dumps(for_literals()))
"""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert json.loads(out) == {}


INTERRUPTED_RUN = """
import os, sys
import pipeline.log.warm as shard
helpers = []
class Seen(shard.Helper):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        helpers.append(self)
def interrupted(self):
    raise KeyboardInterrupt
shard.Helper = Seen
shard.Helper.steps_compiled = interrupted
try:
    shard.warm(validation=True)
except KeyboardInterrupt:
    pass
helper = helpers[0]
try:
    os.kill(helper.pid, 0)
    alive = True
except ProcessLookupError:
    alive = False
print(alive, os.path.exists(helper.folder))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="the helper is forked on Linux only")
def test_a_first_run_interrupted_stops_its_helper(tmp_path):
    """Ctrl-C while a first run compiles: warm ends its forked helper, reaps it and removes its
    claim folder, rather than leaving it compiling on its own."""
    import subprocess

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", INTERRUPTED_RUN], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["False", "False"], out.stderr


def test_the_checks_are_claimed_by_one_process(tmp_path):
    """A first run's two processes claim the checks' compile through one file: the first to come
    compiles them, the other finds the claim taken."""
    from pipeline.engines.compiled.jit.warm import claimed

    claim = str(tmp_path / "checks")
    assert claimed(claim) and not claimed(claim) and not claimed(claim)


def test_this_process_waits_for_the_helpers_step_as_long_as_the_helper_may_say_it():
    """Helper.wait_for reads what the helper says (a step's key once it is in numba's cache)
    until it has said the step this process needs, and no further; a step it never says is
    waited for only until the helper has said all of its steps, or has ended (a helper that
    failed: this process then compiles the step itself)."""
    import io

    from pipeline.engines.compiled.jit.warm import STEPS_DONE, Helper

    def helper(said: str) -> Helper:
        h = Helper.__new__(Helper)
        h.said, h.said_steps, h.done_steps = io.StringIO(said), set(), False
        return h

    h = helper(f"reshuffle(int64)\nwar_round(int64)\n{STEPS_DONE}\nnothing after\n")
    h.wait_for("reshuffle(int64)")
    assert h.said_steps == {"reshuffle(int64)"} and not h.done_steps
    h.wait_for("reshuffle(int64)")
    assert h.said.tell() == len("reshuffle(int64)\n")  # said already: nothing read
    h.wait_for("deal(int64)")  # not the helper's: until all its steps are said
    assert h.said_steps == {"reshuffle(int64)", "war_round(int64)"} and h.done_steps
    assert h.said.readline() == "nothing after\n"
    ended = helper("reshuffle(int64)\n")
    ended.wait_for("war_round(int64)")
    assert ended.done_steps
    ended.steps_compiled()


def test_the_first_run_says_it_compiles(monkeypatch, tmp_path):
    """war generate prints the message on stderr, before any game, when the engine compiles, and
    not when the reference plays every game."""
    from typer.testing import CliRunner

    import pipeline.log.warm as shard
    from pipeline.cli import app

    monkeypatch.setattr(shard, "compile_estimate", lambda validation=False, engines=None: 12.4)
    monkeypatch.setattr(shard, "missing_builds", lambda engines: set(engines))  # as on a cold cache
    result = CliRunner().invoke(app, ["generate", "--games", "3", "--out", str(tmp_path / "d"), "-q"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == ("compiling the engine of Classic War and its kin (Multiplayer, Jokers, "
                                             "Război), about 12 s, once per machine")
    monkeypatch.setenv("WAR_ENGINE", "reference")
    result = CliRunner().invoke(app, ["generate", "-v", "arneson", "--games", "3", "--out", str(tmp_path / "s"), "-q"])
    assert result.exit_code == 0, result.output
    assert "compiling" not in result.stderr


def test_a_first_run_names_what_it_compiles():
    """Each build by its family's title, several joined; with no build to compile, what of the
    encoder and the checks the cache lacks (here it holds them: the engine, said plainly)."""
    from pipeline.log.warm import compile_said

    assert compile_said({("steal", False)}) == "Steal War's engine"
    assert compile_said({("steal", False), ("arneson", True)}) == "Arneson's War's engine and Steal War's engine"
    assert compile_said({("table", False), ("table", True), ("steal", False)}) == (
        "Steal War's engine, the engine of Classic War and its kin (Multiplayer, Jokers, Război) and the engine "
        "of Classic War and its kin under a fixed pickup (it looks for cycles)")


def test_a_first_run_without_an_engine_to_compile_names_the_encoder(monkeypatch):
    import pipeline.log.warm as shard

    monkeypatch.setattr(shard, "cached", lambda f, *a: f is not shard.balance)
    assert shard.compile_said(set(), validation=True) == "validation's checks"
    assert shard.compile_said(set()) == "the game engine"
    monkeypatch.setattr(shard, "cached", lambda f, *a: False)
    assert shard.compile_said(set(), validation=True) == "the log's encoder and validation's checks"
