"""The `war` application: the typer app, the one error boundary, and what every command shares.

The error boundary in `main` turns every WarError into one line on stderr and a non-zero exit,
saying the library's parameter names as this command's flags (`workers` -> --workers).
"""

from __future__ import annotations

import os
import sys
from contextlib import nullcontext

import typer

from ..errors import WarError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Seeded games of War and its variants: generate, replay, validate, query.")


# The flag of each library parameter that is not --NAME (a WarError's `params`).
FLAGS = {"policies": "--policy", "options": "--set", "params": "--param"}


def flag(param: str) -> str:
    """The command-line flag for a library parameter: --NAME (dashes for underscores), or FLAGS'."""
    return FLAGS.get(param, "--" + param.replace("_", "-"))


def say_error(text: str) -> None:
    typer.echo(text, err=True)


def progress(total: int, label: str, quiet: bool):
    """A rich progress bar on stderr (nothing when quiet or not a terminal)."""
    if quiet:
        return nullcontext(lambda n: None)
    from rich.console import Console  # lazy: keeps war --help fast
    from rich.progress import (  # lazy: keeps war --help fast
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    if not console.is_terminal:
        return nullcontext(lambda n: None)

    class _Bar:
        def __enter__(self):
            self.p = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                              console=console, transient=False)
            self.p.__enter__()
            self.task = self.p.add_task(label, total=total)
            return lambda n: self.p.advance(self.task, n)

        def __exit__(self, *exc):
            return self.p.__exit__(*exc)

    return _Bar()


def prepare_engine(validation: bool = False) -> None:
    """Load the compiled game engine before any progress bar starts; when it must be compiled
    first (the first run after installing), say so on stderr, on a terminal or not."""
    from ..log.shard import warm  # lazy: keeps war --help fast

    warm(on_compile=lambda seconds: say_error(f"compiling the game engine, once, about {seconds:.0f} s"),
         validation=validation)


def main() -> None:
    try:
        app()
    except WarError as err:
        say_error(f"error: {err.spoken(flag)}")
        sys.exit(err.exit_code)
    except KeyboardInterrupt:
        say_error("interrupted")
        sys.exit(130)
    except Exception as err:  # the last line of defence: no traceback for a user
        if os.environ.get("WAR_DEBUG"):
            raise
        say_error(f"internal error: {type(err).__name__}: {err} (set WAR_DEBUG=1 for the traceback)")
        sys.exit(1)

