"""The `war` command: parses arguments, calls the library, prints. One module per command family;
`app.py` holds the typer app and the one error boundary (`main`).

Heavy modules (pyarrow, duckdb, pydantic, rich's progress bar) are imported inside the commands
that use them, each import marked `# lazy`, so `war --help` stays fast.
"""

from . import generate, info, query, replay, report, serve, validate  # noqa: F401  (each registers its commands)
from .app import app, flag, main

__all__ = ["app", "flag", "main"]
