"""A first run (pipeline/log/warm.py, its mechanism in pipeline/engines/compiled/jit/warm.py):
the compile estimate read from numba's cache, the one build each family's rule sets name, each
step compiled once and for numbers, never for a literal, shared between this process and a
helper (forked on Linux, a new Python when this process has another thread) that an interrupt
stops, each compile claimed by one process, a process waiting for the other's claimed steps,
and `war generate` saying it compiles."""

from __future__ import annotations

import io
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
    """One build a family: every table rule set's games have positions, kept up to date only
    when the rules look for cycles (a fixed pickup order), so the demo's engine plays a fixed
    pickup's games too; Arneson's War's always keep them (looking for cycles when no seat
    chooses at random, as a first run's tiny game's seats may), Steal War's never. warm compiles the
    build a run's rule sets name, and its tiny game is played by that build."""
    from pipeline.engines.compiled.jit.warm import engines_for

    builds = {("classic", ()): (("table", True), False), ("classic", (("pickup", "pooled"),)): (("table", True), False),
              ("classic", (("pickup", "winner_first"),)): (("table", True), True),
              ("multiplayer", (("players", "3"), ("pickup", "table_order"))): (("table", True), True),
              ("steal", ()): (("steal", False), False), ("arneson", ()): (("arneson", True), False),
              ("arneson", (("pickup", "shuffled"),)): (("arneson", True), False)}
    for (variant, options), (build, looks) in builds.items():
        rules = build_rules(variant, dict(options))
        assert engines_for([rules]) == {build}, (variant, options)
        structures = ENGINES[build[0]].structures(rules)
        assert (structures["game"].positions is not None) == build[1], (variant, options)
        assert bool(structures["game"].rules.detect_cycles) == looks, (variant, options)
    assert engines_for([build_rules("classic"), build_rules("steal")]) == {("table", True), ("steal", False)}
    assert len(all_builds()) == len({family for family, _ in all_builds()})
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
# processes, then reports each called step's signatures, whether it came from the cache, and
# whether this process claimed it (Sharing.mine). A step one process needs that the other has
# claimed is waited for and loaded (Sharing.compiling): before processes shared by claims,
# which process compiled a step first was a race, which a loaded machine once lost (a fresh
# clone's suite, 2026-12-02), and which this process lost on every run once its own steps
# compiled faster (2026-12-02, afternoon).
FIRST_RUN = FOR_LITERALS + """
import json, sys, threading, time
import pipeline.log.warm as shard
from pipeline.engines.compiled.jit.warm import all_builds, called, step_key, step_types, warm_rules, with_parts
from pipeline.engines.choice import ENGINES
from pipeline.log.warm import compile_estimate, warm
from pipeline.model.rules import build_rules
build = (sys.argv[1], sys.argv[2] == "True")
helpers = []
class Seen(shard.Helper):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        helpers.append(self)
shard.Helper = Seen
if sys.argv[3:] == ["thread"]:
    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
warm(validation=True, engines=(build,))
print(json.dumps(["forked" if helper.pid else "new python" for helper in helpers]))
module = ENGINES[build[0]]
structures = with_parts(module.structures(warm_rules(build)))
mine = helpers[0].sharing.mine
report = []
for step in module.STEPS:
    types = step_types(step, structures) if called(step, structures) else None
    report.append([step.py_func.__name__, [str(s) for s in step.signatures], str(types) if types else None,
                   sum(step.stats.cache_hits.values()), types is not None and step_key(step, types) in mine])
print(json.dumps(report))
print(json.dumps(compile_estimate(engines=(build,))))
print(json.dumps(for_literals()))
"""


@pytest.mark.parametrize("build, thread", [(build, False) for build in all_builds()] + [(("table", True), True)],
                         ids=lambda p: build_id(p) if isinstance(p, tuple) else ("another-thread" if p else "alone"))
def test_a_first_run_compiles_each_step_once(build, thread, tmp_path):
    """The types warm compiles each step for are those its game calls it with: the game compiles
    no second version of a step. Each step is compiled by the one process that claimed it: one
    this process claimed it compiled (no cache hit); one it needed of the helper's it loaded from
    the cache (a wrong type, or a helper that did nothing, would compile it again), and one it
    never needed (a step only another calls: its caller's code holds it) it has not compiled
    at all. Both processes took a share. Then numba's cache holds the build. The helper is
    forked on Linux, and a new Python when this process has another thread (whose locks a
    forked child would inherit half-held). Nothing this process compiles is compiled for a
    literal (FOR_LITERALS)."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", FIRST_RUN, build[0], str(build[1])] + ["thread"] * thread,
                         capture_output=True, text=True, env=env, check=True).stdout
    helpers, steps, estimate, literals = map(json.loads, out.splitlines())
    assert literals == {}
    assert helpers == ["new python" if thread or sys.platform != "linux" else "forked"]
    assert estimate == 0
    called = [step for step in steps if step[2] is not None]
    assert called and any(mine for *_, mine in called) and not all(mine for *_, mine in called)
    for name, signatures, expected, hits, mine in steps:
        if expected is None:
            assert signatures == [], name
            continue
        assert signatures in ([expected], []), name
        assert bool(signatures) or not mine, name
        if signatures:
            assert hits == (0 if mine else 1), name  # compiled here, or loaded: the helper compiled it


def test_the_helpers_share_of_a_first_run_compiles_nothing_for_a_literal(tmp_path):
    """What warm's helper compiles (its share of the steps of every build, the encoder, the
    checks; here in one fresh process, alone, so all of them) is compiled for numbers, never for
    a literal that one caller passes where the others pass a number. The first process's share
    is checked by the test above."""
    import json
    import subprocess

    (tmp_path / "claims").mkdir()
    code = FOR_LITERALS + f"""
