"""A DuckDB session over a dataset's Parquet files, in place, read-only.

Views: `games` and `events` (the files the manifest lists; `events` shows one row per event,
decoded from the rows of the `events/` files, which are `event_rows`), `rules` (one row per
rule set, every option a column), `battles` (one row per battle, read from its shape without
decoding cards), `cards` (every card of every deck in the dataset with its label). Macros:
`card_label(code)` labels a standard-deck card (`10♥`, `JK1`); `wilson_low(p, n, z)` and
`wilson_high(p, n, z)` bound the Wilson score interval of a share p of n (z: 1.96 for 95%), the
one formula every named query with intervals uses.

Once the views exist the connection is locked: file access only inside the dataset (and the
folders `allow_read` names), no extension loading, configuration frozen. Each session spills to
a private temporary folder, removed when it closes.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import duckdb
import pyarrow as pa
import pyarrow.dataset as pads
from pyarrow import fs

from ...errors import QueryError
from ...log.tables import EVENT_SCHEMA, GAME_SCHEMA
from ...model.rules import build_rules
from ...model.schema import RuleSetEntry
from ...storage.dataset import Dataset
from ...storage.location import is_remote


# A view read (after FROM, JOIN, a comma, DESCRIBE, SUMMARIZE, SHOW, TABLE, PIVOT, or quoted as in
# PRAGMA table_info('events')) on a line that is not a comment: the `battles` column of games
# and the words of a query's header do not set up the event views, which costs a pass over every
# battle's shape (seconds on a million games).
_VIEW_NAMES = r"(?:events|battles|event_steps|battle_shapes)"
EVENT_VIEWS = re.compile(
    r"^(?!\s*--)[^\n]*?(?:(?:\bFROM|\bJOIN|\bDESCRIBE|\bSUMMARIZE|\bSHOW|\bTABLE|\bPIVOT|\bUNPIVOT)\s*"
    + _VIEW_NAMES + r"\b(?!\s*[.(])|,\s*" + _VIEW_NAMES + r"\b(?!\s*[.(),])|['\"]" + _VIEW_NAMES + r"['\"])",
    re.IGNORECASE | re.MULTILINE)


@dataclass
class Session:
    """A DuckDB connection with the dataset's views, locked down, and its private spill folder.
    `events`: whether the decoded event views (events, battles) were set up."""
    con: duckdb.DuckDBPyConnection
    spill: str | None = None
    events: bool = True

    def cursor(self) -> "Session":
        """A new connection to the same database, for another thread: the same views and lock,
        without the set-up (a server answers each request in a cursor of one session). Closing
        it leaves this session open."""
        return Session(self.con.cursor(), None, self.events)

    def close(self) -> None:
        self.con.close()
        if self.spill:
            shutil.rmtree(self.spill, ignore_errors=True)


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
    spill = tempfile.mkdtemp(prefix="war-query-")
    session = Session(con, spill, events)
    try:
        con.execute("SET enable_progress_bar = false")
        con.execute(f"SET temp_directory = {_quote(spill)}")
        for table in ("games", "events"):
            files_of = [ds.root / f.path for f in ds.files(table)]
            if not files_of:
                raise QueryError(f"dataset {str(ds.root)!r} lists no {table} files")
            view = "event_rows" if table == "events" else table
            if is_remote(ds.root):
                _remote_view(con, ds.root, view, table, files_of)
                continue
            paths = [str(p.resolve()) for p in files_of]
            for p in paths:
                if not Path(p).exists():
                    raise QueryError(f"dataset file {p!r} is missing (`war validate` says more)")
            listing = ", ".join(_quote(p) for p in paths)
            hive = "true" if table == "events" else "false"
            con.execute(f"CREATE VIEW {view} AS SELECT * FROM read_parquet([{listing}], "
                        f"hive_partitioning = {hive})")
        if events:
            _events_view(con)
        _rules_table(con, ds.manifest.rule_sets)
        con.execute(CARD_SQL)
        if events:
            con.execute(BATTLES_SQL)
        dataset_folders = [] if is_remote(ds.root) else [_folder(ds.root.resolve())]
        lock(con, dataset_folders + [_folder(Path(spill))] + [_folder(Path(f)) for f in folders], files)
    except BaseException:
        session.close()
        raise
    return session


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
    session = Session(con, None, events)
    rows = pa.schema([pa.field(f.name, pa.string() if pa.types.is_dictionary(f.type) else f.type)
                      for f in EVENT_SCHEMA] + [pa.field("variant", pa.string())])
    con.register("_games", GAME_SCHEMA.empty_table())
    con.register("_event_rows", rows.empty_table())
    con.execute("CREATE TABLE games AS SELECT * FROM _games")
    con.execute("CREATE TABLE event_rows AS SELECT * FROM _event_rows")
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
    rows = []
    for e in entries:
        rules = e.rules.model_dump(mode="json")
        rules["war_down"] = str(rules["war_down"])
        rows.append({"rule_set": e.ordinal, "rules_id": e.rules_id, **rules,
                     "policies": ",".join(e.policies), "seed": e.seed, "games": e.games})
    seeds = pa.array([r.pop("seed") for r in rows], pa.uint64())
    rules_table = pa.Table.from_pylist(rows).append_column("seed", seeds)
    if empty:
        rules_table = rules_table.slice(0, 0)
    con.register("_rules", rules_table)
    con.execute("CREATE TABLE rules AS SELECT * FROM _rules")
    con.unregister("_rules")


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


def _events_view(con) -> None:
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
