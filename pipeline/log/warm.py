"""Warming the compiled engines up: their machine code loaded from numba's cache, or compiled
on a first run, before the games that need it start.

A build of a compiled engine is its family and whether its games keep positions (each compiled
module's keeps_positions): the table family has both builds, one for the rule sets that look
for cycles and one without their code, and a run compiles only those its rule sets need. Each
family's spec names its builds and the tiny game that loads each (model.family.Warm).

A first run compiles in two processes: this one and a helper (Helper), each a group of the
builds' steps (each compiled module's STEPS), then this one the games while the helper
compiles the encoder, then validation's checks in whichever is first done.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager, nullcontext
from typing import Callable

import numpy as np

from ..engines.choice import ENGINES
from ..engines.compiled.jit import HAVE_NUMBA
from ..engines.compiled.layout import EVENT_COLUMNS, SUMMARY_COLUMNS, GameArrays
from ..engines.compiled.state import compile_steps, step_key, with_parts
from ..engines.families import FAMILIES, family_of
from ..model.family import Warm
from ..errors import raise_lost_ctrl_c
from ..model.rules import build_rules
from ..model.schema import RuleSet
from .compiled import build_tables
from .compiled_codec import encode_pass
from .invariants import balance, balance_of, cards_balance

Build = tuple[str, bool]  # (family, whether its games keep positions)

# Seconds a first run spends compiling the encoder and the checks alone (a build's own are in
# its family's spec); `python bench/compiled_engines.py warm` measures them again.
COMPILE_SECONDS = {"encode_pass": 5.0, "balance": 0.8}


def warm_game(build: Build) -> Warm:
    """The spec of a build: its tiny game and its compile time."""
    return next(w for w in FAMILIES[build[0]].warm if w.keeps_positions == build[1])


def warm_rules(build: Build) -> RuleSet:
    """The rules of the build's tiny game, which warm plays to load (or compile) it."""
    sample = warm_game(build)
    return build_rules(sample.variant, dict(sample.options))


def all_builds() -> list[Build]:
    """Every build of every family's compiled engine."""
    return [(name, sample.keeps_positions) for name, family in FAMILIES.items() for sample in family.warm]


def engines_for(rule_sets) -> set[Build]:
    """The builds of the compiled engines that play these rule sets (the family of each that has
    a compiled engine, and whether its games keep positions), for warm."""
    return {(family.name, ENGINES[family.name].keeps_positions(rules)) for rules in rule_sets
            if (family := family_of(rules)).compiled}


def reference_only(rule_sets) -> list[str]:
    """The families of these rule sets that have no compiled engine: their reference engine
    plays every game."""
    return sorted({family.name for rules in rule_sets if not (family := family_of(rules)).compiled})


def default_builds() -> set[Build]:
    """The builds a default run needs: those of the default rule set (Classic War)."""
    return engines_for([build_rules("classic")])


def _warm_structures(build: Build) -> dict:
    """What the build's play_games takes besides its numbers, for its tiny warm game."""
    return ENGINES[build[0]].structures(warm_rules(build))

def _encoder_and_checks(validation: bool) -> list[tuple[str, object]]:
    return [("encode_pass", encode_pass)] + ([("balance", balance)] if validation else [])


def _cached(dispatcher, *arguments) -> bool:
    """Whether numba's cache holds machine code of `dispatcher` for this source and this
    machine, for a signature that takes each of `arguments`' types (a game, a family's state).
    Reads numba's cache index (not a public API): when it cannot tell, True, so that the first
    run says nothing rather than something false."""
    try:
        from numba import typeof

        cache = dispatcher._cache
        index = cache._cache_file._load_index()
        codegen = dispatcher.targetctx.codegen()
        _sig, magic, code = cache._index_key(None, codegen)
        wanted = [typeof(argument) for argument in arguments]
        return any(key[1] == magic and key[2] == code and all(w in key[0] for w in wanted) for key in index)
    except Exception:  # numba's internals moved: say nothing
        return True


def _build_cached(build: Build) -> bool:
    """Whether numba's cache holds the build's games (its play_games for its kind of game)."""
    structures = _warm_structures(build)
    return _cached(ENGINES[build[0]].play_games, structures["game"], structures["family"])


def compile_estimate(validation: bool = False, engines=None) -> float:
    """About how many seconds numba will spend compiling the engine builds `engines` and the
    encoder (and with `validation` the checks validation runs) before they first play on this
    machine: 0 when its cache (`__pycache__`, or NUMBA_CACHE_DIR) already holds them. When an
    engine compiles, warm's two processes compile the encoder and checks beside it."""
    if not HAVE_NUMBA:
        return 0.0
    engines = default_builds() if engines is None else engines
    engines_seconds = sum(warm_game(build).seconds for build in engines if not _build_cached(build))
    return engines_seconds or sum(COMPILE_SECONDS[name] for name, f in _encoder_and_checks(validation)
                                 if not _cached(f))


