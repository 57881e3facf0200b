"""Warming a run up: the machine code of its compiled engines, the encoder (and validation's
checks) loaded from numba's cache, or compiled on a first run, before the games that need it
start. What is loaded, and in which order; the mechanism (builds, the helper process, numba's
cache index) is engines.compiled.jit.warm's.

A first run compiles in two processes, this one and a helper, which share the builds' steps
(each compiled by the first to come to it, jit.warm.Sharing); then this one compiles the games
while the helper compiles the encoder, then validation's checks in whichever is first done.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Callable

import numpy as np

from ..engines.choice import ENGINES
from ..engines.compiled.jit import HAVE_NUMBA
from ..engines.compiled.jit.warm import (
    Helper, Sharing, build_cached, cached, compile_steps_of, default_builds, engines_for, warm_game, warm_rules,
)
from ..engines.families import family_of
from ..engines.compiled.layout import EVENT_COLUMNS, SUMMARY_COLUMNS, GameArrays
from ..errors import raise_lost_ctrl_c
from ..model.rules import build_rules
from .compiled import build_tables
from .compiled_codec import encode_pass
from .invariants import balance, balance_of, cards_balance

# Seconds a first run spends compiling the encoder and the checks alone (a build's own are in
# its family's spec); `python bench/compiled_engines.py compile` measures them again.
COMPILE_SECONDS = {"encode_pass": 2.3, "balance": 0.35}


def _encoder_and_checks(validation: bool) -> list[tuple[str, object]]:
    return [("encode_pass", encode_pass)] + ([("balance", balance)] if validation else [])


def compile_estimate(validation: bool = False, engines=None) -> float:
    """About how many seconds numba will spend compiling the engine builds `engines` and the
    encoder (and with `validation` the checks validation runs) before they first play on this
    machine: 0 when its cache (war's per-user cache, jit.loading.CodeCache) already holds them. When an
    engine compiles, warm's two processes compile the encoder and checks beside it."""
    if not HAVE_NUMBA:
        return 0.0
    engines = default_builds() if engines is None else engines
    engines_seconds = sum(warm_game(build).seconds for build in engines if not build_cached(build))
    return engines_seconds or sum(COMPILE_SECONDS[name] for name, f in _encoder_and_checks(validation)
                                 if not cached(f))


def missing_builds(engines) -> set:
    """The builds of `engines` whose games numba's cache does not hold: those a run compiles."""
    return {build for build in engines if not build_cached(build)} if HAVE_NUMBA else set()


def compile_said(builds, validation: bool = False) -> str:
    """What a first run compiles, in words (`Steal War's engine`, `the log's encoder`): the
    builds `builds` by their family's titles (model.family.Warm.title), else what of the encoder
    and the checks the cache lacks."""
    titles = [warm_game(build).title or f"the {build[0]} engine" for build in sorted(builds)]
    if not titles:
        titles = [ENCODER_AND_CHECKS[name] for name, f in _encoder_and_checks(validation) if not cached(f)]
    if not titles:
        return "the game engine"
    return titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " and " + titles[-1]


ENCODER_AND_CHECKS = {"encode_pass": "the log's encoder", "balance": "validation's checks"}


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


def compile_in_helper(engines, folder: str, validation: bool, hear, say) -> None:
    """The second process of a first run (jit.warm.Helper): the engines' steps that this process
    claims first (the first process takes the others, jit.warm.Sharing, through the claims in
    `folder`: it hears the first's on `hear` and says its own on `say`), then the encoder, then
    with `validation` the checks if it claims them first. The first process compiles the games,
    waiting for what it needs of these."""
    share = Sharing(folder, hear, say)
    for build in engines:  # imported before their steps are shared (a new Python has none yet)
        ENGINES[build[0]]
    with share.installed():
        compile_steps_of(engines, share)
        compile_encoder()
        if validation and share.claim("checks"):
            compile_checks()


def reference_only(rule_sets) -> list[str]:
    """The families of these rule sets that have no compiled engine: their reference engine
    plays every game."""
    return sorted({family.name for rules in rule_sets if not (family := family_of(rules)).compiled})


def warm_engines(rule_sets, validation: bool = False, on_compile: Callable[[float, str], None] | None = None,
                 on_damaged: Callable[[str], None] | None = None, played=(),
                 on_reference: Callable[[list[str]], None] | None = None) -> None:
    """Load the machine code of the compiled engines that play `rule_sets` (and with
    `validation` the checks of `validate`) now, so that the work that follows starts at once.
    The first run after installing compiles it; `on_compile(seconds, what)` is called before
    that, with about how long it takes and what compiles (compile_said: `Steal War's engine`).
    A damaged compile cache is discarded and compiled again, `on_damaged(folder)` called first.
    `on_reference(families)` is called once with the families of `rule_sets` and `played` that
    have no compiled engine (their reference engine plays them)."""
    families = reference_only([*rule_sets, *played])
    if families and on_reference is not None:
        on_reference(families)
    warm(on_compile=on_compile, validation=validation, engines=engines_for(rule_sets), on_damaged=on_damaged)


def warm(on_compile: Callable[[float, str], None] | None = None, validation: bool = False,
         engines=None, on_damaged: Callable[[str], None] | None = None) -> None:
    """Load (or compile) the machine code of the engine builds `engines` (engines_for) and the
    encoder (and with `validation` the checks) now, by playing one tiny game on each, so that
    the work that follows starts at once. When they must be compiled first, `on_compile(seconds,
    what)` is called before, with about how long it takes (compile_estimate) and what compiles
    (compile_said), and the compile is shared with a second process (Helper): each compiles the
    builds' steps it claims first into numba's cache (one the other has claimed is waited for
    and loaded, jit.warm.Sharing), then this one the games that call them while the helper
    compiles the encoder; then the checks, in whichever is first done. By default, the builds
    of the default rule set (default_builds). A damaged file of numba's cache is discarded and
    compiled again, `on_damaged(folder)` called first (once)."""
    engines = default_builds() if engines is None else engines
    if not HAVE_NUMBA or not engines:
        return
    from ..engines.compiled.jit import loading

    told, loading.on_damaged = loading.on_damaged, on_damaged or loading.on_damaged
    try:
        _warm(on_compile, validation, engines)
    finally:
        loading.on_damaged = told
    raise_lost_ctrl_c()  # LLVM calls back into Python while numba compiles, and a Ctrl-C there is lost


def _warm(on_compile, validation: bool, engines) -> None:
    seconds = compile_estimate(validation, engines)
    if seconds and on_compile is not None:
        on_compile(seconds, compile_said(missing_builds(engines), validation))
    helper = share = None
    if seconds and not all(build_cached(build) for build in engines):
        try:
            helper = Helper(f"{__name__}:compile_in_helper", engines, validation)
            share = helper.sharing
        except OSError:  # this process compiles it all
            helper = None
    try:
        with share.installed() if share is not None else nullcontext():
            if share is not None:
                compile_steps_of(engines, share)
            played = []
            for build in sorted(engines):
                rules = warm_rules(build)
                played.append((rules, ENGINES[build[0]].play_arrays(rules, 0, 0, 1)))
            if validation and (share is None or share.claim("checks")):  # nobody waits for them: unsaid
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
