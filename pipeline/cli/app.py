"""The `war` application: the typer app, the one error boundary, and what every command shares.

The error boundary in `main` turns every failure a user can reach into one line on stderr and a
non-zero exit: a WarError (saying the library's parameter names as this command's flags,
`workers` -> --workers), the parser's own usage errors, an OSError from the file system, and
Ctrl-C (exit 130).
"""

from __future__ import annotations

import atexit
import gc
import os
import shlex
import sys
from contextlib import nullcontext
from enum import Enum

import typer

try:
    from typer._click import (
        exceptions as click_errors,  # typer 0.2x carries its own copy of click
    )
except ImportError:  # older typer runs on click itself
    from click import exceptions as click_errors

import pipeline as war
from pipeline import frontend

# rich_markup_mode=None: click's plain help, where `[default: ...]` in a help text stays text and
# flags show no `<bool>` type.
app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None,
                  help="Seeded games of War and its variants: generate, replay, validate, query.")


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("war")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"war {version()}")
        raise typer.Exit()


@app.callback()
def _war(show_version: bool = typer.Option(False, "--version", is_eager=True, callback=_show_version,
                                           help="Print the version and exit.")) -> None:
    """Seeded games of War and its variants: generate, replay, validate, query."""


# The flag of each library parameter that is not --NAME (a WarError's `params`).
FLAGS = {"policies": "--policy", "options": "--set", "params": "--param", "variants": "--variant",
         "rule_files": "--rules", "rule_file": "--rules", "names": "--name"}


def flag(param: str) -> str:
    """The command-line flag for a library parameter: --NAME (dashes for underscores), or FLAGS'."""
    return FLAGS.get(param, "--" + param.replace("_", "-"))


def say_error(text: str) -> None:
    typer.echo(text, err=True)


def progress(total: int, label: str, quiet: bool):
    """A rich progress bar on stderr (nothing when quiet or not a terminal): `tick(n)` advances
    it, `tick(n, total=T)` also says the whole is T (for work whose size is learnt on the way:
    with `total` 0 the bar shows from the first tick, so an error found before any work comes
    alone)."""
    if quiet:
        return nullcontext(lambda n, total=None: None)
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
        return nullcontext(lambda n, total=None: None)

    class _Bar:
        def __enter__(self):
            self.p = None
            if total:
                self._start()
            return self.tick

        def _start(self):
            self.p = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                              console=console, transient=False)
            self.p.__enter__()
            self.task = self.p.add_task(label, total=total or None)

        def tick(self, n: int, total: int | None = None) -> None:
            if self.p is None:
                self._start()
            self.p.update(self.task, advance=n, total=total)

        def __exit__(self, *exc):
            return None if self.p is None else self.p.__exit__(*exc)

    return _Bar()


def say_event_copies() -> None:
    """Say on stderr, once, when a query starts making the columnar copies of a dataset's events:
    on a million games, a minute or two, once."""
    frontend.on_event_copies(lambda done, total, where: say_error(
        f"note: decoding the event log for SQL, once: {total:,} files, kept in {where}")
        if done == 1 and total >= 20 else None)


def _terminal_console(quiet: bool):
    """rich's Console on stderr, or None when quiet or stderr is not a terminal."""
    if quiet:
        return None
    from rich.console import Console  # lazy: keeps war --help fast

    console = Console(stderr=True)
    return console if console.is_terminal else None


class _Rows:
    def __init__(self, console, label: str):
        self.console, self.label, self.p = console, label, None

    def __enter__(self):
        if self.console is None:
            return lambda n: None
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self.p = Progress(SpinnerColumn(), TextColumn(self.label + " {task.completed:,} rows"), TimeElapsedColumn(),
                          console=self.console, transient=True)
        self.p.__enter__()
        task = self.p.add_task(self.label, total=None)
        return lambda n: self.p.advance(task, n)

    def __exit__(self, *exc):
        if self.p is not None:
            return self.p.__exit__(*exc)


def rows_counter(label: str, quiet: bool):
    """A context whose value `tick(rows)` counts rows written, on stderr (nothing when quiet or
    not a terminal): the progress of a result of unknown size."""
    return _Rows(_terminal_console(quiet), label)


