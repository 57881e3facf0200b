"""The `war` command: parses arguments, calls the library, prints. One module per command family;
`app.py` holds the typer app and the one error boundary (`main`).

Every module reaches the library only through its face, `import pipeline` (errors included),
and pipeline.frontend, what only the command needs of it (its checks, its error boundary);
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

Nor does a `war` command import pandas: pyarrow would, to ask whether the first values it turns
into an array are pandas objects (0.2 to 0.3 s); frontend.pyarrow_without_pandas tells it no.
Nor does it look for pydantic's plugins, which pydantic finds by reading the entry points of
every installed distribution as it builds its first model (5 ms of every command that reads or
writes data); war's models use none (a user's own PYDANTIC_DISABLE_PLUGINS wins).

The commands are found by registration: every module of this package but `app` (and those
named with `_`) defines commands and registers them on the app when imported, so a new
command module is a command without a list to add it to (tests/test_family_readers.py holds
the commands to the modules).

`main` imports the command modules itself (`app` and `flag` are imported when first asked for),
so that a Ctrl-C while they load is caught by it.
"""

import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
if "numba" not in sys.modules:
    sys.modules.setdefault("scipy.linalg", None)  # an import of it now raises ImportError

__all__ = ["app", "command", "flag", "main"]


def command_modules() -> tuple[str, ...]:
    """The names of the modules that define the commands, by name: every module of this
    package but `app` and those named with `_` (found in its folder, not imported)."""
    from pkgutil import iter_modules

    return tuple(sorted(m.name for m in iter_modules(__path__) if m.name != "app" and not m.name.startswith("_")))


def _load(first: str | None = None):
    """The module of the typer app (pipeline.cli.app), with every command registered: each
    command module registers its own when imported. With `first`, a command that the quick
    parse may call (app.QUICK), that command's module alone: the others (about 6 ms of the
    command's start) are imported when its command line falls to typer (app.run)."""
    from importlib import import_module

    module = import_module(f"{__name__}.app")
    if first in module.QUICK:
        import_module(f"{__name__}.{first}")
        return module
    for name in command_modules():
        import_module(f"{__name__}.{name}")
    globals().update(app=module.app, flag=module.flag)
    return module


def main(argv: list[str] | None = None) -> None:
    """The console script (app.main, the one error boundary). The command modules are imported
    here, inside a guard, not when this package is: a Ctrl-C during those imports (typer, rich,
    the face) is then exit 130 and one line too, instead of a traceback."""
    from pipeline import frontend

    frontend.plain_warnings()  # before the command modules read the registry
    args = sys.argv[1:] if argv is None else list(argv)
    with frontend.ctrl_c_latch():  # a Ctrl-C that a library swallows is not lost
        try:
            if args and not {"--help", "-h", "--version"} & set(args):
                frontend.pyarrow_without_pandas()  # a command that reads or writes data: 0.2 s sooner
            module = _load(args[0] if args else None)
            frontend.raise_lost_ctrl_c()
        except KeyboardInterrupt:
            sys.stderr.write("error: interrupted\n")
            from .app import interrupt_handled

            interrupt_handled()
            sys.exit(frontend.stop_exit_code(130))
        module.main(argv)


def command() -> None:
    """The `war` process itself (the console script, `python -m pipeline.cli`): main(), then no
    Ctrl-C while the interpreter shuts down. A Ctrl-C that lands once the command is done, as
    Python runs its exit handlers (a temporary folder's clean-up), has nothing left to stop, and
    would print a traceback from inside them. Not in main(), which a caller's process may run."""
    try:
        main()
    finally:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)


def __getattr__(name: str):
    if name in ("app", "flag"):
        return getattr(_load(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
