"""A run's compiled code loaded before its work starts, or compiled on a first run in two
processes: the mechanism (log.warm says what a run loads, and in which order).

A build of a compiled engine is its family and whether its games keep positions (each compiled
module's keeps_positions, one answer a family: the table family's games all have positions,
kept up to date only when their rules look for cycles, so the demo's build plays a fixed
pickup's games too). Each family's spec names its build and the tiny game that loads it
(model.family.Warm).

A first run compiles in two processes, this one and a Helper, which share the compiles of the
builds' steps (each compiled module's STEPS, for the types a game calls them with:
compile_steps) through Sharing: the first process to come to a compile claims it, and the
other waits for it and loads it from numba's cache; then this one compiles the games. This
reaches into numba twice, neither a public API: its cache index (`cached`: whether a first
run must compile, so that it can say so) and a dispatcher's compile (Sharing.installed).
docs/compiling.md says what breaks if they move.
"""

from __future__ import annotations

import ctypes
import hashlib
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
from .compiler import ALL_STEPS

Build = tuple[str, bool]  # (family, whether its games keep positions)

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


def compile_steps(steps, structures: dict, share: Sharing | None = None) -> None:
    """Compile (or load from numba's cache) a game's called steps for the types a game calls
    them with (step_types), without running them, so that the game that calls them, compiled
    next, loads them instead. With `share` (a first run's two processes), only those no process
    has claimed yet (Sharing.take)."""
    for step in steps:
        if called(step, structures):
            types = step_types(step, structures)
            if share is None:
                step.compile(types)
            else:
                share.take(step, types)


def step_key(step, types) -> str:
    """A step and the argument types it is compiled for, as one short line of text (a digest
    of its module, name and types): the name of its claim, and what a first run's process says
    once it is in numba's cache (Sharing)."""
    text = f"{step.py_func.__module__}.{step.py_func.__qualname__}{tuple(types)}"
    return hashlib.sha1(text.encode()).hexdigest()[:20]


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


def compile_steps_of(engines, share: Sharing | None = None) -> None:
    """Compile (or load) the engine builds' called steps (their modules' STEPS, in order, then
    the family steps the loop calls: loop.family_steps) for the types a game calls them with;
    with `share`, those no process has claimed yet."""
    from ..loop import family_steps

    for build in sorted(engines):
        parts = with_parts(structures(build))
        steps = dict.fromkeys((*ENGINES[build[0]].STEPS, *family_steps(type(parts["family"]))))
        compile_steps(steps, parts, share)


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


class Sharing:
    """What one of a first run's two processes knows of the compiles they share: each compile of
    a step for its types (step_key), and validation's checks' (named so, never waited for), is
    claimed by the first process to come to it (a file in `folder`, made at once or not at all:
    claimed); a process says each of its claims on `say` once it is in numba's cache, and hears
    the other's on `hear`. A step this process needs (a step it compiles calls it, or the game
    does) that the other has claimed and not said is waited for, then loaded from the cache:
    one process compiles it, and which one does not depend on the machine's load.

    Waiting cannot deadlock: a process waits only while it compiles a caller of the step it
    waits for, so two processes waiting on each other would need two steps each calling the
    other (steps never recurse). When the other process has ended without saying a step (it
    failed), this one compiles it."""

    def __init__(self, folder: str, hear, say):
        self.folder, self.hear, self.say = folder, hear, say
        self.mine: set[str] = set()
        self.heard: set[str] = set()
        self.ended = False

    def claim(self, key: str) -> bool:
        """Whether this process is the first to claim `key`: it then does that compile, and says
        it (done) once it is in the cache."""
        if claimed(os.path.join(self.folder, key)):
            self.mine.add(key)
            return True
        return False

    def done(self, key: str) -> None:
        """Say that the compile claimed as `key` is in numba's cache."""
        try:
            self.say.write(key + "\n")
            self.say.flush()
        except (OSError, ValueError):  # the other process has ended (or this one is closing)
            pass

    def wait_for(self, key: str) -> None:
        """Wait until the other process has said `key`, or has ended."""
        while not self.ended and key not in self.heard:
            line = self.hear.readline()
            if line:
                self.heard.add(line.rstrip("\n"))
            else:
                self.ended = True

    def take(self, step, types) -> None:
        """Compile `step` for `types` if no process has claimed that compile yet (a process's
        walk through the steps of its builds, inside `installed`)."""
        key = step_key(step, types)
        if self.claim(key):
            self._compile_claimed(step._plain_compile, types, key)

    def _compile_claimed(self, compile_, types, key: str):
        result = compile_(types)
        self.done(key)
        return result

    def compiling(self, step, types):
        """A compile of `step` for `types`, wherever numba asks for it (a caller's typing, a
        walk): claimed and done here, or waited for and loaded."""
        key = step_key(step, types)
        compile_ = step._plain_compile
        if key in self.mine or key in self.heard or self.ended:
            return compile_(types)
        if self.claim(key):
            return self._compile_claimed(compile_, types, key)
        self.wait_for(key)
        return compile_(types)

    @contextmanager
    def installed(self, steps=None):
        """Inside the block, every compile of a step (jit.compiler.ALL_STEPS by default) goes
        through `compiling`: numba looks a dispatcher's compile up on the instance, where this
        puts its own (not a public API; docs/compiling.md)."""
        wrapped = []
        for step in ALL_STEPS if steps is None else steps:
            if hasattr(step, "compile") and "compile" not in vars(step):
                step._plain_compile = step.compile
                step.compile = self._wrapper(step)
                wrapped.append(step)
        try:
            yield self
        finally:
            for step in wrapped:
                del step.compile, step._plain_compile

    def _wrapper(self, step):
        def compile(types):
            return self.compiling(step, types)
        return compile


