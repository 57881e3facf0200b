"""A DuckDB session over a dataset's Parquet files, in place, read-only.

Views: `games` and `events` (the files the manifest lists; `events` shows one row per event,
decoded from the rows of the `events/` files, which are `event_rows`, knowing each kind by what
it does, from the table `event_kinds`), `rules` (one row per
rule set of the manifest, every option a column, and `rule_set`, the name a person reads:
model.names.rule_set_names; `games` has it too), `battles` (one row per battle, read from its shape without
decoding cards), `cards` (every card of every deck in the dataset with its label). Macros:
`card_label(code)` labels a standard-deck card (`10♥`, `JK1`); `wilson_low(p, n, z)` and
`wilson_high(p, n, z)` bound the Wilson score interval of a share p of n (z: 1.96 for 95%), the
one formula every named query with intervals uses.

Once the views exist the connection is locked: file access only inside the dataset (and the
folders `allow_read` names), no extension loading, configuration frozen. Each session spills to
a private temporary folder, removed when it closes.
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
from typing import Iterable

import duckdb
import pyarrow as pa

from ...errors import QueryError
from ...log.tables import EVENT_SCHEMA, GAME_SCHEMA, kinds_table
from ...model.families import registry
from ...model.inputs import not_regular
from ...model.rules import build_rules
from ...model.all_deals import deal_count, plays_every_deal
from ...model.names import rule_set_names, rules_names
from ...model.schema import RuleSet, RuleSetEntry
from ...storage.dataset import Dataset
from ...storage.journal import process_alive
from ...storage.location import glob_literal, is_remote
from .counts_view import create_counts_view
from .games_view import games_view
from . import event_copies
from .reads import EVENT_VIEW_NAMES, spare_connection
from .log_views import copy_views, event_views, in_log_order, local_scan, remote_view, sql_literal


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
    folders, files = [], []
    for p in allow_read:
        path = Path(p).expanduser().resolve()
        if not path.exists():
            raise QueryError(f"`allow_read` {str(p)!r} does not exist", params=("allow_read",))
        (folders if path.is_dir() else files).append(str(path))
    return folders, files


def connect(root, events: bool = True, allow_read: Iterable = (), views: frozenset[str] | None = None,
            attach=None) -> Session:
    """A locked-down DuckDB session with the dataset's views. `events=False` leaves out the
    decoded `events` and `battles` views, whose set-up reads every battle's shape. `views`, the
    log views a single query reads (reads.log_views), when given: a query of `events` alone,
    read from its copies, skips the set-up of the others. Files are readable only inside the
    dataset and the folders or files of `allow_read`. `attach(con, rule_sets)`, when given, adds
    views of other files before the lock and returns those files (solution_views.attach_solution)."""
    folders, files = _allowed(allow_read)
    ds = Dataset.open(root)
    con = spare_connection() or duckdb.connect()
    sweep_spills()
    spill = tempfile.mkdtemp(prefix=f"{SPILL}{os.getpid()}-")
    session = Session(con, spill, events=events, rule_sets=list(ds.manifest.rule_sets))
    _open.add(session)
    try:
        con.execute("SET enable_progress_bar = false")
        con.execute(f"SET temp_directory = {sql_literal(spill)}")
        for table in ("games", "events"):
            listed = in_log_order(ds.files(table))
            files_of = listed
            if not files_of and table == "events" and any(e.log != "events" for e in ds.manifest.rule_sets):
                session.no_events, events = _no_files(ds, table), False
                session.events = False
                continue
            if not files_of and table == "games" and any(e.log == "counts" for e in ds.manifest.rule_sets):
                con.register("_no_games", GAME_SCHEMA.empty_table())  # counts alone: no games rows
                con.execute("CREATE TABLE game_rows AS SELECT * FROM _no_games")  # seen by every cursor
                con.unregister("_no_games")
                continue
            if not files_of:
                raise QueryError(_no_files(ds, table))
            if table == "events":
                session.partial_log = _partial_log(ds)
            view = "event_rows" if table == "events" else "game_rows"
            if is_remote(ds.root):
                remote_view(con, ds.root, view, table, [ds.root / f.path for f in listed], ds.manifest.rule_sets)
                continue
            paths = _local_files(str(ds.root), listed)
            con.execute(f"CREATE VIEW {view} AS {local_scan(table, paths, ds.manifest.rule_sets)}")
        games_view(con, ds.manifest.rule_sets, ds.manifest.schema_version, lambda e: ds.lineage(e, range(e.games)))
        create_counts_view(con, ds.manifest.rule_sets, _counts_files(ds))
        session.counted = _counted(ds)
        _kinds_table(con)
        copies: list[str] = []
        if events:
            copies = _event_copies(ds) if views is None or views & COPIED else []
            if not copies or views is None or views & (EVENT_VIEW_NAMES - COPIED):
                event_views(con, ds.manifest.rule_sets)
            if copies:
                fought = [str(event_copies.battles_path(Path(c))) for c in copies]
                dealt = [str(event_copies.deals_path(Path(c))) for c in copies]
                copy_views(con, ds.manifest.rule_sets, copies, fought, dealt)
                session.copies = list(copies)
                copies += fought + dealt
        _rules_table(con, ds.manifest.rule_sets)
        con.execute(CARD_SQL)
        if attach is not None:
            files = files + attach(con, ds.manifest.rule_sets)
        dataset_folders = [] if is_remote(ds.root) else \
            sorted({_folder(ds.root.resolve()), _folder(Path(glob_literal(str(ds.root.resolve()))))})
        lock(con, dataset_folders + [_folder(Path(spill))] + [_folder(Path(f)) for f in folders], files + copies)
    except BaseException:
        session.close()
        raise
    return session


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


COPIED = frozenset({"events", "battles", "deals"})  # the views read from the copies of the log (event_copies.py)


def _event_copies(ds: Dataset) -> list[str]:
    """The columnar copies of the dataset's events files, in the log's order (made now where
    missing: event_copies.py); none for a dataset on remote storage, with copies turned off, or
    where war's cache cannot be written: then the views are events.sql's."""
    listed = in_log_order(ds.files("events"))
    if not listed or is_remote(ds.root) or not event_copies.enabled():
        return []
    try:
        return event_copies.ensure(event_copies.sources(ds.root, listed), packs=event_copies.pack_sizes(listed))
    except OSError:
        return []


def open_connection(root, events: bool = True, allow_read: Iterable = ()) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection to the dataset at `root` with every view `war query` has (games,
    events, event_rows, battles, rules, cards, and the macros), for a notebook or a program:
    `con.sql("SELECT ...").df()` (pandas), `.pl()` (Polars), `.arrow()`. It reads the dataset in
    place and can write nothing outside its own memory: files only inside the dataset (and
    `allow_read`), no extensions, configuration frozen. `events=False` skips the event views'
    set-up. `events` and `battles` are read from the log's columnar copies (event_copies.py)
    where they can be, and then events.sql's views of its decoding (`event_steps`,
    `battle_shapes`, ...), which `war query` sets up when a query names them, are left out: they
    cost a pass over every battle's shape (a second for a million games). Close it when done,
    or let it go: its spill folder goes with it."""
    session = connect(root, events, allow_read, views=COPIED)
    spill, session.spill = session.spill, None  # removed with the connection, not the session
    _open.discard(session)
    weakref.finalize(session.con, shutil.rmtree, spill, True)
    return session.con


