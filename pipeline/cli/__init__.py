"""The `war` command: parses arguments, calls the library, prints. One module per command family;
`app.py` holds the typer app and the one error boundary (`main`).

Every module reaches the library only through its face, `import pipeline` (errors included);
pyproject.toml's import-linter contracts hold it to that. The face imports a name when it is
first used, and rich's progress bar is imported inside the function that draws it, so
`war --help` imports no pyarrow, duckdb, pydantic or numba and stays fast.

The `war` process does no linear algebra: OpenBLAS, which numpy loads, starts a thread a core
that spins at start-up (about 0.2 s of CPU a command), unless asked for one thread before
numpy is first imported, which is here (a user's own setting wins).

For the same reason the `war` process does not let numba find scipy: numba, when it starts,
imports scipy.linalg (when scipy happens to be installed; war does not depend on it) to learn
whether its own linear algebra can run, 0.2 to 0.35 s a command, and the compiled engine has
none. A library caller's process is left as it is.
"""

import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
if "numba" not in sys.modules:
    sys.modules.setdefault("scipy.linalg", None)  # an import of it now raises ImportError

from . import generate, info, query, replay, report, search, serve, validate  # noqa: E402, F401  (each registers its commands)
from .app import app, flag, main  # noqa: E402

__all__ = ["app", "flag", "main"]