def prepare_engine(rule_sets, validation: bool = False, played=()) -> None:
    """Load the compiled game engines that play `rule_sets` before any progress bar starts; when
    one must be compiled first (the first run after installing, or a damaged cache), say which
    and about how long on stderr, on a terminal or not. A family of `rule_sets` or `played` that has no compiled engine
    is said once: its reference engine plays its games."""
    war.warm_engines(rule_sets, validation=validation, played=played,
                     on_reference=lambda families: say_error(
                         f"note: {', '.join(families)} {'has' if len(families) == 1 else 'have'} no compiled engine: "
                         f"the reference engine plays {'its' if len(families) == 1 else 'their'} games"),
                     on_compile=lambda seconds, what: say_error(f"compiling {what}, about {max(1, round(seconds))} s, "
                                                                f"once per machine"),
                     on_damaged=lambda folder: say_error(f"warning: the compiled engine's cache in {folder} was "
                                                         f"damaged; discarded, compiling it again"))


def refuse_output(output, overwrite: bool, error: type[war.WarError]) -> None:
    """An --output checked before any work: never a folder, nor a file already there without
    --overwrite (`error`: the command's kind of error), nor inside a dataset's own files."""
    if output is None:
        return
    frontend.check_output(output)
    if output.is_dir():
        raise error(f"{str(output)!r} is a folder; give a file name")
    if output.exists() and not overwrite and not frontend.is_stream(output):
        raise error(f"{output} exists (use --overwrite to replace it)")


