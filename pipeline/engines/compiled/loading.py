"""Loading the engines' machine code from numba's cache without building numba's compiler first.

Before it reads a function's machine code from its cache, numba refreshes its target context:
it imports its whole library of typing and lowering rules (about 300 modules: NumPy's functions,
typed containers, random generators, ...) and installs them in its typing and lowering tables.
Code read from the cache needs none of it: it has been typed and lowered already, and it calls
only numba's runtime (NRT), which is set up here. That refresh was 0.2 s to 0.5 s of every
command that loads the engine (`war generate`, `validate`, `replay`, `demo`; validation loads
more), a large part of the start-up that two workers wait for before they fork.

A compile still refreshes both tables first (numba's compiler does so itself), and so does a
lowering that misses a rule; so a function the cache does not hold compiles as before.

This reaches into numba's cache (numba.core.caching), which is not a public API. When it is not
as this module expects, LOADING is False and functions load as numba loads them;
tests/test_loading.py says which."""

from __future__ import annotations

import hashlib
from pathlib import Path

try:
    from numba.core.caching import FunctionCache
    from numba.core.runtime import rtsys

    LOADING = all(hasattr(FunctionCache, name) for name in
                  ("load_overload", "_load_overload", "_guard_against_spurious_io_errors"))
except ImportError:  # pragma: no cover - without numba nothing compiles
    LOADING = False


def source_stamp() -> str:
    """A hash of the modification time and size of every source file of the compiled code (the
    engines and the log's compiled encoder and checks): numba keys a cached function by its own
    file only, but the loop's machine code holds every family's steps, from other files."""
    global _STAMP
    if _STAMP is None:
        root = Path(__file__).resolve().parents[2]
        stamps = sorted((str(p.relative_to(root)), p.stat().st_mtime_ns, p.stat().st_size)
                        for folder in ("engines", "log") for p in (root / folder).rglob("*.py"))
        _STAMP = hashlib.sha256(repr(stamps).encode()).hexdigest()
    return _STAMP


_STAMP: str | None = None


if LOADING:
    class EngineCache(FunctionCache):
        """numba's cache of one function, whose loads start the runtime instead of refreshing
        the whole target context, and whose entries are keyed by the whole compiled code's
        sources (source_stamp), so that an edited step is never run from an older cache."""

        def _index_key(self, sig, codegen):
            key = super()._index_key(sig, codegen)
            return key[:2] + (tuple(key[2]) + (source_stamp(),),)

        def load_overload(self, sig, target_context):
            rtsys.initialize(target_context)
            with self._guard_against_spurious_io_errors():
                return self._load_overload(sig, target_context)


def cache_quickly(dispatcher):
    """Turn on numba's cache for `dispatcher` (a numba dispatcher compiled with cache=False),
    as its enable_caching would, with an EngineCache; returns it."""
    if LOADING and hasattr(dispatcher, "enable_caching"):
        dispatcher._cache = EngineCache(dispatcher.py_func)
    return dispatcher
