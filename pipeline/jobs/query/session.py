"""A DuckDB session over a dataset's Parquet files, in place, read-only.

Views: `games` and `events` (the files the manifest lists; `events` shows one row per event,
decoded from the rows of the `events/` files, which are `event_rows`, knowing each kind by what
it does, from the table `event_kinds`), `rules` (one row per
rule set of the manifest, every option a column, and `rule_set`, the name a person reads:
model.schema.rule_set_names; `games` has it too), `battles` (one row per battle, read from its shape without
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
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.dataset as pads
from pyarrow import fs

from ...errors import QueryError
from ...log.tables import EVENT_SCHEMA, GAME_SCHEMA, game_schema, kinds_table
from ...model.families import registry
from ...model.inputs import not_regular
from ...model.rules import build_rules
from ...engines.compiled.deals import deals_at, first_of_class, swapped_indexes
from ...model.schema import GAME_ID_STRIDE, SCHEMA_VERSION, RuleSet, RuleSetEntry, rule_set_names
from ...storage.dataset import Dataset
from ...storage.journal import process_alive
from ...storage.location import glob_literal, is_remote


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

    def cursor(self) -> "Session":
        """A new connection to the same database, for another thread: the same views (and the
        Python functions they call) and lock, without the set-up (a server answers each request
        in a cursor of one session). Closing it leaves this session open."""
        cursor = Session(self.con.cursor(), None, self.no_events, self.events, partial_log=self.partial_log)
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


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


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


def connect(root, events: bool = True, allow_read: Iterable = ()) -> Session:
    """A locked-down DuckDB session with the dataset's views. `events=False` leaves out the
    decoded `events` and `battles` views, whose set-up reads every battle's shape. Files are
    readable only inside the dataset and the folders or files of `allow_read`."""
    folders, files = _allowed(allow_read)
    ds = Dataset.open(root)
    con = duckdb.connect()
    sweep_spills()
    spill = tempfile.mkdtemp(prefix=f"{SPILL}{os.getpid()}-")
    session = Session(con, spill, events=events)
    _open.add(session)
    try:
        con.execute("SET enable_progress_bar = false")
        con.execute(f"SET temp_directory = {_quote(spill)}")
        for table in ("games", "events"):
            files_of = [ds.root / f.path for f in ds.files(table)]
            if not files_of and table == "events" and any(e.log == "games" for e in ds.manifest.rule_sets):
                session.no_events, events = _no_files(ds, table), False
                session.events = False
                continue
            if not files_of:
                raise QueryError(_no_files(ds, table))
            if table == "events":
                session.partial_log = _partial_log(ds)
            view = "event_rows" if table == "events" else "game_rows"
            if is_remote(ds.root):
                _remote_view(con, ds.root, view, table, files_of)
                continue
            paths = [str(p.resolve()) for p in files_of]
            for p in paths:
                if not Path(p).exists():
                    raise QueryError(f"dataset file {p!r} is missing (`war validate` says more)")
                kind = not_regular(p)
                if kind is not None:
                    raise QueryError(f"dataset file {p!r} is {kind}, not a file (`war validate` says more)")
            con.execute(f"CREATE VIEW {view} AS {_local_scan(table, ds.files(table), paths, ds.manifest.rule_sets)}")
        _games_view(con, ds.manifest.rule_sets, ds.manifest.schema_version)
        _kinds_table(con)
        if events:
            _events_view(con)
        _rules_table(con, ds.manifest.rule_sets)
        con.execute(CARD_SQL)
        if events:
            con.execute(BATTLES_SQL)
        dataset_folders = [] if is_remote(ds.root) else \
            sorted({_folder(ds.root.resolve()), _folder(Path(glob_literal(str(ds.root.resolve()))))})
        lock(con, dataset_folders + [_folder(Path(spill))] + [_folder(Path(f)) for f in folders], files)
    except BaseException:
        session.close()
        raise
    return session


def _no_files(ds: Dataset, table: str) -> str:
    """Why a dataset has no files of `table`: for events, its games were generated without their
    log, and how to get it."""
    if table == "events" and any(e.log == "games" for e in ds.manifest.rule_sets):
        return (f"dataset {str(ds.root)!r} stores the games table alone (`--log games`): its event log was "
                f"not stored; regenerate the events of the games you want with war generate --from "
                f"{str(ds.root)} --where \"...\" --out NEW (a WHERE over its games), then query NEW")
    return f"dataset {str(ds.root)!r} lists no {table} files"


def _partial_log(ds: Dataset) -> str | None:
    """Which rule sets a dataset of event log and games table alone has no events of, and how
    to get them; None when every rule set stores its log."""
    alone = [e for e in ds.manifest.rule_sets if e.log == "games"]
    if not alone:
        return None
    names = rule_set_names(ds.manifest.rule_sets)
    which = ", ".join(f"{e.ordinal} ({names[e.rules_id]}, {e.games:,} games)" for e in alone)
    return (f"the event views hold no rows of rule set{'s' if len(alone) > 1 else ''} {which} of "
            f"{str(ds.root)!r}, which store{'' if len(alone) > 1 else 's'} the games table alone (--log games); "
            f"war generate --from {str(ds.root)} --where \"...\" --out NEW plays chosen games again with their log")


def _games_view(con, entries, version: int = SCHEMA_VERSION) -> None:
    """The `games` view: the games files' rows (null in the columns a dataset of an older schema
    `version` does not have), then `deal_index` (which deal of its deck a game
    played, for a rule set that plays every deal, `--all-deals`: its game_index; else null),
    `piles` (that deal: each seat's pile, card codes top first, computed from its number) and
    `swapped_index` (two seats: the number of the same deal with the seats' piles swapped) and
    `first_of_class` (two seats: whether deal_index <= swapped_index, found without computing
    swapped_index, which would cost a query over every deal of a 12-card deck most of its time)."""
    enumerated = {e.ordinal: e.rules for e in entries if e.all_deals}

    def piles(game_ids: pa.Array) -> pa.Array:
        ids = game_ids.to_numpy(zero_copy_only=False)
        out = [None] * len(ids)
        ordinals = ids // GAME_ID_STRIDE
        for ordinal in np.unique(ordinals):
            where = np.flatnonzero(ordinals == ordinal)
            rules = enumerated.get(int(ordinal))
            if rules is None:
                continue
            dealt = deals_at(rules, ids[where] - ordinal * GAME_ID_STRIDE)
            for row, cards, sizes in zip(where, dealt.cards, dealt.sizes):
                bounds = np.concatenate([[0], np.cumsum(sizes[:-1])])
                out[row] = [cards[a:b].tolist() for a, b in zip(bounds[:-1], bounds[1:])]
        return pa.array(out, pa.list_(pa.list_(pa.int16())))

    def of_two_seats(game_ids: pa.Array, answer, dtype, arrow_type) -> pa.Array:
        """`answer(rules, deal numbers)` for the games of two-seat rule sets that play every
        deal, null for the others."""
        ids = game_ids.to_numpy(zero_copy_only=False)
        out = np.zeros(len(ids), dtype)
        known = np.zeros(len(ids), np.bool_)
        ordinals = ids // GAME_ID_STRIDE
        for ordinal in np.unique(ordinals):
            rules = enumerated.get(int(ordinal))
            if rules is not None and rules.players == 2:
                where = np.flatnonzero(ordinals == ordinal)
                out[where] = answer(rules, ids[where] - ordinal * GAME_ID_STRIDE)
                known[where] = True
        return pa.array(out, arrow_type, mask=~known)

    def swapped(game_ids: pa.Array) -> pa.Array:
        return of_two_seats(game_ids, swapped_indexes, np.int64, pa.int64())

    def first(game_ids: pa.Array) -> pa.Array:
        return of_two_seats(game_ids, first_of_class, np.bool_, pa.bool_())

    con.create_function("war_deal_piles", piles, ["BIGINT"], "SMALLINT[][]", type="arrow",
                        null_handling="special", side_effects=False)
    con.create_function("war_swapped_deal", swapped, ["BIGINT"], "BIGINT", type="arrow",
                        null_handling="special", side_effects=False)
    con.create_function("war_first_of_class", first, ["BIGINT"], "BOOLEAN", type="arrow",
                        null_handling="special", side_effects=False)
    older = "".join(f"CAST(NULL AS {_SQL_TYPES[str(f.type)]}) AS {f.name}, " for f in GAME_SCHEMA
                    if f.name not in game_schema(version).names)
    con.execute(f"CREATE VIEW games AS SELECT *, {older}CASE WHEN deal = 'all' THEN game_index END AS deal_index, "
                "CASE WHEN deal = 'all' THEN war_deal_piles(game_id) END AS piles, "
                "CASE WHEN deal = 'all' AND players = 2 THEN war_swapped_deal(game_id) END AS swapped_index, "
                "CASE WHEN deal = 'all' AND players = 2 THEN war_first_of_class(game_id) END AS first_of_class, "
                f"{_rule_set_names(entries)} AS rule_set FROM game_rows")


_SQL_TYPES = {"int32": "INTEGER", "int64": "BIGINT"}  # of the columns later schema versions added


def _rule_set_names(entries) -> str:
    """The SQL of a game's `rule_set`, its rule set's name (model.schema.rule_set_names), from
    the ordinal in its game_id: a CASE of constants, so a query of games joins nothing."""
    names = rule_set_names(entries)
    cases = " ".join(f"WHEN {e.ordinal} THEN {_quote(names[e.rules_id])}" for e in entries)
    return f"CASE game_id // {GAME_ID_STRIDE} {cases} END" if cases else "CAST(NULL AS VARCHAR)"


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
    con.execute(f"SET allowed_directories = [{', '.join(map(_quote, folders))}]")
    con.execute(f"SET allowed_paths = [{', '.join(map(_quote, files))}]")
    con.execute("SET autoinstall_known_extensions = false")
    con.execute("SET autoload_known_extensions = false")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def schema_session(events: bool = True) -> Session:
    """A locked session with every view over empty tables of the dataset schema: what a query
    returns can be told without any dataset (`war query --show`)."""
    con = duckdb.connect()
    session = Session(con, None, events=events)
    rows = pa.schema([pa.field(f.name, pa.string() if pa.types.is_dictionary(f.type) else f.type)
                      for f in EVENT_SCHEMA] + [pa.field("variant", pa.string())])
    con.register("_games", GAME_SCHEMA.empty_table())
    con.register("_event_rows", rows.empty_table())
    con.execute("CREATE TABLE game_rows AS SELECT * FROM _games")
    _games_view(con, [])
    con.execute("CREATE TABLE event_rows AS SELECT * FROM _event_rows")
    _kinds_table(con)
    if events:
        _events_view(con)
    sample = build_rules("classic")
    _rules_table(con, [RuleSetEntry(ordinal=0, rules_id=sample.rules_id, rules=sample, seed=0,
                                    games=0, shard_size=1)], empty=True)
    con.execute(CARD_SQL)
    if events:
        con.execute(BATTLES_SQL)
    lock(con, [], [])
    return session


def _rules_table(con, entries, empty: bool = False) -> None:
    """The `rules` table: a row a rule set, a column each option of the dataset's families (null
    in the rows of a family without it), in the rule set's order; an option that also takes
    words (war_down's by_rank) as text."""
    names = rule_set_names(entries)
    worded = {name for name, option in registry().options.items() if option.words}
    options = [e.rules.options() for e in entries]
    shown = [name for name in RuleSet.model_fields if any(name in o for o in options)]
    columns = {"rule_set": [names[e.rules_id] for e in entries], "ordinal": [e.ordinal for e in entries],
               "rules_id": [e.rules_id for e in entries]}
    columns.update({name: [(str(o[name]) if name in worded else o[name]) if name in o else None for o in options]
                    for name in shown})
    columns.update({"policies": [",".join(e.policies) for e in entries], "games": [e.games for e in entries]})
    rules_table = pa.table({k: pa.array(v) for k, v in columns.items()}).append_column(
        "seed", pa.array([e.seed for e in entries], pa.uint64()))
    if empty:
        rules_table = rules_table.slice(0, 0)
    con.register("_rules", rules_table)
    con.execute("CREATE TABLE rules AS SELECT * FROM _rules")
    con.unregister("_rules")


def _local_scan(table: str, files: list, paths: list[str], entries) -> str:
    """The SQL that reads a table's files on local disk: each path given as a glob pattern that
    matches only itself (DuckDB reads every path as a pattern, so a dataset in a folder named
    `**` or `star*x` would read other folders' files), and for events the `variant` column taken
    from the manifest, one scan a variant, not from the path (a folder `variant=x` above the
    dataset would be read as its variant, and DuckDB reads any path's `key=value` folders unless
    told not to)."""
    if table != "events":
        return f"SELECT * FROM read_parquet([{', '.join(_quote(glob_literal(p)) for p in paths)}], hive_partitioning = false)"
    variants = {e.ordinal: e.rules.variant for e in entries}
    by_variant: dict[str, list[str]] = {}
    for f, path in zip(files, paths):
        by_variant.setdefault(variants.get(f.rule_set, ""), []).append(path)
    return " UNION ALL ".join(
        f"SELECT *, {_quote(variant)} AS variant FROM read_parquet([{', '.join(_quote(glob_literal(p)) for p in group)}], "
        f"hive_partitioning = false)"
        for variant, group in by_variant.items())


def _remote_view(con, root, view: str, table: str, files: list) -> None:
    """A view over files on remote storage, read through pyarrow's file system (DuckDB scans the
    Arrow dataset, pushing down columns and filters), so no DuckDB extension is needed."""
    for f, info in zip(files, root.fs.get_file_info([f.path for f in files])):
        if info.type != fs.FileType.File:
            raise QueryError(f"dataset file {str(f)!r} is missing (`war validate` says more)")
    hive = {"partitioning": "hive", "partition_base_dir": (root / table).path} if table == "events" else {}
    data = pads.dataset([f.path for f in files], filesystem=root.fs, format="parquet", **hive)
    con.register(f"_{view}_files", data)
    con.execute(f"CREATE VIEW {view} AS SELECT * FROM _{view}_files")


def events_sql() -> str:
    """The SQL that decodes `event_rows` into the `events` view (also for DuckDB used directly)."""
    return (Path(__file__).resolve().parents[2] / "log" / "events.sql").read_text(encoding="utf-8")


def _kinds_table(con) -> None:
    """The `event_kinds` table: what each kind does, from the families' declarations, which
    log/events.sql reads; there whether or not the event views are."""
    con.register("_event_kinds", kinds_table())
    con.execute("CREATE TABLE event_kinds AS SELECT * FROM _event_kinds")
    con.unregister("_event_kinds")


def _events_view(con) -> None:
    """The `events` view (log/events.sql) over `event_rows` and `event_kinds`."""
    con.execute(events_sql())
    bad = con.execute("SELECT shape FROM event_steps WHERE NOT well_formed LIMIT 1").fetchone()
    if bad:
        raise QueryError(f"the dataset's events do not decode: shape {bad[0]!r} "
                         "(`war validate` says more)")


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

BATTLES_SQL = """
CREATE VIEW battles AS
SELECT r.game_id, r.battle, r.variant, coalesce(s.war_depth, 0) AS war_depth, s.winner,
    CAST(s.table_cards AS BIGINT) AS table_cards, s.set_aside, g.rules_id
FROM event_rows r JOIN battle_shapes s ON r.shape = s.shape JOIN games g ON g.game_id = r.game_id
WHERE r.battle > 0 AND s.fights;
"""
