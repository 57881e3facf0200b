"""pipeline/engines/compiled/jit/compiler.py: the engines compile at LLVM's -O1, the encoder and
checks at numba's default, and numba's setting is left as it was found; the games' steps
(jit.borrowing) have no wrapper for Python to call them through, and the entry points Python
calls keep theirs."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from numba.core import config  # noqa: E402
from numba.core.compiler import Compiler  # noqa: E402

from pipeline.engines.arneson import compiled as arneson  # noqa: E402
from pipeline.engines.compiled import loop, moves  # noqa: E402
from pipeline.engines.steal import compiled as steal  # noqa: E402
from pipeline.engines.table import battle  # noqa: E402
from pipeline.engines.table import compiled as table  # noqa: E402
from pipeline.engines.compiled.jit.compiler import (  # noqa: E402
    QUICK_OPT, LinkedCompiler, QuickCompiler, njit, optimising,
)
from pipeline.log import compiled_codec, invariants  # noqa: E402
from pipeline.engines.compiled.jit.warm import all_builds, warm_rules  # noqa: E402
from compiledkit import build_id  # noqa: E402


@pytest.fixture
def levels_seen(monkeypatch):
    """The optimisation level numba reads in each compile of this test."""
    monkeypatch.delenv("NUMBA_OPT", raising=False)
    seen = []
    original = Compiler.compile_extra

    def spy(self, func):
        seen.append(int(config.OPT))
        return original(self, func)

    monkeypatch.setattr(Compiler, "compile_extra", spy)
    return seen


def test_quick_functions_compile_at_quick_opt_and_leave_numba_as_it_was(levels_seen):
    before = config.OPT

    @njit(quick=True)
    def quick(x):
        return x + 1

    @njit
    def plain(x):
        return x * 2

    assert (quick(1), plain(2)) == (2, 4)
    assert levels_seen == [QUICK_OPT, int(before)]
    assert config.OPT is before


def test_a_quick_function_compiles_the_plain_one_it_calls_at_its_own_level(levels_seen):
    before = config.OPT

    @njit
    def inner(x):
        return x - 1

    @njit(quick=True)
    def outer(x):
        return inner(x) + 1

    assert outer(5) == 5
    assert levels_seen == [QUICK_OPT, QUICK_OPT]
    assert config.OPT is before


def test_the_level_comes_back_when_a_compile_fails(levels_seen):
    before = config.OPT

    @njit(quick=True)
    def broken(x):
        return x + "card"

    with pytest.raises(Exception):
        broken(1)
    assert config.OPT is before


def test_numba_opt_in_the_environment_wins(monkeypatch):
    monkeypatch.setenv("NUMBA_OPT", "2")
    before = config.OPT
    with optimising(QUICK_OPT):
        assert config.OPT is before
    monkeypatch.delenv("NUMBA_OPT")
    with optimising(QUICK_OPT):
        assert int(config.OPT) == QUICK_OPT
    assert config.OPT is before


@pytest.mark.parametrize("dispatcher, quick, linked", [
    (loop.play_games, True, False), (loop.play_game, True, True), (loop.deal, True, True),
    (table.battle, True, True), (battle.war_round, True, True), (battle.settle, True, True),
    (moves.reshuffle, True, True), (steal.battle, True, True), (arneson.battle, True, True),
    (compiled_codec.encode_pass, False, False), (invariants.balance, False, False),
])
def test_engines_compile_quick_and_the_encoder_and_checks_do_not(dispatcher, quick, linked):
    """The games' entry points compile quick; the steps below them quick and only to be linked
    (engines.compiled.linking); the encoder and checks as numba does."""
    pipeline_class = dispatcher._compiler.pipeline_class
    assert issubclass(pipeline_class, QuickCompiler) is quick
    assert (pipeline_class is LinkedCompiler) is linked


def _python_wrapper(dispatcher) -> list[int]:
    """The address of the wrapper Python calls each compiled version of `dispatcher` through
    (0: numba built none)."""
    return [o.library.get_pointer_to_function(o.fndesc.llvm_cpython_wrapper_name) for o in dispatcher.overloads.values()]


@pytest.mark.parametrize("build", all_builds(), ids=build_id)
def test_steps_have_no_python_wrapper_and_the_entries_do(build):
    """Only compiled code calls a step, so numba builds no wrapper for Python to call it through
    (building them was a quarter of the steps' compile); play_games and the encoder's pass,
    which Python calls, keep theirs."""
    from pipeline.engines.compiled.jit.warm import called, compile_steps, with_parts
    from pipeline.log.compiled_codec import encode_pass
    from pipeline.engines.choice import ENGINES
    from pipeline.log.warm import warm

    warm(engines=(build,))  # loads the build's games and the encoder's pass
    module = ENGINES[build[0]]
    steps = list(module.STEPS)
    structures = with_parts(module.structures(warm_rules(build)))
    compile_steps(steps, structures)
    for step in steps:
        wrappers = _python_wrapper(step)
        assert (wrappers or not called(step, structures)) and not any(wrappers), step.py_func.__name__
    for entry in (module.play_games, encode_pass):
        assert _python_wrapper(entry) and all(_python_wrapper(entry)), entry.py_func.__name__
