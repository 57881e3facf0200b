"""The fast paths are taken, with the numba, llvmlite, DuckDB and pyarrow that pyproject.toml pins:
every built-in variant's games are played by its compiled engine; the compile plumbing
(engines/compiled/jit, docs/compiling.md) reaches numba's internals as it expects; and a second
process loads every compiled function from numba's cache, compiling nothing, without numba's
typing and lowering rules, and plays on the compiled engine. A release that moves what they
depend on makes one of these fail, rather than a command quietly running slower."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pipeline.engines.choice import compiled_engine
from pipeline.engines.compiled.jit import linking, loading
from pipeline.model.rules import build_rules
from pipeline.model.families import registry

# A second process's `war generate` of every family, then what numba did in it: for each compiled
# function of the project, how many versions it compiled (cache misses) and loaded from the
# cache (hits); whether numba imported its rules for NumPy's functions (a compile does), and
# whether the reference engine played a game.
SECOND_RUN = """
import json, sys
import numba
import pipeline.log.shard as shard
played = []
reference = shard.play_range
shard.play_range = lambda *a, **k: played.append(a[0].variant) or reference(*a, **k)
from pipeline.cli import main
try:
    main(["generate", "-v", "classic", "-v", "steal", "-v", "arneson", "--games", "30", "--out", sys.argv[1]])
except SystemExit as done:
    assert not done.code, done.code
dispatchers = {f"{d.py_func.__module__}.{d.py_func.__qualname__}": d for m in list(sys.modules.values())
               if getattr(m, "__name__", "").startswith("pipeline.")
               for d in vars(m).values() if isinstance(d, numba.core.dispatcher.Dispatcher)}
print(json.dumps({
    "compiled": {n: sum(d.stats.cache_misses.values()) for n, d in dispatchers.items() if d.stats.cache_misses},
    "loaded": sum(sum(d.stats.cache_hits.values()) for d in dispatchers.values()),
    "rules_loaded": "numba.np.arraymath" in sys.modules,
    "reference_played": played,
}))
"""


@pytest.mark.parametrize("variant", list(registry(outside=False).variants))
def test_every_built_in_variant_plays_on_its_compiled_engine(variant):
    assert os.environ.get("WAR_ENGINE") != "reference"
    assert compiled_engine(build_rules(variant)) is not None


def test_the_plumbing_reaches_numbas_internals():
    """linking.py's code libraries and loading.py's cache are as they expect (else each turns
    itself off, and steps compile whole, or every command loads numba's rules first)."""
    assert linking.LINKING and loading.LOADING


def test_a_second_run_compiles_nothing_and_loads_without_numbas_rules(tmp_path):
    """Once the cache holds the engines (this process warms it), a new `war generate` of the
    three families loads every compiled function from numba's cache, compiles none, never
    imports numba's typing rules, and plays no game on the reference engine."""
    from pipeline.engines.compiled.jit.warm import all_builds
    from pipeline.log.warm import warm

    warm(engines=set(all_builds()), validation=True)
    run = subprocess.run([sys.executable, "-c", SECOND_RUN, str(tmp_path / "d")], capture_output=True, text=True,
                         env={k: v for k, v in os.environ.items() if k != "WAR_ENGINE"})
    assert run.returncode == 0, run.stderr
    said = json.loads(run.stdout.splitlines()[-1])
    assert said["compiled"] == {} and said["loaded"] > 0
    assert not said["rules_loaded"]
    assert said["reference_played"] == []
    assert "compiling" not in run.stderr
