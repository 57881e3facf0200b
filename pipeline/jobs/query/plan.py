"""A session's plan: what `connect` set up for a dataset (each statement of its views' SQL, the
small tables it registered, the Python functions its views call, the files it locked the
session to), kept in war's per-user cache, so that the next query of the same dataset opens
its session by running those steps again, without reading the manifest into its models
(pydantic), building the families' registry, or importing the copies' machinery: most of a
one-game query's start-up.

A plan is found by a key of everything the set-up read: the manifest's bytes (its SHA-256),
the dataset's place, war's code (the size and time of every source file of the package), what
is installed (entry_point_cache.stamp) and the sources of the packages whose families war reads
(a plugin declares kinds and options), the Python and DuckDB versions, the settings that choose
the copies, and which views the query reads. A changed manifest, war or installation is a new
key, so a stale plan is never run. Before a plan is run its files are checked as `connect`
would: every data file resolved and stat'ed again (a missing one is then refused by `connect`
itself, in its own words), and every event copy and every data file of the manifest by their
size and modification and change times (a copy also by its inode) as when the plan was made; anything else, and
`connect` checks the copies' footers, hashes what changed, and keeps a new plan. No plan is
kept for a set-up that read something back from DuckDB (events.sql's views, decoded in SQL where
there are no copies), that made a Python function other than the games and counts views' (made
again from the dataset when a query first calls one), or while a family is left out (its warning
is said by every command that reads the registry). Anything unreadable is no plan; nothing is
refused for it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterable, NamedTuple

import duckdb
import pyarrow as pa

from ...errors import QueryError
from ...places import keep, prune, user_cache
from .reads import spare_connection
from .session import SPILL, Session, _allowed, _folder, _local_files, _open, lock, sql_literal, sweep_spills

VERSION = "2"  # of the plan's form: a change makes every kept plan unread
KEPT = 64  # plans kept, the least recently written removed first
DAY = 86400  # a copy not marked as read for a day is marked by connect (event_copies._used): the plan leaves it to it
PACKAGE = Path(__file__).resolve().parents[2]  # pipeline/
FAMILIES = "war.families"  # model.families.GROUP, the entry points of other packages' families


def folder() -> Path:
    """Where the plans are kept: `$WAR_PLAN_CACHE`, else `plans/` in war's per-user cache. Any
    may be deleted at any time."""
    chosen = os.environ.get("WAR_PLAN_CACHE")
    return Path(chosen).expanduser() if chosen else user_cache() / "plans"


_code: list[str] = []


def code_stamp() -> str:
    """The size and modification time of every source file of war's package (by path): an edit,
    an upgrade or another checkout is a new stamp. By stat, not contents: it is taken every
    query (about 2 ms)."""
    if not _code:
        digest = hashlib.sha256()
        stack = [str(PACKAGE)]
        while stack:
            with os.scandir(stack.pop()) as found:
                for entry in sorted(found, key=lambda e: e.name):
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name != "__pycache__":
                            stack.append(entry.path)
                    elif entry.name.endswith((".py", ".sql")):
                        st = entry.stat()
                        digest.update(f"{entry.path}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
        _code.append(digest.hexdigest())
    return _code[0]


def families_stamp(installed: str | None = None) -> str:
    """The size and time of every source file of the packages whose families war reads (the
    entry points of model.families.GROUP, from entry_point_cache, found without importing them):
    a plugin edited in place may declare other kinds or options. `installed`: entry_point_cache.stamp(),
    when known."""
    import importlib.util

    from ...model.entry_point_cache import points

    digest = hashlib.sha256()
    for top in sorted({p.module.split(".")[0] for p in points(FAMILIES, installed)}):
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            spec = None
        places = list(spec.submodule_search_locations or ()) if spec is not None else []
        if spec is not None and not places and spec.origin:
            places = [spec.origin]
        digest.update(f"{top}\0{places}\0".encode())
        for place in places:
            for path in _files_under(place):
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                digest.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def _files_under(place: str) -> list[str]:
    """The file `place`, or every file under the folder `place` (not in __pycache__), in order."""
    if not os.path.isdir(place):
        return [place]
    found = []
    for folder, dirs, files in os.walk(place):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        found += [os.path.join(folder, name) for name in sorted(files)]
    return found


def plan_key(root, events: bool, views: frozenset[str] | None) -> str | None:
    """The key of the plan of a session over the dataset at `root` (the module's docstring), or
    None where no plan is kept: a dataset not in a plain local folder, or without a readable
    manifest (connect then says why)."""
    if not isinstance(root, (str, Path)) or "://" in str(root):
        return None
    from ...model.entry_point_cache import stamp

    try:
        where = os.path.realpath(root)
        with open(os.path.join(where, "manifest.json"), "rb") as f:
            manifest = f.read()
    except (OSError, ValueError):
        return None
    installed = stamp()
    parts = (VERSION, where, sys.version, duckdb.__version__, code_stamp(), installed, families_stamp(installed),
             str(user_cache()),
             os.environ.get("WAR_EVENT_CACHE", ""), os.environ.get("WAR_EVENT_COPIES", ""), repr(bool(events)),
             "all" if views is None else ",".join(sorted(views)), hashlib.sha256(manifest).hexdigest())
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


class _Listed(NamedTuple):
    path: str


def open_session(root, events: bool = True, allow_read: Iterable = (),
                 views: frozenset[str] | None = None) -> Session:
    """session_setup.connect(root, events, allow_read, views), from the dataset's plan when one is
    kept and its files are as they were; else connect itself, whose set-up is then kept as the
    plan."""
    folders, files = _allowed(allow_read)
    key = plan_key(root, events, views)
    plan = _read(key) if key is not None else None
    if plan is not None:
        session = _run(root, plan, events, folders, files)
        if session is not None:
            return session
    from .session_setup import connect

    record: dict | None = {} if key is not None else None
    session = connect(root, events, allow_read, views, record=record)
    if record and record.get("plannable"):
        _write(key, record)
    return session


class PlannedSession(Session):
    """A session opened from a plan: its rule sets (the manifest's entries, as models) are read
    when first asked for (an exact query's note, the CSV writer of the events), not when it opens."""

    def __init__(self, *args, root=None, **kwargs):
        self._root, self._entries = root, None
        super().__init__(*args, **kwargs)

    @property
    def rule_sets(self) -> list:
        if self._entries is None:
            from ...storage.dataset import Dataset

            self._entries = list(Dataset.open(self._root).manifest.rule_sets)
        return self._entries

    @rule_sets.setter
    def rule_sets(self, value) -> None:
        if value:
            self._entries = list(value)

    # one session is itself alone (the open sessions' set asks): no field compared, none read
    __eq__ = object.__eq__
    __hash__ = object.__hash__


def _run(root, plan: dict, events: bool, folders: list[str], files: list[str]) -> Session | None:
    """The session of `plan`, or None when the dataset's files are not as they were."""
    try:
        for table, listed in plan.get("listed", {}).items():
            if _local_files(str(root), [_Listed(p) for p in listed]) != plan["resolved"][table]:
                return None
        now = time.time()
        for path, size, mtime, ctime, inode in plan["stats"]:
            st = os.stat(path)
            if (st.st_size, st.st_mtime_ns, st.st_ctime_ns) != (size, mtime, ctime) or \
                    (inode is not None and st.st_ino != inode):
                return None
            if inode is not None and now - st.st_mtime > DAY:
                return None
    except (OSError, QueryError, KeyError, TypeError, ValueError):
        return None
    con = spare_connection() or duckdb.connect()
    sweep_spills()
    spill = tempfile.mkdtemp(prefix=f"{SPILL}{os.getpid()}-")
    fields = plan["session"]
    session = PlannedSession(con, spill, fields["no_events"], fields["events"], partial_log=fields["partial_log"],
                             counted=fields["counted"], copies=list(fields["copies"]), root=root)
    _open.add(session)
    try:
        con.execute("SET enable_progress_bar = false")
        con.execute(f"SET temp_directory = {sql_literal(spill)}")
        for step in plan["steps"]:
            if step[0] == "sql":
                con.execute(step[1])
            elif step[0] == "table":
                con.register(step[1], pa.ipc.open_stream(base64.b64decode(step[2])).read_all())
            elif step[0] == "drop":
                con.unregister(step[1])
            else:
                _, name, parameters, returns, options = step
                con.create_function(name, _remade(root, name, len(parameters)), parameters, returns, **options)
        lock(con, plan["folders"] + [_folder(Path(spill))] + [_folder(Path(f)) for f in folders], files + plan["files"])
    except (duckdb.Error, KeyError, TypeError, ValueError, IndexError):  # not a plan this DuckDB runs: set up instead
        session.close()
        return None
    except BaseException:
        session.close()
        raise
    return session


_remaking = threading.Lock()


def _remade(root, name: str, arity: int):
    """The view function `name` of the dataset at `root`, made from its manifest when a query
    first calls it (session_setup.view_functions)."""
    made: dict = {}

    def real():
        if not made:
            with _remaking:
                if not made:
                    from .session_setup import view_functions

                    made.update(view_functions(root))
        return made[name]

    def call(arrays):  # DuckDB counts a function's parameters: one or two, as the view's
        return real()(arrays)

    def call_two(first, second):
        return real()(first, second)

    return call if arity == 1 else call_two


def _file(key: str) -> Path:
    return folder() / f"{key[:40]}.json"


def _read(key: str) -> dict | None:
    try:
        plan = json.loads(_file(key).read_text(encoding="utf-8"))
        return plan if plan.get("key") == key else None
    except (OSError, ValueError, AttributeError):
        return None


def _write(key: str, record: dict) -> None:
    """Keep the plan (places.keep: whole or not at all), and the KEPT newest."""
    path = _file(key)
    if keep(path, json.dumps({"key": key, **record}).encode()):
        prune(path.parent, "*.json", KEPT)
