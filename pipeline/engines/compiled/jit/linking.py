"""A game's steps compiled only as far as their callers need: LLVM IR to link, no machine code.

numba finalises every function it compiles: it links in the code of the functions it calls,
runs LLVM's module passes over the whole, and translates it into machine code, which its cache
stores with the IR. A step of a game (`jit.borrowing`, without Python's wrappers) is never run
on its own: Python cannot call it, and each caller links the step's IR into its own module,
optimises the whole again and makes its own machine code. So a step's module passes and
machine code were thrown away, about a sixth of a first run's compile of an engine.

A step compiled by `LinkedCompiler` gets a `LinkedLibrary`: finalising it links in what it
calls and stops. numba's cache stores its IR alone (kind LINKED), and `EngineLibrary`, the class
numba's JIT makes its code libraries of once this module is imported, reads that back. The
games' entry points (each engine's `play_games`) and the encoder are compiled as before.

This reaches into numba's code libraries (numba.core.codegen), which are not a public API. When
they are not as this module expects, LINKING is False and steps compile as numba would;
tests/test_linking.py says which."""

from __future__ import annotations

LINKED = "linked"  # the kind of a LinkedLibrary in numba's cache

try:
    from llvmlite import binding as llvm
    from numba.core import codegen as numba_codegen

    _NEEDED = ("_optimize_final_module", "_finalize_final_module", "_finalize_dynamic_globals",
               "_get_module_for_linking", "_unserialize", "serialize_using_object_code", "enable_object_caching")
    LINKING = (all(hasattr(numba_codegen.JITCodeLibrary, name) for name in _NEEDED)
               and getattr(numba_codegen.JITCPUCodegen, "_library_class", None) is numba_codegen.JITCodeLibrary)
except ImportError:  # pragma: no cover - without numba nothing compiles
    LINKING = False


if LINKING:
    class _NoEnvironment:
        """A step's codegen, as numba's lowering sees it: numba points each function's
        environment variable at its environment in the machine code, which a step has none of
        (its code runs inside its callers', which have their own)."""

        def __init__(self, codegen):
            self._codegen = codegen

        def set_env(self, env_name, env):
            pass

        def __getattr__(self, name):
            return getattr(self._codegen, name)

    class LinkedLibrary(numba_codegen.JITCodeLibrary):
        """The code of a step: its own IR and what it calls, linked, and nothing more."""

        @property
        def codegen(self):
            return _NoEnvironment(self._codegen)

        def _optimize_final_module(self):
            """Its callers optimise it, linked into their own modules."""

        def _finalize_final_module(self):
            self._finalize_dynamic_globals()
            self._finalized = True

        def serialize_using_object_code(self):
            return self.name, LINKED, self._get_module_for_linking().as_bitcode()

        @classmethod
        def from_cache(cls, codegen, name, bitcode):
            library = cls(codegen, name)
            library._shared_module = llvm.parse_bitcode(bitcode)
            library._finalized = True
            return library

    class EngineLibrary(numba_codegen.JITCodeLibrary):
        """numba's JIT code library, which also reads a LinkedLibrary from numba's cache."""

        @classmethod
        def _unserialize(cls, codegen, state):
            name, kind, data = state
            if kind == LINKED:
                return LinkedLibrary.from_cache(codegen, name, data)
            return super()._unserialize(codegen, state)

    numba_codegen.JITCPUCodegen._library_class = EngineLibrary


def linked_library(targetctx, name: str):
    """A new LinkedLibrary for the step `name`, ready for numba's cache; None without LINKING."""
    if not LINKING:
        return None
    library = LinkedLibrary(targetctx.codegen(), name)
    library.enable_object_caching()
    return library