def choices(name: str, values: tuple[str, ...]) -> type[Enum]:
    """The values an option takes, as the Enum typer lists in --help and checks."""
    return Enum(name, {value: value for value in values}, type=str)


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 game`, `2 games` (`many` for an irregular plural)."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


def _usage(err: click_errors.UsageError) -> str:
    text = err.format_message().strip().rstrip(".")
    cause = err.__cause__ or err.__context__
    problems = cause.errors() if hasattr(cause, "errors") and callable(cause.errors) else None
    if problems and isinstance(err, click_errors.BadParameter):  # typer checked the type with pydantic
        first = problems[0]
        param = getattr(err, "param", None)
        hint = err.param_hint or (param.opts[0] if param is not None and param.opts else "an argument")
        if param is not None and getattr(param, "param_type_name", "") == "argument":
            hint = (param.metavar or param.name or hint).upper()
        if isinstance(first, dict) and "input" in first:
            said = str(first["msg"]).removeprefix("Value error, ").rstrip(".")  # pydantic's prefix for a ValueError
            said = said[:1].lower() + said[1:]
            given = repr(first["input"])
            text = f"invalid value for {hint}: " + (said if given in said else f"{given}: {said}")
    text = text[:1].lower() + text[1:]
    command = err.ctx.command_path if err.ctx is not None else "war"
    return f"{text} (see {command} --help)"


_command_line: list[str] | None = None


def command_line() -> list[str] | None:
    """The arguments `war` was run with (after `war`), when run through `main`."""
    return _command_line


_NO_ARGS = getattr(click_errors, "NoArgsIsHelpError", ())  # click >= 8.2; before, help and Exit(0)


QUICK = ("query", "generate")  # the commands a quick parse may call (quick_call)


def quick_call(args: list[str]):
    """(the command, the arguments typer would call it with) for a command line of QUICK that
    gives only plain values: the one-game query a person types most (`war query DATASET --sql
    SQL`) and a run's `war generate --games N --seed S --workers W --out DIR -q`. typer builds a
    pydantic adapter for each parameter it parses: about 0.07 s of CPU of a 0.45 s one-game
    query, 0.09 s of generate's start-up, which both workers wait for. None for anything else,
    which typer parses: an option it does not know by that spelling, one given twice (which
    refuse_twice refuses before typer would keep the last), `--x=v`, a value that is empty or
    starts with `-`, an integer that is not plain decimal digits, a value of a type other than
    text, integer, flag or the command's own choices, or more arguments than the command takes.
    Every parameter not given is its default as typer converts it (tests/test_quick_call.py
    holds the two parses to the same arguments)."""
    if not args or args[0] not in QUICK:
        return None
    import importlib
    import inspect
    import typing

    from typer.models import ArgumentInfo, OptionInfo

    command = getattr(importlib.import_module(f"{__package__}.{args[0]}"), args[0])
    parameters = inspect.signature(command).parameters
    hints = typing.get_type_hints(command)
    spelled = {decl: name for name, p in parameters.items() if isinstance(p.default, OptionInfo)
               for decl in p.default.param_decls}
    positional = [name for name, p in parameters.items() if isinstance(p.default, ArgumentInfo)]
    given: dict = {}
    rest, values = list(args[1:]), []
    while rest:
        word = rest.pop(0)
        if not word:
            return None
        if not word.startswith("-"):
            values.append(word)
            continue
        name = spelled.get(word)
        if name is None or name in given:
            return None
        kind = _kind(hints[name])
        if kind == "flag":
            given[name] = True
            continue
        if kind is None or not rest or not rest[0] or rest[0].startswith("-"):
            return None
        value = _value(kind, hints[name], rest.pop(0))
        info = parameters[name].default
        if value is None or (kind == "integer" and not _in_range(value, info)):
            return None
        given[name] = value
    if len(values) > len(positional) or any(_kind(hints[name]) != "text" for name in positional[:len(values)]):
        return None
    given.update(zip(positional, values))
    for name, p in parameters.items():
        if name not in given:
            given[name] = _default(hints[name], p.default.default)
    return command, given


def _plain(hint):
    """`hint` without `| None`."""
    import types
    import typing

    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        kept = [a for a in typing.get_args(hint) if a is not type(None)]
        return kept[0] if len(kept) == 1 else None
    return hint


def _kind(hint) -> str | None:
    plain = _plain(hint)
    if plain is bool:
        return "flag"
    if plain is int:
        return "integer"
    if plain is str:
        return "text"
    if isinstance(plain, type) and issubclass(plain, Enum):
        return "choice"
    return None


def _value(kind: str, hint, word: str):
    """`word` as typer converts it for a parameter of `kind`, or None to leave it to typer."""
    if kind == "integer":
        return int(word) if word.isascii() and word.isdigit() else None
    if kind == "choice":
        choices = _plain(hint)
        return choices(word) if word in choices.__members__ and choices(word).value == word else None
    return word


def _in_range(value: int, info) -> bool:
    """Within an option's `min` and `max` (click's IntRange), when it has them."""
    low, high = getattr(info, "min", None), getattr(info, "max", None)
    return (low is None or value >= low) and (high is None or value <= high)


def _default(hint, value):
    """A parameter's default as typer hands it to the command: a fresh list, its choice, a float."""
    plain = _plain(hint)
    if value is None:
        return None
    if isinstance(value, list):
        return list(value)
    if isinstance(plain, type) and issubclass(plain, Enum) and not isinstance(value, plain):
        return plain(value)
    if plain is float:
        return float(value)
    return value


def run(args: list[str]) -> int:
    """Run the `war` command with `args`; the exit code. Raises what the boundary in `main` turns
    into one line."""
    global _command_line
    _command_line = list(args)
    quick = quick_call(args)
    if quick is not None:
        command, given = quick
        command(**given)
        return 0
    from . import _load  # every command registered (cli.main imported a quick command's module alone)

    _load()
    command = typer.main.get_command(app)
    refuse_twice(command, args)
    try:
        with command.make_context("war", list(args)) as ctx:
            command.invoke(ctx)
    except typer.Exit as done:
        return done.exit_code
    except _NO_ARGS as err:
        typer.echo(err.ctx.get_help() if err.ctx is not None else "")
        return 0
    return 0


def refuse_twice(group, args: list[str]) -> None:
    """Refuse (a usage error naming it) an option that takes one value given twice, where click
    would keep the last without a word: `--seed 1 --seed 2`, as `--exact --float`. A repeatable
    option (a list: --set, --variant, --rules) is not one, nor a flag that says the same each
    time (`-q -q`). The command's own parser reads `args` as typer's will, each spelling
    (`-s 1`, `--seed=1`, `-s1`) counted; a command line it cannot read is left to typer, which
    says what is wrong with it, as is one that asks for --help."""
    command = group.get_command(None, args[0]) if args and hasattr(group, "get_command") else None
    if command is None:
        return
    ctx = command.context_class(command, parent=group.context_class(group, info_name="war"), info_name=args[0])
    try:
        _, _, order = command.make_parser(ctx).parse_args(args=list(args[1:]))
    except click_errors.UsageError:
        return
    if any(getattr(param, "is_eager", False) for param in order):
        return
    seen = set()
    for param in order:
        if getattr(param, "param_type_name", "") != "option" or param.multiple or param.count \
                or (param.is_flag and not param.secondary_opts):
            continue
        if param.name not in seen:
            seen.add(param.name)
            continue
        spelled = _spellings(param, command.params, args[1:])
        given = f" ({', '.join(spelled)})" if len(spelled) > 1 else ""
        name = "/".join([max(param.opts, key=len)] + list(param.secondary_opts))
        raise click_errors.UsageError(f"option {name} given twice{given}; give it once", ctx=ctx)


def _spellings(param, params, args: list[str]) -> list[str]:
    """How `args` give the option `param` of a command of `params`, each as typed (`--seed 1`,
    `-s2`, `--seed=3`, `--exact`); a short option in a cluster of flags (`-qs1`) is not found,
    and another option's value is not taken for one (`--where -s1`)."""
    names = list(param.opts) + list(param.secondary_opts)
    others = {o for p in params if p is not param and getattr(p, "param_type_name", "") == "option"
              and not p.is_flag and not p.count for o in p.opts}
    out, rest = [], list(args)
    while rest:
        word = rest.pop(0)
        if word == "--":
            break
        if word in others:
            rest = rest[1:]
        elif word in names:
            out.append(word if param.is_flag or not rest else shlex.join([word, rest.pop(0)]))
        elif any(word.startswith(n + "=") for n in names if n.startswith("--")) \
                or any(word.startswith(n) and len(word) > 2 for n in names if len(n) == 2):
            out.append(shlex.quote(word))
    return out


def _skip_last_collections() -> None:
    """At exit every object lives until the end: the interpreter's last garbage collections over
    numba's, pydantic's and typer's objects only cost time (about 0.2 s a command)."""
    gc.disable()
    gc.freeze()


atexit.register(_skip_last_collections)

# A command's start-up makes a few hundred thousand objects (its imports: pyarrow's, numba's,
# pydantic's) that live until it exits; at Python's default threshold the garbage collector
# walks them again and again while they are made, about 8 % of a replay. Collecting every
# 100,000 allocations instead of every 700 costs that time no more; cycles are still collected.
GC_THRESHOLD = (100_000, 50, 100)


def interrupt_handled() -> None:
    """Tell CPython that the Ctrl-C was handled. A KeyboardInterrupt raised inside code run by
    exec() of a string (dataclasses and namedtuples make their methods so, while modules
    import) sets CPython's _Py_UnhandledKeyboardInterrupt, which is never cleared: the process
    then ends by SIGINT (exit -2) whatever the boundary decided. Clearing it keeps exit 130.
    Then the library's other threads are stopped (frontend.wind_down), which would otherwise abort
    the interpreter's shutdown from inside DuckDB."""
    import ctypes

    try:
        ctypes.c_int.in_dll(ctypes.pythonapi, "_Py_UnhandledKeyboardInterrupt").value = 0
    except (AttributeError, ValueError, OSError):  # not CPython, or a CPython without the flag
        pass
    frontend.wind_down()


def main(argv: list[str] | None = None) -> None:
    """The console script: `war ARGS` (sys.argv), every failure one line `error: ...`."""
    gc.set_threshold(*GC_THRESHOLD)
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        code = run(args)
    except war.WarError as err:
        say_error(f"error: {err.spoken(flag)}")
        code = err.exit_code
        if frontend.interrupted(err):
            interrupt_handled()
    except click_errors.UsageError as err:
        say_error(f"error: {_usage(err)}")
        code = 2
    except click_errors.ClickException as err:
        say_error(f"error: {err.format_message()}")
        code = err.exit_code
    except BrokenPipeError:  # `war ... | head`: the reader has what it wanted
        sys.stderr = open(os.devnull, "w")
        code = 0
    except OSError as err:
        fault = frontend.storage_error(err, doing="access")
        say_error(f"error: {fault}")
        code = fault.exit_code
    except BaseException as err:  # the last line of defence: no traceback for a user
        if isinstance(err, SystemExit):
            raise
        # a library's failure after a Ctrl-C is the Ctrl-C's: pydantic-core, building a model's
        # schema while a module imports, says it as a SchemaError with no cause to follow
        if frontend.interrupted(err) or frontend.ctrl_c_pressed():
            say_error("error: interrupted")
            interrupt_handled()
            code = 130
        elif frontend.unreadable_file(err):
            say_error(f"error: cannot read the dataset: {_first_line(err)}")
            code = 2
        else:
            if os.environ.get("WAR_DEBUG"):
                raise
            say_error(f"internal error: {type(err).__name__}: {err} (set WAR_DEBUG=1 for the traceback)")
            code = 1
    sys.exit(frontend.stop_exit_code(code))