def compile_encoder() -> None:
    """Load (or compile) the encoder alone, on empty arrays of the types the engine gives: what
    a second process does while the first compiles the engine."""
    build_tables(build_rules("classic"), 0, 0, 2, _empty_arrays())


def compile_checks() -> None:
    """Load (or compile) the checks validation runs, on empty arrays of the engine's types."""
    balance_of(_empty_arrays(), 52)


def _empty_arrays() -> GameArrays:
    return GameArrays(np.zeros((0, len(EVENT_COLUMNS)), np.int32), np.zeros(0, np.int16), np.zeros(0, np.int8),
                      np.zeros((2, len(SUMMARY_COLUMNS)), np.int64), np.zeros((2, 2), np.int32),
                      np.zeros((2, 2), np.int32), np.zeros(2, np.uint64))


def compile_steps_of(engines, group: int, compiled: Callable[[str], None] | None = None) -> None:
    """Compile (or load) group `group` of the engine builds' called steps (their modules' STEPS:
    0 for this process, 1 for the helper of a first run) for the types a game calls them with;
    `compiled(state.step_key(...))` after each."""
    for build in sorted(engines):
        compile_steps(ENGINES[build[0]].STEPS[group], with_parts(_warm_structures(build)), compiled)


STEPS_DONE = "steps"  # what the helper says once all its steps are in the cache


def compile_in_helper(engines, checks: str | None = None, said=None) -> None:
    """The second process of a first run: the engines' second group of steps, each said on
    `said` (stdout by default) by its state.step_key once it is in numba's cache, then
    STEPS_DONE, then the encoder, then the checks if it claims them first (`checks`: the path
    of the claim, see claimed). The first process waits for what it needs of these."""
    said = said or sys.stdout

    def say(line: str) -> None:
        said.write(line + "\n")
        said.flush()

    compile_steps_of(engines, 1, say)
    say(STEPS_DONE)
    compile_encoder()
    if checks is not None and claimed(checks):
        compile_checks()


