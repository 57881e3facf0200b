"""pipeline/engines/compiled/jit/loading.py: machine code read from numba's cache runs without
numba importing its typing and lowering rules first, and a compile after such a load still finds
them."""

from __future__ import annotations

import textwrap

import pytest

pytest.importorskip("numba")

from rulekit import run_fresh  # noqa: E402
from pipeline.engines.compiled.jit import loading  # noqa: E402
from pipeline.engines.compiled.jit import njit  # noqa: E402

# A cached function that allocates and returns an array (so its code needs numba's runtime), and
# one that is never cached and needs numba's lowering rules of NumPy functions to compile.
FUNCTIONS = textwrap.dedent('''
    import numpy as np
    from pipeline.engines.compiled.jit import njit

    @njit(cache=True)
    def squares(n):
        out = np.empty(n, np.int64)
        for i in range(n):
            out[i] = i * i
        return out

    @njit
    def total(values):
        return np.sum(values) + np.max(values)
''')

RUN = textwrap.dedent('''
    import json, sys
    import functions
    first = functions.squares(6).tolist()
    rules_loaded = "numba.np.arraymath" in sys.modules
    second = int(functions.total(functions.squares(6)))
    print(json.dumps({"squares": first, "total": second, "rules_loaded": rules_loaded,
                      "cache_hits": sum(functions.squares.stats.cache_hits.values()),
                      "cache": type(functions.squares._cache).__name__}))
''')


def run(tmp_path) -> dict:
    return run_fresh(tmp_path, RUN)


def test_loading_is_on_with_the_numba_installed():
    """The numba the project installs has the cache loading.py reaches into: when it moves, this
    fails rather than every command quietly starting half a second slower."""
    assert loading.LOADING


def test_a_cached_function_loads_through_the_engine_cache():
    @njit(cache=True)
    def double(x):
        return 2 * x

    @njit
    def triple(x):
        return 3 * x

    assert type(double._cache) is loading.EngineCache
    assert type(triple._cache).__name__ == "NullCache"


def test_code_from_the_cache_runs_without_the_rules_and_a_compile_after_it_finds_them(tmp_path):
    """The first process compiles (and so loads every rule); the second reads `squares` from the
    cache, runs it before any rule is imported, then compiles `total`, which needs NumPy's
    rules: numba loads them for that compile."""
    (tmp_path / "functions.py").write_text(FUNCTIONS)
    compiled = run(tmp_path)
    assert compiled["cache_hits"] == 0 and compiled["cache"] == "EngineCache"
    loaded = run(tmp_path)
    assert loaded["cache_hits"] == 1
    assert loaded["squares"] == compiled["squares"] == [i * i for i in range(6)]
    assert not loaded["rules_loaded"]
    assert loaded["total"] == compiled["total"] == sum(i * i for i in range(6)) + 25
