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

The machine code is kept once per user and version of the code (`CodeCache`: war's per-user
cache, keyed by the contents of the compiled code's sources), not in each checkout's
`__pycache__`, so that a second clone loads what the first compiled.

numba's runtime itself (NRT: its reference counts and its memory's bookkeeping, a dozen small
functions) is compiled by LLVM in every process that starts it, the first compile of that
process: 0.05 - 0.1 s, a tenth of `war generate`'s start-up. Its machine code is kept in the
same cache (`start_runtime`, keyed by numba's and llvmlite's versions and the machine LLVM
compiles for) and loaded as numba loads a cached function's.

This reaches into numba's cache (numba.core.caching) and its runtime (numba.core.runtime), which
are not a public API. When they are not as this module expects, LOADING (or LOCATING, or
RUNTIME) is False and functions load (or are kept, or the runtime starts) as numba does it;
tests/test_loading.py says which."""

from __future__ import annotations

import glob
import hashlib
import os
import pickle
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from ....places import contents_digest, keep, user_cache

try:
    from numba.core import config
    from numba.core.caching import FunctionCache, IndexDataCacheFile
    from numba.core.runtime import rtsys

    LOADING = all(hasattr(FunctionCache, name) for name in
                  ("load_overload", "_load_overload", "_guard_against_spurious_io_errors"))
except ImportError:  # pragma: no cover - without numba nothing compiles
    LOADING = False

PACKAGE = Path(__file__).resolve().parents[3]  # pipeline/


def source_stamp() -> str:
    """A hash of the contents of every source file of the compiled code (the engines and the
    log's compiled encoder and checks) and of the model it reads its codes from (the event kinds'
    order, model.kind and the families' declarations): numba keys a cached function by its own
    file only, but the loop's machine code holds every family's steps, from other files. By
    content, not by modification time, so that every checkout of the same code shares one cache."""
    global _STAMP
    if _STAMP is None:
        sources = [p for folder in ("engines", "log", "model", "solve") for p in (PACKAGE / folder).rglob("*.py")]
        # and the compiled kernels outside those folders: the event copies' and the CSV writer's
        sources += [PACKAGE / "jobs" / "query" / "event_decode.py", PACKAGE / "present" / "csv_kernel.py",
                    PACKAGE / "present" / "csv_kinds.py"]
        _STAMP = contents_digest(PACKAGE, sources).hexdigest()
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
            start_runtime(target_context)
            with self._guard_against_spurious_io_errors():
                return self._load_overload(sig, target_context)

        def save_overload(self, sig, data):
            """numba's save of a compiled signature, under an exclusive lock beside the
            function's index. numba reads the index, picks the first data file name it does not
            list, then writes both: two processes saving two signatures of one function at once
            (a first run's two processes, two test workers on an empty cache) picked the same
            name, and one signature's index entry then led to the other's machine code."""
            self._impl.locator.ensure_cache_path()
            with _locked(self._cache_file._index_path + ".lock"):
                super().save_overload(sig, data)


try:
    from llvmlite import binding as llvm
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.runtime import _nrt_python, nrtdynmod

    RUNTIME = LOADING and hasattr(rtsys, "_init") and hasattr(type(rtsys), "library") and hasattr(rtsys, "initialize") and \
        hasattr(nrtdynmod, "create_nrt_module") and isinstance(getattr(_nrt_python, "c_helpers", None), dict)
except ImportError:  # pragma: no cover
    RUNTIME = False


def runtime_file(target_context) -> Path:
    """Where the runtime's machine code for this numba, llvmlite and machine is kept."""
    import llvmlite
    import numba

    what = repr((sys.implementation.cache_tag, numba.__version__, llvmlite.__version__,
                 target_context.codegen().magic_tuple()))
    return engines_cache() / "runtime" / f"nrt-{hashlib.sha256(what.encode()).hexdigest()[:20]}.nbo"


def start_runtime(target_context) -> None:
    """numba's runtime started, as rtsys.initialize starts it (its C helpers named to LLVM, its
    functions' library made), its functions' machine code loaded from war's cache rather than
    compiled; compiled and kept there when missing or unreadable."""
    if not RUNTIME:
        rtsys.initialize(target_context)
        return
    if rtsys._init:
        return
    with global_compiler_lock:
        if rtsys._init:
            return
        if config.NRT_STATS:
            _nrt_python.memsys_enable_stats()
        for name, address in _nrt_python.c_helpers.items():  # as rtsys.initialize names them
            llvm.add_symbol(name if name.startswith("_") else "NRT_" + name, address)
        path = runtime_file(target_context)
        codegen = target_context.codegen()
        library = None
        try:
            library = codegen.unserialize_library(pickle.loads(path.read_bytes()))
        except (OSError, *DAMAGED):
            library = None
        if library is None:
            module, library = nrtdynmod.create_nrt_module(target_context)
            library.enable_object_caching()
            library.add_ir_module(module)
            library.finalize()
            keep(path, pickle.dumps(library.serialize_using_object_code(), protocol=pickle.HIGHEST_PROTOCOL))
        rtsys._library = library
        rtsys._init = True


@contextmanager
def _locked(path: str):
    """An exclusive flock on the file at `path` (made if missing) for the block; no lock where
    there is no flock (Windows) or the file cannot be made."""
    try:
        import fcntl

        f = open(path, "a")
    except (ImportError, OSError):  # pragma: no cover
        yield
        return
    with f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def cache_quickly(dispatcher):
    """Turn on numba's cache for `dispatcher` (a numba dispatcher compiled with cache=False),
    as its enable_caching would, with an EngineCache; returns it."""
    if LOADING and hasattr(dispatcher, "enable_caching"):
        dispatcher._cache = EngineCache(dispatcher.py_func)
    return dispatcher


# What reading a damaged cache file raises: pickle's errors on a cut or scribbled file, and what
# unpickling objects of the wrong shape raises.
DAMAGED = (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError, IndexError,
           KeyError, MemoryError, UnicodeDecodeError)

on_damaged: Callable[[str], None] | None = None  # told the folder of the first damaged cache file found
_said = False


def _discard(cache_file, path: str) -> None:
    """Remove a damaged cache file: the index and every data file of its function (numba
    compiles the function again and writes them anew), saying so once a process."""
    global _said
    base = cache_file._index_path[:-len(".nbi")]
    for name in [cache_file._index_path, path, *glob.glob(glob.escape(base) + ".*.nbc")]:
        try:
            os.remove(name)
        except OSError:
            pass
    if not _said and on_damaged is not None:
        _said = True
        on_damaged(os.path.dirname(path))


def _guard_cache_files() -> None:
    """A damaged file of numba's cache (cut short by a full disk or a kill, or scribbled over)
    is discarded and its function compiled again, instead of failing every command with an
    UnpicklingError: numba reads a cache file it finds with pickle and lets its errors through.
    This wraps numba's IndexDataCacheFile (not a public API), when it is as expected."""
    load_index, load_data = getattr(IndexDataCacheFile, "_load_index", None), getattr(IndexDataCacheFile, "_load_data", None)
    if load_index is None or load_data is None or getattr(load_index, "guarded", False):
        return

    def guarded_index(self):
        try:
            return load_index(self)
        except DAMAGED:
            _discard(self, self._index_path)
            return {}

    def guarded_data(self, name):
        try:
            return load_data(self, name)
        except DAMAGED:
            _discard(self, self._data_path(name))
            raise OSError(f"damaged cache file {name} discarded") from None  # load() takes it as a miss

    guarded_index.guarded = True
    IndexDataCacheFile._load_index = guarded_index
    IndexDataCacheFile._load_data = guarded_data


if LOADING:
    _guard_cache_files()


# ---------------------------------------------------------------- where the cache is

try:
    from numba.core.caching import CacheImpl, _CacheLocator

    LOCATING = isinstance(getattr(CacheImpl, "_locator_classes", None), list)
except ImportError:  # pragma: no cover - without numba nothing compiles
    LOCATING = False


def engines_cache() -> Path:
    """The folder of war's compiled code: under NUMBA_CACHE_DIR when it is set (a user's or a
    test's own cache), else in war's per-user cache (places.user_cache)."""
    chosen = config.CACHE_DIR if LOCATING else os.environ.get("NUMBA_CACHE_DIR", "")
    return Path(chosen) / "war" if chosen else user_cache() / "engines"


if LOCATING:
    class CodeCache(_CacheLocator):
        """Where numba keeps a compiled function of war's: one folder a version of the code (by
        source_stamp, the contents of every source the machine code holds), so that a second
        clone or checkout of the same code loads what the first compiled, and an edited one
        compiles into a folder of its own. numba's own locators key the cache by the file's path
        and modification time, so every checkout compiled everything again (not a public API:
        numba.core.caching; a function outside war, or a cache folder that cannot be written,
        falls through to numba's own locators)."""

        def __init__(self, py_func, py_file: str) -> None:
            self._lineno = py_func.__code__.co_firstlineno
            folder = Path(py_file).resolve().parent.relative_to(PACKAGE)
            version = f"{sys.implementation.cache_tag}-{source_stamp()[:20]}"
            self._cache_path = str(engines_cache() / version / folder)

        def get_cache_path(self) -> str:
            return self._cache_path

        def get_source_stamp(self) -> str:
            return source_stamp()

        def get_disambiguator(self) -> str:
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            try:
                Path(py_file).resolve().relative_to(PACKAGE)
            except (ValueError, OSError):
                return None  # not war's: numba's own locators
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:
                return None  # no writable cache folder: numba's own (the checkout's __pycache__)
            return self

    if CodeCache not in CacheImpl._locator_classes:
        CacheImpl._locator_classes.insert(0, CodeCache)
