"""The tables of a range of games, from the engine that applies: the one place that chooses
between the compiled engine and the reference."""

from __future__ import annotations

import importlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping
from contextlib import contextmanager, nullcontext
from typing import Callable

import numpy as np
import pyarrow as pa

from ..engines.compiled.layout import (
    EVENT_COLUMNS,
    SUMMARY_COLUMNS,
    GameArrays,
)
from ..engines.compiled.jit import HAVE_NUMBA
from ..engines.compiled.state import Workspace, compile_steps, step_key, with_parts
from ..engines.compiled.table import fits, play_arrays
from ..engines.families import FAMILIES, family_of
from ..engines.game import play_game
from ..model.deal import Deal, deck_of
from ..model.rng import game_seed
from ..model.rules import build_rules
from ..model.schema import GAME_ID_STRIDE, RuleSet
from .codec import encode as encode_log
from .compiled import ShardBuilder, build_tables
from .compiled_codec import encode_pass
from .invariants import balance, balance_of, cards_balance
from .tables import game_record, games_table, rows_table


def compiled_plays(rules: RuleSet, deals=None, policies=()) -> bool:
    """The choice of engine: True when the compiled engine plays these games (seeded, or from
    explicit `deals`), giving exactly the reference's tables. Generation
    and validation both ask here. WAR_ENGINE=reference in the environment makes the reference
    play everything."""
    if os.environ.get("WAR_ENGINE") == "reference":
        return False
    name = family_of(rules).compiled
    if name == "table":
        return not policies and fits(rules)
    return bool(name) and ENGINES[name].fits(rules, policies)


# The compiled engines' buffers, kept from shard to shard in this process (see state.Workspace).
WORKSPACE = Workspace()


# Events a batch: a shard's games are played and encoded a batch at a time, so that a batch's
# events (28 bytes an event, and its cards; about 650 events a Classic War game, 3,800 an
# Arneson's War game) are still in the processor's cache when the encoder (and validation's
# card balance) read them; a whole shard's went out to memory and back. About 130,000 events a
# batch (some 4 MB) ran fastest on the development machine (2 MB of cache a core) for Classic
# War, 4-player Multiplayer War and Arneson's War, among 32,000 to 260,000. A shard's tables do
# not depend on it.
BATCH_EVENTS = 1 << 17