def _counts_files(ds: Dataset) -> dict[int, str]:
    """Each counts rule set's counts file, by ordinal, as a local path."""
    if is_remote(ds.root):
        if any(ds.files("counts")):
            raise QueryError(f"the counts of {str(ds.root)!r} are read from local disk only: copy the dataset here")
        return {}
    return {f.rule_set: str((ds.root / f.path).resolve()) for f in ds.files("counts")}


def _stored(ds: Dataset, log: str, games: bool = False) -> tuple[list, str]:
    """The rule sets that store `log`, and how a message names them (with their games)."""
    entries = [e for e in ds.manifest.rule_sets if e.log == log]
    names = rule_set_names(ds.manifest.rule_sets)
    return entries, ", ".join(f"{e.ordinal} ({names[e.ordinal]}" + (f", {e.games:,} games" if games else "") + ")"
                              for e in entries)


def _counted(ds: Dataset) -> str | None:
    """Which rule sets the games view holds no rows of, storing counts of their deals alone."""
    counted, which = _stored(ds, "counts")
    if not counted:
        return None
    return (f"the games view holds no rows of rule set{'s' if len(counted) > 1 else ''} {which} of "
            f"{str(ds.root)!r} but the games it keeps (--keep), storing counts of its deals (--log counts): "
            f"the counts view and the exact queries (exact_outcomes, exact_length, records, ...) read them")


