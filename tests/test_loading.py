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


ECHO = textwrap.dedent('''
    from pipeline.engines.compiled.jit import njit

    @njit(cache=True)
    def echo(x):
        return x
''')

# Save one signature of `echo`, pausing inside numba's save after it has read the index (until
# the file `go` appears, or 3 s): a second process saving another signature meanwhile must wait
# for the first to finish (loading.EngineCache's lock), or it picks the same data file.
SAVE = textwrap.dedent('''
    import json, os, sys, time
    from numba.core.caching import IndexDataCacheFile
    import functions
    me, kind = sys.argv[1], sys.argv[2]
    if me == "first":
        plain = IndexDataCacheFile._save_index
        def paused(self, overloads):
            open("paused", "w").close()
            deadline = time.monotonic() + 3
            while not os.path.exists("go") and time.monotonic() < deadline:
                time.sleep(0.02)
            plain(self, overloads)
        IndexDataCacheFile._save_index = paused
    else:
        while not os.path.exists("paused"):
            time.sleep(0.02)
    value = functions.echo(3 if kind == "int" else 2.5)
    if me == "second":
        open("go", "w").close()
    print(json.dumps(value))
''')

LOAD = textwrap.dedent('''
    import json
    import functions
    print(json.dumps([functions.echo(7), functions.echo(0.5), sum(functions.echo.stats.cache_hits.values())]))
''')


def test_two_processes_saving_one_function_at_once_keep_both_signatures(tmp_path):
    """numba picks a data file name from the index it read: two processes that save two
    signatures of one function at once took the same name, and one signature then loaded the
    other's machine code. Under loading.EngineCache's lock the second waits: a third process
    loads both from the cache, each returning what it was given."""
    import json
    import os
    import subprocess
    import sys

    (tmp_path / "functions.py").write_text(ECHO)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    first = subprocess.Popen([sys.executable, "-c", SAVE, "first", "int"], cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, text=True)
    second = subprocess.Popen([sys.executable, "-c", SAVE, "second", "float"], cwd=tmp_path, env=env,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(first.communicate(timeout=300)[0]) == 3
        assert json.loads(second.communicate(timeout=300)[0]) == 2.5
    finally:
        for process in (first, second):
            process.kill()
            process.wait()
    assert run_fresh(tmp_path, LOAD) == [7, 0.5, 2]


def test_a_second_checkout_of_the_same_code_loads_what_the_first_compiled(tmp_path):
    """The compiled engines are kept once per user and version of the code, not per checkout
    (issue 51 item 7): a second copy of the same package, elsewhere, runs without compiling and
    writes no cache of its own; a copy whose compiled code differs by one comment keys its cache
    by another version, so it never runs machine code of other sources."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from clikit import COMPILING

    package = Path(__file__).resolve().parents[1] / "pipeline"
    env = {**os.environ, "WAR_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)

    def checkout(name: str) -> Path:
        shutil.copytree(package, tmp_path / name / "pipeline", ignore=shutil.ignore_patterns("__pycache__"))
        return tmp_path / name

    def run(root: Path, *args: str) -> subprocess.CompletedProcess:
        done = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=root, timeout=600,
                              env={**env, "PYTHONPATH": str(root)})
        assert done.returncode == 0, done.stderr
        return done

    def generate(root: Path) -> list[str]:
        err = run(root, "-m", "pipeline.cli", "generate", "--games", "5", "--out", str(root / "out"), "-q").stderr
        return [line for line in err.splitlines() if COMPILING.fullmatch(line)]

    first, second, edited = checkout("first"), checkout("second"), checkout("edited")
    assert generate(first), "an empty cache compiles, and says so"
    assert generate(second) == []
    assert not list(second.rglob("*.nb[ci]")) and not list(first.rglob("*.nb[ci]"))
    versions = {path.name for path in (tmp_path / "cache" / "engines").iterdir() if path.name != "runtime"}
    assert len(versions) == 1  # and numba's runtime, kept apart of any version (loading.start_runtime)
    assert list((tmp_path / "cache" / "engines" / "runtime").glob("nrt-*.nbo"))

    moves = edited / "pipeline" / "engines" / "compiled" / "moves.py"
    moves.write_text(moves.read_text(encoding="utf-8") + "\n# one comment more\n", encoding="utf-8")
    stamp = "from pipeline.engines.compiled.jit import loading; print(loading.source_stamp())"
    assert run(edited, "-c", stamp).stdout != run(second, "-c", stamp).stdout


def test_the_runtime_is_loaded_from_the_cache_and_a_damaged_one_compiled_again(tmp_path):
    """numba's runtime (NRT) is compiled once and its machine code kept beside the engines'
    (loading.start_runtime); later processes load it, a damaged file is compiled and kept again,
    and the functions that need it answer alike each time."""
    assert loading.RUNTIME
    (tmp_path / "functions.py").write_text(FUNCTIONS)
    runs = [run(tmp_path), run(tmp_path)]  # compiles `squares`, then loads it (and keeps the runtime)
    kept = list((tmp_path / "cache").rglob("nrt-*.nbo"))
    assert len(kept) == 1
    runs.append(run(tmp_path))  # the runtime from the cache
    kept[0].write_bytes(b"not a pickle")
    runs.append(run(tmp_path))  # damaged: compiled and kept again
    assert kept[0].read_bytes() != b"not a pickle"
    runs.append(run(tmp_path))
    for done in runs:
        assert done["squares"] == [i * i for i in range(6)] and done["total"] == 55 + 25
    assert [(done["cache_hits"], done["rules_loaded"]) for done in runs[1:]] == [(1, False)] * 4
