"""What the `war` command, a front end, needs of the library beyond its API (the face, `import
pipeline`): its arguments checked before the engine compiles or any work starts, an output file
checked and written, and its error boundary (a Ctrl-C kept and said, an OSError said as one line, the
other threads stopped before the process exits). pipeline.cli imports this and the face, and
nothing else of the package.

Cheap to import, as the face is: each function imports what it calls when it is called.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from .errors import (  # noqa: F401
    ctrl_c_latch, ctrl_c_pressed, interrupted, raise_lost_ctrl_c, stop_exit_code, storage_error, unreadable_file,
)


def rule_set(variant: str | None = None, options: Sequence[str] = (), rule_file: str | Path | None = None):
    """One rule set from a variant and OPTION=VALUE texts, or a rule file (jobs.request.rule_set)."""
    from .jobs.request import rule_set as build

    return build(variant, options, rule_file)


def check_search(rules, goal: str, rounds, seconds, searchers: int, keep: int, workers: int, scheduler,
                 measure: str = "battles", seed: int = 0) -> None:
    """`war search`'s arguments, checked before the engine compiles (jobs.search.check_search)."""
    from .jobs.search import check_search as check

    check(rules, goal, rounds, seconds, searchers, keep, workers, scheduler, measure, seed)


def search_state(out, resume: bool, overwrite: bool):
    """Where a search writing to `out` is saved (jobs.search.state_path), checked against
    `resume` and `overwrite` before the search (jobs.search.check_state)."""
    from .jobs.search import check_state, state_path

    state = state_path(out)
    check_state(state, resume, overwrite)
    return state


def search_lock(state):
    """The lock of the search saved at `state`, held for a block: another search saved there is
    refused at once (jobs.search.search_lock)."""
    from .jobs.search import search_lock as lock

    return lock(state)


def render_found(rules, found, kind: str) -> str:
    """What `war search` prints of its records: a header, then each deal in card labels
    (jobs.records.render_found)."""
    from .jobs.records import render_found as render

    return render(rules, found, kind)


def check_records_out(out, overwrite: bool) -> None:
    """`war search`'s `out`, checked before the search (jobs.search.check_records_out)."""
    from .jobs.search import check_records_out as check

    check(out, overwrite)


def check_validate_workers(workers: int) -> None:
    """`war validate`'s `workers`, checked before anything is read (jobs.validate.check_workers)."""
    from .jobs.validate import check_workers

    check_workers(workers)


def parse_range(text: str) -> tuple[int, int | None]:
    """`--battles A-B` as (first, last), checked before the game is replayed (jobs.replay)."""
    from .jobs.replay import parse_range as parse

    return parse(text)


def check_output(path) -> None:
    """An output file refused inside a dataset's own files, before any work (storage.files)."""
    from .storage.files import check_output as check

    check(path)


def is_stream(path) -> bool:
    """Whether an output is written straight into (a FIFO, /dev/stdout), never replaced."""
    from .storage.files import is_stream as stream

    return stream(path)


def write_file(path, data: bytes) -> None:
    """Bytes to a file, whole or not at all (storage.files.atomic_write_bytes)."""
    from .storage.files import atomic_write_bytes

    atomic_write_bytes(path, data)


def wind_down(timeout: float = 2.0) -> None:
    """What a process ending by Ctrl-C does before it exits: when it has queried, stop the
    queries other threads run and give them up to `timeout` seconds to leave DuckDB (a thread
    left inside it while the interpreter shuts down aborts the process). Imports nothing new."""
    import sys

    session = sys.modules.get("pipeline.jobs.query.session")
    if session is not None:
        session.wind_down(timeout)


def on_event_copies(hear) -> None:
    """`hear(done, total, folder)` after each columnar copy of an events file a query makes
    (jobs/query/event_copies.py): the command line says when that first work starts."""
    from .jobs.query import session  # lazy, and not the copies' machinery: a query from its plan makes none

    session.copies_heard = hear


def plain_warnings() -> None:
    """A family left out (model.families.FamilyWarning) said as the command says a warning, one
    line `warning: ...`, not as Python's `war:0: FamilyWarning: ...`; other warnings as before."""
    import sys
    import warnings

    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        from .model.families import FamilyWarning  # imported already: it is what warned

        if issubclass(category, FamilyWarning):
            (file or sys.stderr).write(f"warning: {message}\n")
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show


def pyarrow_without_pandas() -> None:
    """Tell pyarrow, once a process, that pandas is not there, unless it is imported already.
    pyarrow imports pandas (0.2 to 0.3 s) the first time it turns Python values into an array,
    only to ask whether they are pandas objects; a war command hands it none. pandas itself
    stays importable (a plugin may use it) and pyarrow's to_pandas() still works: it asks again."""
    import importlib.abc
    import sys

    if "pandas" in sys.modules:
        return

    class Absent(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "pandas" or name.startswith("pandas."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    import pyarrow as pa

    absent = Absent()
    sys.meta_path.insert(0, absent)
    try:
        pa.array([0])  # pyarrow's probe: it finds no pandas, and does not look again
    finally:
        sys.meta_path.remove(absent)
