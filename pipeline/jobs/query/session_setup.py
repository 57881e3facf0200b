"""The set-up of a session's views over a dataset (session.connect): the manifest read into its
models, the games, events, rules and cards views, the event copies made or checked, the counts
view, and the lock. Kept apart from session.py, which every query imports, because what it
imports (the models, the families' registry, the copies' machinery) costs a one-game query most
of its start-up, and a query of a dataset whose plan is kept (plan.py) never needs it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import Iterable

import duckdb
import pyarrow as pa

from ...errors import DatasetError, QueryError, unreadable_file
from ...log.tables import EVENT_SCHEMA, GAME_SCHEMA, kinds_table
from ...model.families import registry
from ...model.rules import build_rules
from ...model.all_deals import deal_count, plays_every_deal
from ...model.names import rule_set_names, rules_names
from ...model.schema import RuleSet, RuleSetEntry
from ...storage.dataset import Dataset
from ...storage.location import glob_literal, is_remote
from .connection import Connection
from .counts_view import create_counts_view
from .games_view import games_view
from . import event_copies
from . import session as session_module
from .reads import EVENT_VIEW_NAMES, spare_connection
from .log_views import copy_views, event_views, in_log_order, local_scan, remote_view, sql_literal
from .session import (CARD_SQL, COPIED, SPILL, Session, _allowed, _folder, _local_files, _open, lock,  # noqa: F401
                      sweep_spills)



def connect(root, events: bool = True, allow_read: Iterable = (), views: frozenset[str] | None = None,
            attach=None, record: dict | None = None) -> Session:
    """A locked-down DuckDB session with the dataset's views. `events=False` leaves out the
    decoded `events` and `battles` views, whose set-up reads every battle's shape. `views`, the
    log views a single query reads (reads.log_views), when given: a query of `events` alone,
    read from its copies, skips the set-up of the others. Files are readable only inside the
    dataset and the folders or files of `allow_read`. `attach(con, rule_sets)`, when given, adds
    views of other files before the lock and returns those files (solution_views.attach_solution).
    `record`, when given, is filled with what the set-up did, for a plan of it (plan.py)."""
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
        setup = con
        if record is not None:
            from .plan_record import Recorder

            setup = Recorder(con)
        for table in ("games", "events"):
            listed = in_log_order(ds.files(table))
            files_of = listed
            if not files_of and table == "events" and any(e.log != "events" for e in ds.manifest.rule_sets):
                session.no_events, events = _no_files(ds, table), False
                session.events = False
                continue
            if not files_of and table == "games" and any(e.log == "counts" for e in ds.manifest.rule_sets):
                setup.register("_no_games", GAME_SCHEMA.empty_table())  # counts alone: no games rows
                setup.execute("CREATE TABLE game_rows AS SELECT * FROM _no_games")  # seen by every cursor
                setup.unregister("_no_games")
                continue
            if not files_of:
                raise QueryError(_no_files(ds, table))
            if table == "events":
                session.partial_log = _partial_log(ds)
            view = "event_rows" if table == "events" else "game_rows"
            if is_remote(ds.root):
                remote_view(setup, ds.root, view, table, [ds.root / f.path for f in listed], ds.manifest.rule_sets)
                continue
            paths = _local_files(str(ds.root), listed)
            if table == "games":
                _check_files(ds, listed)
            if record is not None:
                record.setdefault("listed", {})[table] = [f.path for f in listed]
                record.setdefault("resolved", {})[table] = paths
            setup.execute(f"CREATE VIEW {view} AS {local_scan(table, paths, ds.manifest.rule_sets)}")
        games_view(setup, ds.manifest.rule_sets, ds.manifest.schema_version, lambda e: ds.lineage(e, range(e.games)))
        counted_files = _counts_files(ds)
        # the counts, and the seeds and deals files the games view reads its lineage and deals from
        _check_files(ds, ds.files("counts") + ds.files("seeds") + ds.files("deals"))
        create_counts_view(setup, ds.manifest.rule_sets, counted_files)
        session.counted = _counted(ds)
        _kinds_table(setup)
        copies: list[str] = []
        if events:
            copies = _event_copies(ds) if views is None or views & COPIED else []
            if not copies or views is None or views & (EVENT_VIEW_NAMES - COPIED):
                event_views(setup, ds.manifest.rule_sets)
            if copies:
                fought = [str(event_copies.battles_path(Path(c))) for c in copies]
                dealt = [str(event_copies.deals_path(Path(c))) for c in copies]
                copy_views(setup, ds.manifest.rule_sets, copies, fought, dealt)
                session.copies = list(copies)
                copies += fought + dealt
        if not copies and not is_remote(ds.root) and (events if views is None else views & (EVENT_VIEW_NAMES | {"event_rows"})):
            listed = in_log_order(ds.files("events"))  # read as they are: checked as the copies' making checks them
            event_copies.check_sources(event_copies.sources(ds.root, listed), event_copies.pack_sizes(listed))
        _rules_table(setup, ds.manifest.rule_sets)
        setup.execute(CARD_SQL)
        if attach is not None:
            files = files + attach(setup, ds.manifest.rule_sets)
        dataset_folders = [] if is_remote(ds.root) else \
            sorted({_folder(ds.root.resolve()), _folder(Path(glob_literal(str(ds.root.resolve()))))})
        lock(con, dataset_folders + [_folder(Path(spill))] + [_folder(Path(f)) for f in folders], files + copies)
        if record is not None:
            record.update(setup.noted(session, dataset_folders, copies, None if is_remote(ds.root) else ds))
    except BaseException as err:
        session.close()
        if unreadable_file(err):  # a data file DuckDB or pyarrow cannot read: the dataset's fault, said as one
            text = str(err).strip().splitlines()
            raise DatasetError(f"cannot read the dataset: {text[0] if text else type(err).__name__}") from err
        raise
    return session


def _check_files(ds: Dataset, listed: list) -> None:
    """Each data file of `listed` read as it is (games, counts, seeds, deals) against its SHA-256
    in the manifest (Dataset.check_file): the events are read from copies made from checked
    files, and a damaged one can decode into wrong rows without a word (a few bytes changed in a
    page). About 25 ms for the 22 MB of a million games, paid only where a query sets the session
    up in full: a dataset queried before, unchanged, replays its plan (plan.py) and reads nothing
    twice."""
    for entry in listed:
        ds.check_file(entry)


def _event_copies(ds: Dataset) -> list[str]:
    """The columnar copies of the dataset's events files, in the log's order (made now where
    missing: event_copies.py); none for a dataset on remote storage, with copies turned off, or
    where war's cache cannot be written: then the views are events.sql's."""
    listed = in_log_order(ds.files("events"))
    if not listed or is_remote(ds.root) or not event_copies.enabled():
        return []
    try:
        heard = session_module.copies_heard
        progress = None if heard is None else (lambda done, total: heard(done, total, event_copies.folder()))
        return event_copies.ensure(event_copies.sources(ds.root, listed), progress=progress,
                                   packs=event_copies.pack_sizes(listed))
    except OSError:
        return []


def open_connection(root, events: bool = True, allow_read: Iterable = ()) -> Connection:
    """A DuckDB connection to the dataset at `root` with every view `war query` has (games,
    game_rows, events, event_rows, event_kinds, battles, cards, deals, rules, counts, and the
    macros; `SHOW TABLES` lists them), for a notebook or a program:
    `con.sql("SELECT ...").df()` (pandas), `.pl()` (Polars), `.arrow()`. It reads the dataset in
    place: files only inside the dataset (and `allow_read`), no extensions, configuration
    frozen, and only statements that read. `events=False` skips the event views'
    set-up. `events` and `battles` are read from the log's columnar copies (event_copies.py)
    where they can be, and then events.sql's views of its decoding (`event_steps`,
    `battle_shapes`, ...), which `war query` sets up when a query names them, are left out: they
    cost a pass over every battle's shape (a second for a million games). Each statement must
    only read, as `war query`'s, and the dataset must be as it was when the connection opened
    (connection.Connection). Close it when done, or let it go: its spill folder goes with it."""
    session = connect(root, events, allow_read, views=COPIED)
    if session.no_events:  # a log the dataset does not store: its views say why when read
        for name in ("events", "battles", "deals"):
            session.con.execute(f"CREATE VIEW {name} AS SELECT * FROM (SELECT error({sql_literal(session.no_events)}) "
                                f"AS unavailable) WHERE unavailable IS NOT NULL")
    spill, session.spill = session.spill, None  # removed with the connection, not the session
    _open.discard(session)
    weakref.finalize(session.con, shutil.rmtree, spill, True)
    return Connection(session.con, root)


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
    kept = " but the games it keeps (--keep)" if any(e.keep for e in counted) else ""
    return (f"the games view holds no rows of rule set{'s' if len(counted) > 1 else ''} {which} of "
            f"{str(ds.root)!r}{kept}, storing counts of its deals (--log counts): "
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
    (its games are every one of them; its shares are exact only where each deal decides its game:
    the counts view's `exact`, every_deal.exact_every_deal)."""
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


class _Functions:
    """A connection that keeps the Python functions a view's set-up makes, and does nothing else."""

    def __init__(self):
        self.made: dict = {}

    def create_function(self, name, function, *args, **kwargs) -> None:
        self.made[name] = function

    def execute(self, *args, **kwargs) -> None:
        return None


def view_functions(root) -> dict:
    """The Python functions of the games and counts views of the dataset at `root` (its deals'
    piles, a taken game's source, ...), by name: what a session opened from a plan (plan.py)
    calls when a query first reads one of those columns."""
    ds = Dataset.open(root)
    functions = _Functions()
    games_view(functions, ds.manifest.rule_sets, ds.manifest.schema_version, lambda e: ds.lineage(e, range(e.games)))
    create_counts_view(functions, ds.manifest.rule_sets, _counts_files(ds))
    return functions.made