def _no_files(ds: Dataset, table: str) -> str:
    """Why a dataset has no files of `table`: for events, its games were generated without their
    log, and how to get it."""
    if table == "events" and all(e.log == "counts" for e in ds.manifest.rule_sets):
        kept = sum(e.games for e in ds.manifest.rule_sets)
        if kept:
            return (f"dataset {str(ds.root)!r} stores counts of its deals (`--log counts`) and the games rows of the "
                    f"{kept:,} games it keeps (`--keep`), no event log: ask the games view or the counts view (war "
                    f"query DATASET exact_outcomes, records, ...); war generate --from {str(ds.root)} --where \"...\" "
                    f"--out NEW plays kept games again with their log")
        return (f"dataset {str(ds.root)!r} stores counts of its deals (`--log counts`), no event log nor games "
                f"rows: ask the counts view (war query DATASET exact_outcomes, records, ...)")
    if table == "events" and any(e.log == "games" for e in ds.manifest.rule_sets):
        return (f"dataset {str(ds.root)!r} stores the games table alone (`--log games`): its event log was "
                f"not stored; regenerate the events of the games you want with war generate --from "
                f"{str(ds.root)} --where \"...\" --out NEW (a WHERE over its games), then query NEW")
    return f"dataset {str(ds.root)!r} lists no {table} files"


def _partial_log(ds: Dataset) -> str | None:
    """Which rule sets a dataset of event log and games table alone has no events of, and how
    to get them; None when every rule set stores its log."""
    alone, which = _stored(ds, "games", games=True)
    if not alone:
        return None
    return (f"the event views hold no rows of rule set{'s' if len(alone) > 1 else ''} {which} of "
            f"{str(ds.root)!r}, which store{'' if len(alone) > 1 else 's'} the games table alone (--log games); "
            f"war generate --from {str(ds.root)} --where \"...\" --out NEW plays chosen games again with their log")


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


def schema_session(events: bool = True, attach=None) -> Session:
    """A locked session with every view over empty tables of the dataset schema: what a query
    returns can be told without any dataset (`war query --show`); `attach(con)` as connect's."""
    con = duckdb.connect()
    session = Session(con, None, events=events)
    rows = pa.schema([pa.field(f.name, pa.string() if pa.types.is_dictionary(f.type) else f.type)
                      for f in EVENT_SCHEMA] + [pa.field("variant", pa.string())])
    con.register("_games", GAME_SCHEMA.empty_table())
    con.register("_event_rows", rows.empty_table())
    con.execute("CREATE TABLE game_rows AS SELECT * FROM _games")
    games_view(con, [])
    create_counts_view(con, [], {})
    con.execute("CREATE TABLE event_rows AS SELECT * FROM _event_rows")
    _kinds_table(con)
    if events:
        event_views(con, [])
    sample = build_rules("classic")
    _rules_table(con, [RuleSetEntry(ordinal=0, rules_id=sample.rules_id, rules=sample, seed=0,
                                    games=0, shard_size=1)], empty=True)
    con.execute(CARD_SQL)
    if attach is not None:
        attach(con)
    lock(con, [], [])
    return session


