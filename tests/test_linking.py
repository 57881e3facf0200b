"""pipeline/engines/compiled/jit/linking.py: a game's steps are compiled into LLVM IR for their
callers to link, with no machine code of their own; numba's cache keeps and gives back that IR;
the code that links them computes what it did."""

from __future__ import annotations

import textwrap

import pytest

pytest.importorskip("numba")

from rulekit import run_fresh  # noqa: E402
from pipeline.engines.compiled.jit import linking  # noqa: E402

# A module of two steps and the entry points that call them, as an engine is built: compiled
# in a fresh process (numba caches a function of a file only), run with a cache directory.
STEPS = textwrap.dedent('''
    import numpy as np
    from pipeline.engines.compiled.jit import njit
    from pipeline.engines.compiled.jit import borrowing

    @borrowing(inline="linked")
    def add_card(pile, card):
        pile[0] += card

    @borrowing
    def add_cards(pile, cards):
        for i in range(cards.shape[0]):
            add_card(pile, cards[i] + 1)

    @njit(cache=True, quick=True)
    def total(cards):
        pile = np.zeros(1, np.int64)
        add_cards(pile, cards)
        return pile[0]

    @njit(cache=True, quick=True)
    def total_twice(cards):
        pile = np.zeros(1, np.int64)
        add_cards(pile, cards)
        add_cards(pile, cards)
        return pile[0]
''')

RUN = textwrap.dedent('''
    import json, re, sys
    import numpy as np
    import steps
    entry = getattr(steps, sys.argv[1])
    cards = np.arange(5, dtype=np.int64)
    result = int(entry(cards))
    step = next(iter(steps.add_cards.overloads.values()), None)  # none: the entry came from the cache
    entry_code = next(iter(entry.overloads.values()))
    ir = "" if sum(entry.stats.cache_hits.values()) else entry.inspect_llvm(entry.signatures[0])
    print(json.dumps({
        "result": result,
        "step_library": step and type(step.library).__name__,
        "step_machine_code": step and step.library.get_pointer_to_function(step.fndesc.mangled_name),
        "step_from_cache": sum(steps.add_cards.stats.cache_hits.values()),
        "entry_machine_code": entry_code.library.get_pointer_to_function(entry_code.fndesc.mangled_name),
        "calls_add_card": bool(re.search(r"call [^\\n]*add_card[^s]", ir)),
        "compiled_ir": bool(ir),
    }))
''')


def run(tmp_path, entry: str) -> dict:
    return run_fresh(tmp_path, RUN, entry)


def test_linking_is_on_with_the_numba_installed():
    """The numba the project installs has the code libraries linking.py reaches into: when one
    moves, this fails rather than steps quietly compiling their machine code again."""
    assert linking.LINKING


def test_a_step_is_linked_into_its_caller_and_has_no_machine_code_of_its_own(tmp_path):
    (tmp_path / "steps.py").write_text(STEPS)
    first = run(tmp_path, "total")
    assert first["result"] == sum(range(1, 6))
    assert first["step_library"] == "LinkedLibrary" and first["step_machine_code"] == 0
    assert first["entry_machine_code"] != 0
    assert first["compiled_ir"] and not first["calls_add_card"]  # inlined by LLVM: numba's forceinline


def test_a_step_from_the_cache_links_into_a_new_caller(tmp_path):
    """A second process compiles a new entry point that calls the step: the step comes from
    numba's cache as its IR (a LinkedLibrary still), and the code that links it runs right."""
    (tmp_path / "steps.py").write_text(STEPS)
    run(tmp_path, "total")
    second = run(tmp_path, "total_twice")
    assert second["result"] == 2 * sum(range(1, 6))
    assert second["step_from_cache"] == 1
    assert second["step_library"] == "LinkedLibrary" and second["step_machine_code"] == 0
    again = run(tmp_path, "total")
    assert again["result"] == sum(range(1, 6))
    assert not again["compiled_ir"] and again["step_library"] is None  # the entry point from the cache, alone