def claimed(path: str) -> bool:
    """Whether this process is the first to claim `path`, a file made at once or not at all: the
    checks are compiled by whichever of a first run's two processes comes to them first (the
    first after the games, the helper after the encoder: which takes longer depends on the
    engine), and loaded from the cache by the other."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


def die_with_parent(parent: int) -> None:
    """Make this process (a worker, or a first run's compile helper) end when the process
    `parent` that started it does, kill -9 included, rather than work on or wait on a pipe
    nobody reads: on Linux the kernel kills it (PR_SET_PDEATHSIG); elsewhere a thread watches.
    `parent` is the pid the parent had when it started this process: a parent that died before
    this call has left this process to another already, which the check after it sees."""
    try:
        if ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0) == 0:  # PR_SET_PDEATHSIG
            if os.getppid() != parent:
                os._exit(1)
            return
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(0.2)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


class Helper:
    """The second process of a first run (compile_in_helper). Forked when this process may fork
    (Linux, and no other thread, whose locks a child would inherit half-held): it then starts at
    once, with everything imported, instead of a second Python importing it all again (about
    1.5 s of a first run). Otherwise a new Python."""

    def __init__(self, engines, validation: bool):
        self.pid = self.process = None
        self.said_steps: set[str] = set()
        self.done_steps = False
        self.folder = tempfile.mkdtemp(prefix="war-compile-") if validation else None  # holds the claim of the checks
        try:
            if sys.platform == "linux" and threading.active_count() == 1:
                read, write = os.pipe()
                parent = os.getpid()
                self.pid = os.fork()
                if self.pid == 0:
                    die_with_parent(parent)
                    self._child(read, write, engines, self.checks)
                os.close(write)
                self.said = os.fdopen(read)
            else:
                self.process = subprocess.Popen(
                    [sys.executable, "-c", f"from pipeline.log.warm import compile_in_helper; "
                                           f"compile_in_helper({sorted(engines)!r}, {self.checks!r})"],
                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                self.said = self.process.stdout
        except OSError:
            self._remove_folder()
            raise

    @property
    def checks(self) -> str | None:
        """The path of the claim of the checks (see claimed); None without validation."""
        return os.path.join(self.folder, "checks") if self.folder is not None else None

    @staticmethod
    def _child(read: int, write: int, engines, checks: str | None) -> None:
        """The forked helper's whole life: it prints nothing (a failure only leaves its work to
        the first process) and leaves through os._exit, running none of the first's clean-ups."""
        code = 1
        try:
            os.close(read)
            quiet = os.open(os.devnull, os.O_WRONLY)
            os.dup2(quiet, 1)
            os.dup2(quiet, 2)
            with os.fdopen(write, "w") as said:
                compile_in_helper(engines, checks, said)
            code = 0
        finally:
            os._exit(code)

    def wait_for(self, key: str | None = None) -> None:
        """Wait until the helper has said `key` (a state.step_key: that step is in numba's
        cache), or has said all its steps (None waits for that), or has ended (it failed:
        what it did not say compiles here)."""
        while not self.done_steps and (key is None or key not in self.said_steps):
            line = self.said.readline()
            if not line or line == STEPS_DONE + "\n":
                self.done_steps = True
            else:
                self.said_steps.add(line.rstrip("\n"))

    def steps_compiled(self) -> None:
        """Wait until its steps are in the cache (or it has failed: they then compile here)."""
        self.wait_for(None)

    @contextmanager
    def awaited(self, engines):
        """Inside the block, a compile in this process of one of the helper's steps (a step of
        this process's group calls it) waits until the helper has put it in numba's cache, then
        loads it, instead of compiling it a second time beside the helper: which process comes
        to it first otherwise depends on the machine's load."""
        waiting = []
        for build in engines:
            for step in ENGINES[build[0]].STEPS[1]:
                if "compile" not in vars(step):
                    step.compile = self._waiting(step, step.compile)
                    waiting.append(step)
        try:
            yield
        finally:
            for step in waiting:
                del step.compile

    def _waiting(self, step, compile_):
        def waiting_compile(types):
            self.wait_for(step_key(step, types))
            return compile_(types)
        return waiting_compile

    def stop(self) -> None:
        """End it now, and wait for its end."""
        try:
            if self.pid is not None:
                os.kill(self.pid, signal.SIGKILL)
            else:
                self.process.kill()
        except OSError:  # it has ended already
            pass
        self.finish()

    def finish(self) -> None:
        """Wait for its end (its encoder is in the cache)."""
        if self.pid is not None:
            os.waitpid(self.pid, 0)
        else:
            self.process.wait()
        self.said.close()
        self._remove_folder()

    def _remove_folder(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def warm(on_compile: Callable[[float], None] | None = None, validation: bool = False,
         engines=None, on_damaged: Callable[[str], None] | None = None) -> None:
    """Load (or compile) the machine code of the engine builds `engines` (engines_for) and the
    encoder (and with `validation` the checks) now, by playing one tiny game on each, so that
    the work that follows starts at once. When they must be compiled first, `on_compile(seconds)`
    is called before, with about how long it takes (compile_estimate), and the compile is shared
    with a second process (Helper): each compiles a group of the builds' steps into numba's
    cache (a step of this one's that calls one of the helper's waits for it, Helper.awaited),
    then this one the games that call them, which load the helper's steps from the cache,
    while the helper compiles the encoder; then the checks, in whichever is first done. By
    default, the builds of the default rule set (default_builds). A damaged file of numba's
    cache is discarded and compiled again, `on_damaged(folder)` called first (once)."""
    engines = default_builds() if engines is None else engines
    if not HAVE_NUMBA or not engines:
        return
    from ..engines.compiled import loading

    told, loading.on_damaged = loading.on_damaged, on_damaged or loading.on_damaged
    try:
        _warm(on_compile, validation, engines)
    finally:
        loading.on_damaged = told
    raise_lost_ctrl_c()  # LLVM calls back into Python while numba compiles, and a Ctrl-C there is lost


def _warm(on_compile, validation: bool, engines) -> None:
    seconds = compile_estimate(validation, engines)
    if seconds and on_compile is not None:
        on_compile(seconds)
    helper = None
    compiling = seconds and not all(_build_cached(build) for build in engines)
    if compiling:
        try:
            helper = Helper(engines, validation)
        except OSError:  # this process compiles it all
            helper = None
    try:
        if compiling:
            with helper.awaited(engines) if helper is not None else nullcontext():
                compile_steps_of(engines, 0)
        if helper is not None:
            helper.steps_compiled()
        played = []
        for build in sorted(engines):
            rules = warm_rules(build)
            played.append((rules, ENGINES[build[0]].play_arrays(rules, 0, 0, 1)))
        if validation and (helper is None or claimed(helper.checks)):
            compile_checks()
    except BaseException:  # Ctrl-C, or a compile that failed: the helper's work is not wanted
        if helper is not None:
            helper.stop()
        raise
    if helper is not None:
        helper.finish()
    for rules, arrays in played:
        build_tables(rules, 0, 0, 1, arrays)
        if validation:
            cards_balance(arrays, 10)


