"""numba, when it is installed, and how hard LLVM optimises what it compiles.

numba runs LLVM's -O3 pipeline by default. The engines' games and the steps they call compile
with -O1 instead (`njit(quick=True)`, which `borrowing` uses): they run as fast (their
work is loads, stores and branches over small arrays, which -O3 does not vectorise), and a
first run compiles them in less time (docs/decisions.md has the figures). The encoder and the
validation checks keep -O3: their loops over rows do gain from it, and a first run compiles
them in a second process, off the critical path (log.warm).

A NUMBA_OPT set in the environment is the user's choice and wins over both. The level changes
the machine code only, never what it computes: the engines' arithmetic is integer throughout.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

try:  # numba is optional: without it the compiled engines are not used and the reference plays.
    import numba
    from numba.core import config
    from numba.core.compiler import Compiler

    from .linking import linked_library
    from .loading import LOADING, cache_quickly
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    HAVE_NUMBA = False

# LLVM's optimisation level for the engines' games and steps.
QUICK_OPT = 1


@contextmanager
def optimising(level: int):
    """numba's LLVM optimisation level is `level` inside the block (unless NUMBA_OPT is set),
    and what it was after, even when the compile fails."""
    if "NUMBA_OPT" in os.environ:
        yield
        return
    before = config.OPT
    config.OPT = type(before)(level)
    try:
        yield
    finally:
        config.OPT = before


if HAVE_NUMBA:
    class QuickCompiler(Compiler):
        """numba's compiler with LLVM at QUICK_OPT for this function: its own passes, its final
        module's (into which the steps it calls are linked) and those of any function it compiles
        on the way (a plain `njit` one too, such as rng's). numba reads the level each time it
        builds a pass pipeline, under its compile lock. A dispatcher compiles through compile_extra
        only (compile_ir serves code lifted out of object mode, which the engines have none of)."""

        def compile_extra(self, func):
            with optimising(QUICK_OPT):
                return super().compile_extra(func)

    class LinkedCompiler(QuickCompiler):
        """QuickCompiler for a game's step, whose code is only linked into its callers': it is
        compiled into a linking.LinkedLibrary, without module passes or machine code."""

        def compile_extra(self, func):
            if self.state.library is None:
                self.state.library = linked_library(self.state.targetctx, func.__qualname__)
            return super().compile_extra(func)

    def njit(*args, quick: bool = False, linked: bool = False, **options):
        """numba.njit; with `quick`, compiled at QUICK_OPT (QuickCompiler); with `linked` too,
        into code that only its callers link (LinkedCompiler). A cached function loads through
        loading.EngineCache."""
        if linked:
            options["pipeline_class"] = LinkedCompiler
        elif quick:
            options["pipeline_class"] = QuickCompiler
        if not (options.get("cache") and LOADING):
            return numba.njit(*args, **options)
        options["cache"] = False
        compiled = numba.njit(*args, **options)
        if args and callable(args[0]):
            return cache_quickly(compiled)
        return lambda func: cache_quickly(compiled(func))
else:  # pragma: no cover
    def njit(*args, quick: bool = False, linked: bool = False, **options):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f


def borrowing(function=None, *, inline="never", quick=True, entry=False):
    """numba.njit for the game's steps (moves, battle, cycles, game, rng), which never allocate:
    they only read and write the arrays of state.py's structures, which their caller owns.

    They are compiled without reference counting (numba's `_nrt=False`). With it, a function
    that calls another counts a reference to every array of every structure it takes, two
    atomic operations an array and a call, which would cost more than the steps' work.

    A call that is not inlined passes every array of every structure it takes (seven words an
    array or more), so the steps run for every battle or card are inlined into their callers.
    The smallest, run for every card or event, by numba (`inline="always"`): numba then types
    and lowers their code again at each call site. A battle's larger parts (`inline="linked"`:
    the duel, the cards up, the wars, the collect) are compiled once, on their own, and LLVM
    inlines them when their callers link them in (numba's `forceinline`): the game then
    compiles in about 0.6x the time, and a first run compiles them in its two processes
    (log.warm). The encoder's steps (log.compiled_codec), each called once in its pass,
    are linked too: inlined by numba, they made its pass's compile nearly half again as long.
    A war's round is linked too: one battle in seventeen of two seats is a war, and its call
    passed some 270 words of the game's arrays, a fifth of a games-only run's time (linked, a
    first run compiles about a second longer). Those run for a forfeit, a reshuffle or once a
    game are called.

    Every step but the encoder's pass is compiled only as far as its callers need: its LLVM IR,
    without machine code of its own (linking.py).

    The engines' steps compile at LLVM's -O1 (jit.QUICK_OPT); `quick=False` keeps numba's -O3,
    for the encoder's loops over rows, which gain from it.

    Only compiled code calls a step, so numba builds none of the two wrappers through which
    Python (and C) would call it: a wrapper converts every array of every structure the step
    takes, and building them was about a quarter of the steps' compile (docs/decisions.md).
    Such a step crashes the process if Python calls it. `entry=True` keeps Python's wrapper
    (not C's, which nothing calls), for the one step Python calls (the encoder's pass).

    A number passed to a step is an int64 (state.ZERO, not a literal 0): numba compiles a
    called step again for each new type of its arguments, and a literal 0 is a type of its own
    (a test of the first run checks that it compiles nothing for a literal)."""
    wrappers = {"no_cfunc_wrapper": True} if entry else {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
    jit = njit(cache=True, inline="never" if inline == "linked" else inline, forceinline=inline == "linked",
               _nrt=False, quick=quick, linked=not entry, **wrappers)
    return jit if function is None else jit(function)