class Helper:
    """The second process of a first run, which runs `work` ("module:function", called as
    function(engines, folder, validation, hear, say)): it shares the builds' compiles with
    this process through a Sharing (`sharing`, this process's side), on two pipes, one each
    way (log.warm.compile_in_helper says what it does). Forked when this process may fork
    (Linux, and no other thread, whose locks a child would inherit half-held): it then starts
    at once, with everything imported, instead of a second Python importing it all again
    (about 1.5 s of a first run). Otherwise a new Python, which hears on its stdin and says on
    its stdout."""

    def __init__(self, work: str, engines, validation: bool = False):
        self.pid = self.process = None
        self.folder = tempfile.mkdtemp(prefix="war-compile-")  # the claims (Sharing)
        module, _, name = work.partition(":")
        try:
            if sys.platform == "linux" and threading.active_count() == 1:
                hear, said = os.pipe()  # the helper says, this process hears
                told, tell = os.pipe()  # this process says, the helper hears
                parent = os.getpid()
                self.pid = os.fork()
                if self.pid == 0:
                    die_with_parent(parent)
                    os.close(hear)
                    os.close(tell)
                    self._child(getattr(importlib.import_module(module), name), engines, self.folder, validation,
                                told, said)
                os.close(said)
                os.close(told)
                self.sharing = Sharing(self.folder, os.fdopen(hear), os.fdopen(tell, "w"))
            else:
                code = (f"import sys; from {module} import {name}; "
                        f"{name}({sorted(engines)!r}, {self.folder!r}, {validation!r}, sys.stdin, sys.stdout)")
                self.process = subprocess.Popen(
                    [sys.executable, "-c", code],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                self.sharing = Sharing(self.folder, self.process.stdout, self.process.stdin)
        except OSError:
            self._remove_folder()
            raise

    @staticmethod
    def _child(work: Callable, engines, folder: str, validation: bool, told: int, said: int) -> None:
        """The forked helper's whole life: it prints nothing (a failure only leaves its work to
        the first process) and leaves through os._exit, running none of the first's clean-ups."""
        code = 1
        try:
            quiet = os.open(os.devnull, os.O_WRONLY)
            os.dup2(quiet, 1)
            os.dup2(quiet, 2)
            with os.fdopen(told) as hear, os.fdopen(said, "w") as say:
                work(engines, folder, validation, hear, say)
            code = 0
        finally:
            os._exit(code)

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
        for stream in (self.sharing.say, self.sharing.hear):
            try:
                stream.close()
            except OSError:  # it has ended: nothing more can be said to it
                pass
        if self.pid is not None:
            os.waitpid(self.pid, 0)
        else:
            self.process.wait()
        self._remove_folder()

    def _remove_folder(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