def batch_games(rules: RuleSet, workspace: Workspace | None = None) -> int:
    """Games a batch, for about BATCH_EVENTS events: by the events a game of these rules has
    logged in `workspace` (this process's WORKSPACE by default) so far, else by the engine's
    estimate of a game's, a formula of the deck and the seats, which cannot see that first to
    three wars ends a game 5x sooner, or table_order plays it 3x longer."""
    per_game = (workspace or WORKSPACE).events_a_game(rules) or ENGINES[family_of(rules).compiled].events_a_game(rules)
    return max(1, BATCH_EVENTS // max(per_game, 1))


def compiled_shard(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int, policies=(),
                   deals=None, check_balance: bool = False, batch: int | None = None):
    """(events table, games table, whether the cards balance) of games start..stop-1 from the
    compiled engine, from `deals` (a Deal a game) when given, played and encoded a batch of
    `batch` games at a time (by default batch_games, asked again before each batch: after the
    first, it knows these rules' games). With `check_balance`, every batch's
    events are checked with invariants.cards_balance as they are played (validation's check,
    without decoding the tables); else the third item is None."""
    if not compiled_plays(rules, deals, policies):
        raise ValueError(f"the compiled engine does not play rule set {rules.variant} {rules.rules_id}")
    family = family_of(rules).compiled
    shard = ShardBuilder(rules, ordinal, start, stop, policies, explicit=deals is not None)
    balanced = True if check_balance else None
    deck = deck_of(rules).size if check_balance else 0
    first = start
    while True:
        last = min(first + (batch or batch_games(rules)), stop)
        dealt = deals[first - start:last - start] if deals is not None else None
        logged = WORKSPACE.events_a_game(rules)  # the log's first size: the engine's estimate until known
        room = (last - first) * logged * 5 // 4 + 1024 if logged else None
        if family in ("steal", "arneson"):
            arrays = ENGINES[family].play_arrays(rules, seed, first, last, policies, capacity=room, deals=dealt,
                                                 workspace=WORKSPACE)
        else:
            arrays = play_arrays(rules, seed, first, last, capacity=room, deals=dealt, workspace=WORKSPACE)
        WORKSPACE.count_events(rules, last - first, arrays[0].shape[0])
        shard.add(arrays)
        if check_balance and balanced:
            balanced = cards_balance(arrays, deck)
        first = last
        if first >= stop:
            break
    return (*shard.tables(), balanced)


def play_range_fast(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int,
                    policies=(), deals=None) -> tuple[pa.Table, pa.Table]:
    """Games start..stop-1 of a rule set as (events table, games table) from the compiled engine:
    the same tables as events_table / games_table over play_range."""
    events, games, _ = compiled_shard(rules, ordinal, seed, start, stop, policies, deals)
    return events, games


def shard_tables(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int, deals=None, policies=(),
                 tick=None) -> tuple[pa.Table, pa.Table]:
    """(events table, games table) of games start..stop-1: from the compiled engine when it
    plays them, else from the reference. What generate.run_shard writes."""
    if compiled_plays(rules, deals, policies):
        tables = play_range_fast(rules, ordinal, seed, start, stop, policies, deals)
        if tick is not None and stop > start:
            tick(stop - start)
        return tables
    ids, rows, records = play_range(rules, ordinal, seed, start, stop, deals, policies, tick, encode=True)
    return rows_table(ids, rows), games_table(records)


class _Engines(Mapping):
    """The compiled engines' modules by name (families.Family.compiled): each module's
    play_games, play_arrays, structures, keeps_positions and STEPS serve warm. A module is
    imported when first asked for, so that a run of Classic War does not import the Steal and
    Arneson engines (about 0.1 s of its start-up, where Python compiles them from source)."""

    names = tuple(dict.fromkeys(family.compiled for family in FAMILIES.values() if family.compiled))

    def __getitem__(self, name: str):
        if name not in self.names:
            raise KeyError(name)
        return importlib.import_module(f"..engines.compiled.{name}", __package__)

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


ENGINES = _Engines()

# What numba compiles an engine for: its name, and whether its games keep positions (each
# module's keeps_positions). The table engine has both builds, one for the rule sets that look
# for cycles and one without their code; a run compiles only those its rule sets need.
Build = tuple[str, bool]
CLASSIC: Build = ("table", False)

# The rules of one tiny game per build: what warm plays to load (or compile) it.
WARM_RULES: dict[Build, tuple[str, dict]] = {
    ("table", False): ("classic", {"ranks": "5", "suits": "2"}),
    ("table", True): ("classic", {"ranks": "5", "suits": "2", "pickup": "winner_first"}),
    ("steal", False): ("steal", {"ranks": "5", "suits": "2"}),
    ("arneson", True): ("arneson", {"ranks": "5", "suits": "2"}),
}

# Seconds a first run spends compiling, on the development machine (2 cores, nothing else
# running): a build's with warm's two processes (the encoder and checks compile meanwhile), and
# the encoder's and checks' alone; `python bench/kernel_equality.py warm`
# measures them again. What the first run's message announces.
COMPILE_SECONDS = {("table", False): 10.0, ("table", True): 13.0, ("steal", False): 16.0, ("arneson", True): 21.0,
                   "encode_pass": 5.0, "balance": 0.8}


def engines_for(rule_sets) -> set[Build]:
    """The builds of the compiled engines that play these rule sets (family_of(rules).compiled
    of each that the compiled engine plays, and whether its games keep positions), for warm."""
    return {(name, ENGINES[name].keeps_positions(rules)) for rules in rule_sets
            if (name := family_of(rules).compiled)}


def _warm_structures(build: Build) -> dict:
    """What the build's play_games takes besides its numbers, for its tiny warm game."""
    return ENGINES[build[0]].structures(build_rules(*WARM_RULES[build]))


def _encoder_and_checks(validation: bool) -> list[tuple[str, object]]:
    return [("encode_pass", encode_pass)] + ([("balance", balance)] if validation else [])


def _cached(dispatcher, game=None) -> bool:
    """Whether numba's cache holds machine code of `dispatcher` for this source and this
    machine, and when `game` (a state.Game) is given, for a signature that takes a game of its
    type. Reads numba's cache index (not a public API): when it cannot tell, True, so that the
    first run says nothing rather than something false."""
    try:
        from numba import typeof

        cache = dispatcher._cache
        index = cache._cache_file._load_index()
        codegen = dispatcher.targetctx.codegen()
        _sig, magic, code = cache._index_key(None, codegen)
        wanted = None if game is None else typeof(game)
        return any(key[1] == magic and key[2] == code and (wanted is None or wanted in key[0]) for key in index)
    except Exception:  # numba's internals moved: say nothing
        return True


def _build_cached(build: Build) -> bool:
    """Whether numba's cache holds the build's games (its play_games for its kind of game)."""
    return _cached(ENGINES[build[0]].play_games, _warm_structures(build)["game"])


def compile_estimate(validation: bool = False, engines=(CLASSIC,)) -> float:
    """About how many seconds numba will spend compiling the engine builds `engines` and the
    encoder (and with `validation` the checks validation runs) before they first play on this
    machine: 0 when its cache (`__pycache__`, or NUMBA_CACHE_DIR) already holds them. When an
    engine compiles, warm's two processes compile the encoder and checks beside it."""
    if not HAVE_NUMBA:
        return 0.0
    engines_seconds = sum(COMPILE_SECONDS[build] for build in engines if not _build_cached(build))
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
                self.pid = os.fork()
                if self.pid == 0:
                    self._child(read, write, engines, self.checks)
                os.close(write)
                self.said = os.fdopen(read)
            else:
                self.process = subprocess.Popen(
                    [sys.executable, "-c", f"from pipeline.log.shard import compile_in_helper; "
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
         engines=(CLASSIC,)) -> None:
    """Load (or compile) the machine code of the engine builds `engines` (engines_for) and the
    encoder (and with `validation` the checks) now, by playing one tiny game on each, so that
    the work that follows starts at once. When they must be compiled first, `on_compile(seconds)`
    is called before, with about how long it takes (compile_estimate), and the compile is shared
    with a second process (Helper): each compiles a group of the builds' steps into numba's
    cache (a step of this one's that calls one of the helper's waits for it, Helper.awaited),
    then this one the games that call them, which load the helper's steps from the cache,
    while the helper compiles the encoder; then the checks, in whichever is first done."""
    if not HAVE_NUMBA or not engines:
        return
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
            rules = build_rules(*WARM_RULES[build])
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


def play_range(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int,
               deals: list[Deal] | None = None, policies=(), tick: Callable[[int], None] | None = None,
               encode: bool = False):
    """Play games start..stop-1 of a rule set: their ids, logs and records. With `encode`, each
    log is kept as its `events/` rows (logcodec.encode) as soon as it is played: a shard of long
    games then holds a few bytes a battle instead of Python tuples for every event."""
    ids, logs, records = [], [], []
    for index in range(start, stop):
        gid = ordinal * GAME_ID_STRIDE + index
        gseed = game_seed(seed, index)
        events, summary, deal = play_game(rules, gseed, deals[index - start] if deals else None,
                                          policies=policies)
        ids.append(gid)
        logs.append(encode_log(events) if encode else events)
        records.append(game_record(gid, index, gseed, rules, policies, deal, summary, len(events)))
        if tick is not None and (index - start) % 100 == 99:
            tick(100)
    if tick is not None and (stop - start) % 100:
        tick((stop - start) % 100)
    return ids, logs, records