import io, json, os
from pipeline.engines.compiled.jit.warm import all_builds
from pipeline.log.warm import compile_in_helper
compile_in_helper(sorted(all_builds()), {str(tmp_path / "claims")!r}, True, io.StringIO(""), open(os.devnull, "w"))
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
parent = os.getpid()
steps_of = shard.compile_steps_of
def interrupted(engines, share=None):
    if os.getpid() == parent:
        raise KeyboardInterrupt
    steps_of(engines, share)
shard.Helper = Seen
shard.compile_steps_of = interrupted
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


def test_a_compile_is_claimed_by_one_process(tmp_path):
    """A first run's two processes claim each compile through one file: the first to come
    compiles it, the other finds the claim taken."""
    from pipeline.engines.compiled.jit.warm import Sharing, claimed

    claim = str(tmp_path / "checks")
    assert claimed(claim) and not claimed(claim) and not claimed(claim)
    one, other = (Sharing(str(tmp_path), io.StringIO(""), io.StringIO()) for _ in range(2))
    assert one.claim("k") and not other.claim("k") and not one.claim("k")
    assert one.mine == {"k"} and other.mine == set()
    one.done("k")
    assert one.say.getvalue() == "k\n"


def test_a_process_waits_for_the_others_step_as_long_as_the_other_may_say_it(tmp_path):
    """Sharing.wait_for reads what the other process says (a claim's key once it is in numba's
    cache) until it has said the one this process needs, and no further; a key it never says
    is waited for until it has ended (it failed: this process then compiles the step itself)."""
    from pipeline.engines.compiled.jit.warm import Sharing

    share = Sharing(str(tmp_path), io.StringIO("a\nb\nnothing after\n"), io.StringIO())
    share.wait_for("a")
    assert share.heard == {"a"} and not share.ended
    read = share.hear.tell()
    share.wait_for("a")
    assert share.hear.tell() == read  # heard already: nothing read
    share.wait_for("b")
    assert share.heard == {"a", "b"} and not share.ended
    share.wait_for("c")
    assert share.ended and share.heard == {"a", "b", "nothing after"}


def test_a_step_the_other_process_claimed_is_waited_for_then_loaded(tmp_path):
    """Sharing.compiling, which a step's compile goes through while the processes share: a
    compile the other process claimed is waited for (until it says it), then done here, which
    loads it from numba's cache; one nobody claimed is claimed, compiled and said; one this
    process claimed is compiled again as numba asks (numba returns the one it holds)."""
    from pipeline.engines.compiled.jit.warm import Sharing, step_key

    compiled = []

    class Step:
        py_func = staticmethod(test_a_compile_is_claimed_by_one_process)

        def _plain_compile(self, types):
            compiled.append((types, list(share.heard)))

    step = Step()
    other = Sharing(str(tmp_path), io.StringIO(""), io.StringIO())
    assert other.claim(step_key(step, (1,)))
    share = Sharing(str(tmp_path), io.StringIO(step_key(step, (1,)) + "\n"), io.StringIO())
    share.compiling(step, (1,))
    assert compiled == [((1,), [step_key(step, (1,))])] and share.say.getvalue() == ""
    share.compiling(step, (2,))
    assert compiled[-1][0] == (2,) and share.say.getvalue() == step_key(step, (2,)) + "\n"
    share.compiling(step, (2,))
    assert len(compiled) == 3 and share.say.getvalue().count("\n") == 1
    assert len({step_key(step, (1,)), step_key(step, (2,)), step_key(Step, (1,))}) == 2


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
    assert compile_said({("table", True), ("steal", False)}) == (
        "Steal War's engine and the engine of Classic War and its kin (Multiplayer, Jokers, Război)")


def test_a_first_run_without_an_engine_to_compile_names_the_encoder(monkeypatch):
    import pipeline.log.warm as shard

    monkeypatch.setattr(shard, "cached", lambda f, *a: f is not shard.balance)
    assert shard.compile_said(set(), validation=True) == "validation's checks"
    assert shard.compile_said(set()) == "the game engine"
    monkeypatch.setattr(shard, "cached", lambda f, *a: False)
    assert shard.compile_said(set(), validation=True) == "the log's encoder and validation's checks"