def _rules_table(con, entries, empty: bool = False) -> None:
    """The `rules` table: a row per rule set entry, its name (`rule_set`; `rules_name`, the name
    of its rules whatever the seating), ordinal, id, a column each option of the dataset's families
    (null in the rows of a family without it; an option that also takes words, war_down's
    by_rank, as text), its seats' policies, seed and games; `all_deals` (it plays deals of
    `--all-deals`: game i, deal i), `deals` (then, how many deals its deck has) and `every_deal`
    (its games are every one of them: its shares are exact)."""
    names, bases = rule_set_names(entries), rules_names(entries)
    worded = {name for name, option in registry().options.items() if option.words}
    options = [e.rules.options() for e in entries]
    shown = [name for name in RuleSet.model_fields if any(name in o for o in options)]
    deals = [deal_count(e.rules) if e.all_deals else None for e in entries]
    every = [plays_every_deal(e) for e in entries]
    columns = {"rule_set": [names[e.ordinal] for e in entries], "rules_name": [bases[(e.rules_id,)] for e in entries],
               "ordinal": [e.ordinal for e in entries], "rules_id": [e.rules_id for e in entries]}
    columns.update({name: [(str(o[name]) if name in worded else o[name]) if name in o else None for o in options]
                    for name in shown})
    columns.update({"policies": [",".join(e.policies) for e in entries], "games": [e.games for e in entries],
                    "all_deals": [e.all_deals for e in entries], "log": [e.log for e in entries]})
    rules_table = pa.table({k: pa.array(v) for k, v in columns.items()})
    rules_table = (rules_table.append_column("deals", pa.array(deals, pa.int64()))
                   .append_column("every_deal", pa.array(every, pa.bool_()))
                   .append_column("seed", pa.array([e.seed for e in entries], pa.uint64())))
    if empty:
        rules_table = rules_table.slice(0, 0)
    con.register("_rules", rules_table)
    con.execute("CREATE TABLE rules AS SELECT * FROM _rules")
    con.unregister("_rules")


def _kinds_table(con) -> None:
    """The `event_kinds` table: what each kind does, from the families' declarations, which
    log/events.sql reads; there whether or not the event views are."""
    con.register("_event_kinds", kinds_table())
    con.execute("CREATE TABLE event_kinds AS SELECT * FROM _event_kinds")
    con.unregister("_event_kinds")


CARD_SQL = """
CREATE MACRO card_label(c) AS CASE
    WHEN c IS NULL THEN NULL
    WHEN c >= 52 THEN 'JK' || CAST(c - 51 AS VARCHAR)
    ELSE ['2','3','4','5','6','7','8','9','10','J','Q','K','A'][c // 4 + 1] || ['♣','♦','♥','♠'][c % 4 + 1]
END;
CREATE MACRO wilson_low(p, n, z) AS
    greatest(0.0, (p + z * z / (2 * n) - z * sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n));
CREATE MACRO wilson_high(p, n, z) AS
    least(1.0, (p + z * z / (2 * n) + z * sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n));
CREATE VIEW cards AS
SELECT DISTINCT r.ranks, r.suits, r.jokers, c.code,
    CASE WHEN c.code >= r.ranks * r.suits THEN r.ranks ELSE c.code // r.suits END AS rank,
    CASE WHEN c.code >= r.ranks * r.suits THEN NULL ELSE c.code % r.suits END AS suit,
    CASE WHEN r.ranks = 13 AND r.suits = 4 THEN card_label(c.code)
         WHEN c.code >= r.ranks * r.suits THEN 'JK' || CAST(c.code - r.ranks * r.suits + 1 AS VARCHAR)
         WHEN r.suits <= 4 THEN CAST(c.code // r.suits + 1 AS VARCHAR) || ['♣','♦','♥','♠'][c.code % r.suits + 1]
         ELSE CAST(c.code // r.suits + 1 AS VARCHAR) || '/' || CAST(c.code % r.suits + 1 AS VARCHAR) END AS label
FROM rules r, LATERAL (SELECT unnest(range(r.ranks * r.suits + r.jokers)) AS code) c;
"""
