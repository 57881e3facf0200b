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
import sys
from contextlib import contextmanager



def _without_yaml():
    """Hide PyYAML while numba imports, when there is no `.numba_config.yaml` in this folder for
    it to read: numba's config imports yaml only to read that file (0.01 - 0.02 s of every
    command that plays), and reads it again only if asked to reload its configuration. Any
    other `import yaml` afterwards (a plugin's) finds it as before."""
    hide = "yaml" not in sys.modules and "numba" not in sys.modules and not os.path.exists(".numba_config.yaml")
    if hide:
        sys.modules["yaml"] = None  # an import of it raises ImportError
    return hide


def _yaml_back(hidden: bool) -> None:
    if hidden and "yaml" in sys.modules and sys.modules["yaml"] is None:
        del sys.modules["yaml"]


_hidden = _without_yaml()
try:  # numba is optional: without it the compiled engines are not used and the reference plays.
    import numba
    from numba.core import config
    from numba.core.compiler import Compiler

    from .linking import linked_library
    from .loading import LOADING, cache_quickly
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    HAVE_NUMBA = False
finally:
    _yaml_back(_hidden)

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

    # The jit options of an overload that numba inlines and whose code only calls a step (the
    # loop's family steps): numba compiles such an implementation whole to type its call,
    # module passes and machine code included, then inlines its IR and throws the rest away
    # (more than a second of each build's first compile, the step's linked code optimised and
    # translated for nothing): compiled as a step, it stops at its IR.
    INLINED_CALL = {"_nrt": False, "pipeline_class": LinkedCompiler, "no_cpython_wrapper": True,
                    "no_cfunc_wrapper": True}

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
    INLINED_CALL = {}

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
    array or more), so the steps run for every battle or card are inlined into their callers:
    `inline="linked"` (the moves of a card, an event's row, the duel, the wars, the collect)
    compiles a step once, on its own, and LLVM inlines it where its callers link it in
    (numba's `forceinline`). numba's own inlining (`inline="always"`) types, lowers and copies
    a step's code again at every call site; linked, a first run compiles a build in about 0.6x
    the CPU (docs/compiling.md has the figures), and the machine code is the same. Those run for
    a forfeit, a reshuffle or once a game are called (`inline="never"`).

    Every step but the encoder's pass is compiled only as far as its callers need: its LLVM IR,
    without machine code of its own (linking.py).

    The engines' steps compile at LLVM's -O1 (jit.QUICK_OPT); `quick=False` keeps numba's -O3,
    for the encoder's loops over rows, which gain from it.

    Only compiled code calls a step, so numba builds none of the two wrappers through which
    Python (and C) would call it: a wrapper converts every array of every structure the step
    takes, and building them was about a quarter of the steps' compile (docs/decisions.md).
    Such a step crashes the process if Python calls it. `entry=True` keeps Python's wrapper
    (not C's, which nothing calls), for the one step Python calls (the encoder's pass).

    A number a step is called with is typed as a plain number, never as the literal the caller
    wrote (plain_numbers): numba would compile a step again for each constant passed to it (an
    event's kind: the event step fourteen times), where LLVM folds the constant once it inlines
    the step. A number a step is called with should be an int64 (state.ZERO, not 0), the type a
    first run's helper compiles it for (jit.warm.step_types)."""
    wrappers = {"no_cfunc_wrapper": True} if entry else {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
    jit = njit(cache=True, inline="never" if inline == "linked" else inline, forceinline=inline == "linked",
               _nrt=False, quick=quick, linked=not entry, **wrappers)

    def step(f):
        dispatcher = jit(f) if entry or not HAVE_NUMBA else plain_numbers(jit(f))
        ALL_STEPS.append(dispatcher)
        return dispatcher

    return step if function is None else step(function)


# Every step `borrowing` has made, in the order they were made: a first run's two processes
# share their compiles (jit.warm.Sharing).
ALL_STEPS: list = []


def plain_numbers(dispatcher):
    """`dispatcher`, typed at its calls from compiled code with the literal types of the
    arguments made plain (numba's `types.unliteral`: Literal[int](3) is int64), so that it
    compiles once for every constant it is called with. This replaces the dispatcher's
    `get_call_template` (through which numba's typing asks a dispatcher for the signature of a
    call) on the instance; a dispatcher without it is left as it is (a test fails)."""
    plain = getattr(dispatcher, "get_call_template", None)
    if plain is None:
        return dispatcher
    from numba.core.types import unliteral

    def get_call_template(args, kws):
        return plain(tuple(unliteral(a) for a in args), {k: unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher
