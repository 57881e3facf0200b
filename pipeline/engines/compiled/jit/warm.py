"""A run's compiled code loaded before its work starts, or compiled on a first run in two
processes: the mechanism (log.warm says what a run loads, and in which order).

A build of a compiled engine is its family and whether its games keep positions (each compiled
module's keeps_positions): the table family has both builds, one for the rule sets that look
for cycles and one without their code, and a run compiles only those its rule sets need. Each
family's spec names its builds and the tiny game that loads each (model.family.Warm).

A first run compiles in two processes: this one and a Helper, each a group of the builds'
steps (each compiled module's STEPS, compiled for the types a game calls them with:
compile_steps), then this one the games, which load the helper's steps from numba's cache.
This reaches into numba twice, neither a public API: its cache index (`cached`: whether a
first run must compile, so that it can say so) and a dispatcher's compile (Helper.awaited: a
step of this process waits for the helper's). docs/compiling.md says what breaks if they move.
"""

from __future__ import annotations

import ctypes
import importlib
import inspect
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from typing import Callable

from ....model.rules import build_rules
from ....model.schema import RuleSet
from ...choice import ENGINES
from ...families import FAMILIES, family_of
from ....model.family import Warm

Build = tuple[str, bool]  # (family, whether its games keep positions)

STEPS_DONE = "steps"  # what the helper says once all its steps are in the cache


# ---------------------------------------------------------------- builds

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


def default_builds() -> set[Build]:
    """The builds a default run needs: those of the default rule set (Classic War)."""
    return engines_for([build_rules("classic")])


def structures(build: Build) -> dict:
    """What the build's play_games takes besides its numbers, for its tiny warm game."""
    return ENGINES[build[0]].structures(warm_rules(build))


def cached(dispatcher, *arguments) -> bool:
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


def build_cached(build: Build) -> bool:
    """Whether numba's cache holds the build's games (its play_games for its kind of game)."""
    structures_ = structures(build)
    return cached(ENGINES[build[0]].play_games, structures_["game"], structures_["family"])


# ---------------------------------------------------------------- steps

def step_types(step, structures: dict) -> tuple:
    """The argument types numba compiles a called step (a `borrowing` function that is not
    inlined) for when a game calls it: a structure argument (the game, its deals, results, a
    family's own state, or a part of the game such as rules, seats or positions) has the type of
    `structures[its parameter name]`; the game's seed is uint64; every other argument, a
    number of the game, int64 (the steps compute in int64 throughout)."""
    from numba import typeof, types  # lazy: the engine imports without numba

    names = inspect.signature(step.py_func).parameters
    return tuple(typeof(structures[name]) if name in structures else types.uint64 if name == "game_seed"
                 else types.int64 for name in names)


def compile_steps(steps, structures: dict, compiled: Callable[[str], None] | None = None) -> None:
    """Compile (or load from numba's cache) a game's called steps for the types a game calls
    them with (step_types), without running them: a second process compiles some of them into
    the cache while the first compiles the others, so the game that calls them, compiled next,
    loads them instead (Helper). `compiled(step_key(...))` is called after each."""
    for step in steps:
        if called(step, structures):
            types = step_types(step, structures)
            step.compile(types)
            if compiled is not None:
                compiled(step_key(step, types))


def step_key(step, types) -> str:
    """A step and the argument types it is compiled for, as one line of text: how a first run's
    helper says which step it has put in numba's cache (Helper)."""
    return f"{step.py_func.__module__}.{step.py_func.__qualname__}{tuple(types)}"


def called(step, structures: dict) -> bool:
    """Whether a game of these structures (with_parts) calls `step`: a step that takes the
    positions alone serves only a game that keeps them."""
    return structures["positions"] is not None or "positions" not in inspect.signature(step.py_func).parameters


def with_parts(structures: dict) -> dict:
    """`structures` with the parts of its game that steps take alone: rules, seats, positions,
    and a game's tally (its row of the results' summaries, engines.compiled.loop)."""
    game = structures["game"]
    return {**structures, "rules": game.rules, "seats": game.seats, "positions": game.positions,
            "tally": structures["results"].summaries[0]}


def compile_steps_of(engines, group: int, compiled: Callable[[str], None] | None = None) -> None:
    """Compile (or load) group `group` of the engine builds' called steps (their modules' STEPS:
    0 for this process, 1 for the helper of a first run) for the types a game calls them with;
    `compiled(step_key(...))` after each."""
    for build in sorted(engines):
        compile_steps(ENGINES[build[0]].STEPS[group], with_parts(structures(build)), compiled)


# ---------------------------------------------------------------- the helper

def claimed(path: str) -> bool:
    """Whether this process is the first to claim `path`, a file made at once or not at all: work
    that either of a first run's two processes may do (validation's checks, log.warm) is done by
    whichever comes to it first, and loaded from the cache by the other."""
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
    """The second process of a first run, which runs `work` ("module:function", called as
    function(engines, claim, said)): it compiles group 1 of the builds' steps, saying each on
    `said` (step_key) once it is in numba's cache, then STEPS_DONE, then what else it compiles
    (log.warm.compile_in_helper). Forked when this process may fork (Linux, and no other
    thread, whose locks a child would inherit half-held): it then starts at once, with
    everything imported, instead of a second Python importing it all again (about 1.5 s of a
    first run). Otherwise a new Python, which says its lines on stdout."""

    def __init__(self, work: str, engines, claims: bool = False):
        self.pid = self.process = None
        self.said_steps: set[str] = set()
        self.done_steps = False
        self.folder = tempfile.mkdtemp(prefix="war-compile-") if claims else None  # holds the claim (claimed)
        module, _, name = work.partition(":")
        try:
            if sys.platform == "linux" and threading.active_count() == 1:
                read, write = os.pipe()
                parent = os.getpid()
                self.pid = os.fork()
                if self.pid == 0:
                    die_with_parent(parent)
                    self._child(read, write, getattr(importlib.import_module(module), name), engines, self.claim)
                os.close(write)
                self.said = os.fdopen(read)
            else:
                self.process = subprocess.Popen(
                    [sys.executable, "-c", f"from {module} import {name}; {name}({sorted(engines)!r}, {self.claim!r})"],
                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                self.said = self.process.stdout
        except OSError:
            self._remove_folder()
            raise

    @property
    def claim(self) -> str | None:
        """The path of the claim of the work either process may do (claimed); None without it."""
        return os.path.join(self.folder, "claim") if self.folder is not None else None

    @staticmethod
    def _child(read: int, write: int, work: Callable, engines, claim: str | None) -> None:
        """The forked helper's whole life: it prints nothing (a failure only leaves its work to
        the first process) and leaves through os._exit, running none of the first's clean-ups."""
        code = 1
        try:
            os.close(read)
            quiet = os.open(os.devnull, os.O_WRONLY)
            os.dup2(quiet, 1)
            os.dup2(quiet, 2)
            with os.fdopen(write, "w") as said:
                work(engines, claim, said)
            code = 0
        finally:
            os._exit(code)

    def wait_for(self, key: str | None = None) -> None:
        """Wait until the helper has said `key` (a step_key: that step is in numba's
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
        """Wait for its end (all its work is in the cache)."""
        if self.pid is not None:
            os.waitpid(self.pid, 0)
        else:
            self.process.wait()
        self.said.close()
        self._remove_folder()

    def _remove_folder(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
