"""The compile plumbing: how numba compiles, links and loads the compiled engines, the encoder
and validation's checks. Each piece reaches into numba's or llvmlite's private API, says so,
and turns itself off when that is not as it expects; docs/compiling.md says what each uses,
what breaks if it goes, and what it is measured to save.

- `compiler`: `njit` and `borrowing`, numba's jit with LLVM at -O1 for the engines, and the
  steps of a game compiled without Python's wrappers or reference counting;
- `linking`: a step compiled to the LLVM IR its callers link in, with no machine code of its own;
- `loading`: machine code read from numba's cache without numba's typing rules, keyed by every
  source of the compiled code, and a damaged cache file discarded;
- `warm`: a run's compiled code loaded (or compiled, on a first run) before its work starts.
"""

from .compiler import HAVE_NUMBA, INLINED_CALL, QUICK_OPT, borrowing, njit

__all__ = ["HAVE_NUMBA", "INLINED_CALL", "QUICK_OPT", "borrowing", "njit"]
