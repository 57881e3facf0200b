"""numba, when it is installed, and how hard LLVM optimises what it compiles.

numba runs LLVM's -O3 pipeline by default. The engines' games and the steps they call compile
with -O1 instead (`njit(quick=True)`, which `state.borrowing` uses): they run as fast (their
work is loads, stores and branches over small arrays, which -O3 does not vectorise), and a
first run compiles them in less time (docs/decisions.md has the figures). The encoder and the
validation checks keep -O3: their loops over rows do gain from it, and a first run compiles
them in a second process, off the critical path (log.shard.warm).

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
