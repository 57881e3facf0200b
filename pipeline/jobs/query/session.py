"""A DuckDB session over a dataset's Parquet files, in place, read-only.

Views: `games` and `events` (the files the manifest lists; `events` shows one row per event,
decoded from the rows of the `events/` files, which are `event_rows`, knowing each kind by what
it does, from the table `event_kinds`), `rules` (one row per
rule set of the manifest, every option a column, and `rule_set`, the name a person reads:
model.names.rule_set_names; `games` has it too), `battles` (one row per battle, read from its shape without
decoding cards), `cards` (every card of every deck in the dataset with its label). Macros:
`card_label(code, ranks := 13, suits := 4)` labels a card of a deck of that shape as replay
and deals files do (`10♥`, `JK1`; the `cards` view's labels); `wilson_low(p, n, z)` and
`wilson_high(p, n, z)` bound the Wilson score interval of a share p of n (z: 1.96 for 95%), the
one formula every named query with intervals uses.

Once the views exist the connection is locked: file access only inside the dataset (and the
folders `allow_read` names), no extension loading, configuration frozen. Each session spills to
a private temporary folder, removed when it closes.

This module is what every session needs, and imports no more than DuckDB: the views are set up
by session_setup (the manifest read into its models, the families' registry, the event copies),
imported when `connect` is first asked for, and a query of a dataset whose plan is kept
(plan.py) opens its session without it.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable

import duckdb

from ...errors import QueryError, brief
from ...model.inputs import not_regular
from ...storage.processes import process_alive


@dataclass
class Session:
    """A DuckDB connection with the dataset's views, locked down, and its private spill folder.
    `no_events`: why the event views are missing, when the dataset stores no event log;
    `events`: whether the decoded event views (events, battles) were set up; `partial_log`: which
    rule sets the event views hold no rows of, when only some of them store their log."""
    con: duckdb.DuckDBPyConnection
    spill: str | None = None
    no_events: str | None = None
    events: bool = True
    thread: threading.Thread = field(default_factory=threading.current_thread)  # the thread that opened it
    partial_log: str | None = None
    counted: str | None = None  # which rule sets the games view has no rows of, storing counts alone
    rule_sets: list = field(default_factory=list)  # the manifest's entries, read once when it opened
    copies: list = field(default_factory=list)  # the events view's copies (event_copies.py), in the log's order

    def cursor(self) -> "Session":
        """A new connection to the same database, for another thread: the same views (and the
        Python functions they call) and lock, without the set-up (a server answers each request
        in a cursor of one session). Closing it leaves this session open."""
        cursor = Session(self.con.cursor(), None, self.no_events, self.events, partial_log=self.partial_log,
                         counted=self.counted, rule_sets=self.rule_sets, copies=self.copies)
        _open.add(cursor)
        return cursor

    def close(self) -> None:
        _open.discard(self)
        try:
            self.con.close()
        finally:
            if self.spill:
                shutil.rmtree(self.spill, ignore_errors=True)

    __hash__ = object.__hash__


_open: "weakref.WeakSet[Session]" = weakref.WeakSet()  # sessions not closed yet, any thread's


def interrupt_sessions() -> None:
    """Stop every query running in this process, whichever thread runs it (DuckDB's interrupt):
    for a process that is ending by Ctrl-C while another thread queries (`war serve` building
    its report). A thread left inside DuckDB while the interpreter shuts down aborts the process
    (`FATAL: exception not rethrown`)."""
    for session in list(_open):
        try:
            session.con.interrupt()
        except Exception:  # closed meanwhile
            pass


def wind_down(timeout: float = 2.0) -> None:
    """What a process ending by Ctrl-C does before it exits: stop the queries of every thread
    (interrupt_sessions), give the other threads that opened one up to `timeout` seconds to
    leave DuckDB, and remove this process's spill folders."""
    threads = {session.thread for session in list(_open)} - {threading.current_thread()}
    interrupt_sessions()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    sweep_spills(own=True)


def _folder(path: Path) -> str:
    return str(path).rstrip("/") + "/"


def _allowed(allow_read: Iterable) -> tuple[list[str], list[str]]:
    """The folders and files `allow_read` opens to a query: a path (text or os.PathLike) is one
    path, never its characters one by one (`"/t"` read as `/` and `t` opened the whole disk);
    anything else is a collection of paths."""
    if isinstance(allow_read, (str, os.PathLike)):
        allow_read = [allow_read]
    elif isinstance(allow_read, (bytes, bytearray)) or not isinstance(allow_read, Iterable):
        raise QueryError(f"`allow_read` is a path or a list of paths, not {brief(allow_read)}", params=("allow_read",))
    folders, files = [], []
    for p in allow_read:
        if not isinstance(p, (str, os.PathLike)):
            raise QueryError(f"`allow_read` holds paths, not {brief(p)}", params=("allow_read",))
        path = Path(p).expanduser().resolve()
        if not path.exists():
            raise QueryError(f"`allow_read` {str(p)!r} does not exist", params=("allow_read",))
        (folders if path.is_dir() else files).append(str(path))
    return folders, files

def _local_files(root: str, files: list) -> list[str]:
    """Each of a dataset's files (DataFile entries) as its resolved path, refused when missing or
    not a regular file. Each folder resolved once for the files in it, a file again only when it
    is itself a link, and one stat a file, in strings: a million games list 1,000 files, which
    pathlib resolved whole in 0.05 s."""
    folders: dict[str, str] = {}
    paths = []
    for file in files:
        parent, name = os.path.split(os.path.join(root, file.path))
        folder = folders.get(parent)
        if folder is None:
            folder = folders[parent] = os.path.realpath(parent)
        path = os.path.join(folder, name)
        if os.path.islink(path):
            path = os.path.realpath(path)
        try:
            regular = stat.S_ISREG(os.stat(path).st_mode)
        except OSError:
            raise QueryError(f"dataset file {path!r} is missing (`war validate` says more)") from None
        if not regular:
            raise QueryError(f"dataset file {path!r} is {not_regular(path)}, not a file (`war validate` says more)")
        paths.append(path)
    return paths


# Told (done, total, folder) after each columnar copy of an events file a query makes, when set
# (frontend.on_event_copies): the command line says when that first work starts.
copies_heard = None

COPIED = frozenset({"events", "battles", "deals"})  # the views read from the copies of the log (event_copies.py)


SPILL = "war-query-"  # a session's spill folder in the temporary folder: war-query-PID-XXXX


def sweep_spills(own: bool = False) -> None:
    """Remove the spill folders of sessions whose process is gone (killed: a session removes
    its own when it closes); with `own`, this process's too (it is ending: a Ctrl-C may have cut
    a session's close short)."""
    try:
        names = os.listdir(tempfile.gettempdir())
    except OSError:
        return
    for name in names:
        pid = name[len(SPILL):].split("-", 1)[0] if name.startswith(SPILL) else ""
        if pid.isdigit() and ((own and int(pid) == os.getpid()) or
                              (int(pid) != os.getpid() and not process_alive(int(pid)))):
            shutil.rmtree(os.path.join(tempfile.gettempdir(), name), ignore_errors=True)


def lock(con, folders: list[str], files: list[str]) -> None:
    """From here on DuckDB opens only files under `folders` or named in `files`, loads no
    extension, and refuses any change to these settings."""
    con.execute(f"SET allowed_directories = [{', '.join(map(sql_literal, folders))}]")
    con.execute(f"SET allowed_paths = [{', '.join(map(sql_literal, files))}]")
    con.execute("SET autoinstall_known_extensions = false")
    con.execute("SET autoload_known_extensions = false")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


CARD_SQL = """
CREATE MACRO card_label(c, ranks := 13, suits := 4) AS CASE
    WHEN c IS NULL THEN NULL
    WHEN c >= ranks * suits THEN 'JK' || CAST(c - ranks * suits + 1 AS VARCHAR)
    ELSE CASE WHEN ranks = 13 THEN ['2','3','4','5','6','7','8','9','10','J','Q','K','A'][c // suits + 1]
              ELSE CAST(c // suits + 1 AS VARCHAR) END
         || CASE WHEN suits <= 4 THEN ['♣','♦','♥','♠'][c % suits + 1] ELSE '/' || CAST(c % suits + 1 AS VARCHAR) END
END;
CREATE MACRO wilson_low(p, n, z) AS
    CASE WHEN p <= 0 THEN 0.0 ELSE
    greatest(0.0, (p + z * z / (2 * n) - z * sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)) END;
CREATE MACRO wilson_high(p, n, z) AS
    CASE WHEN p >= 1 THEN 1.0 ELSE
    least(1.0, (p + z * z / (2 * n) + z * sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)) END;
CREATE MACRO erfcc(x, t) AS
    t * exp(-x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806
        + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
CREATE MACRO normal_tail(z) AS erfcc(abs(z) / sqrt(2), 1 / (1 + abs(z) / sqrt(2) / 2));
CREATE MACRO acklam_tail(q) AS
    (((((-7.784894002430293e-03 * q - 3.223964580411365e-01) * q - 2.400758277161838e+00) * q
       - 2.549732539343734e+00) * q + 4.374664141464968e+00) * q + 2.938163982698783e+00)
    / ((((7.784695709041462e-03 * q + 3.224671290700398e-01) * q + 2.445134137142996e+00) * q
        + 3.754408661907416e+00) * q + 1);
CREATE MACRO acklam_centre(q, r) AS
    (((((-3.969683028665376e+01 * r + 2.209460984245205e+02) * r - 2.759285104469687e+02) * r
       + 1.383577518672690e+02) * r - 3.066479806614716e+01) * r + 2.506628277459239e+00) * q
    / (((((-5.447609879822406e+01 * r + 1.615858368580409e+02) * r - 1.556989798598866e+02) * r
         + 6.680131188771972e+01) * r - 1.328068155288572e+01) * r + 1);
CREATE MACRO normal_quantile(p) AS CASE
    WHEN p <= 0 OR p >= 1 THEN NULL
    WHEN p < 0.02425 THEN acklam_tail(sqrt(-2 * ln(p)))
    WHEN p > 1 - 0.02425 THEN -acklam_tail(sqrt(-2 * ln(1 - p)))
    ELSE acklam_centre(p - 0.5, (p - 0.5) * (p - 0.5)) END;
CREATE VIEW cards AS
SELECT DISTINCT r.ranks, r.suits, r.jokers, c.code,
    CASE WHEN c.code >= r.ranks * r.suits THEN r.ranks ELSE c.code // r.suits END AS rank,
    CASE WHEN c.code >= r.ranks * r.suits THEN NULL ELSE c.code % r.suits END AS suit,
    card_label(c.code, ranks := r.ranks, suits := r.suits) AS label
FROM rules r, LATERAL (SELECT unnest(range(r.ranks * r.suits + r.jokers)) AS code) c;
"""


def sql_literal(text: str) -> str:
    """`text` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"
