"""Statistics with DuckDB over a dataset's Parquet files, in place, read-only.

Views: `games` and `events` (the files the manifest lists; `events` shows one row per event,
decoded from the rows of the `events/` files, which are `event_rows`), `rules` (one row per
rule set, every option a column), `battles` (one row per battle, read from its shape without
decoding cards), `cards` (every card of every deck in the dataset with its label). Macros:
`card_label(code)` labels a standard-deck card (`10♥`, `JK1`); `wilson_low(p, n, z)` and
`wilson_high(p, n, z)` bound the Wilson score interval of a share p of n (z: 1.96 for 95%), the
one formula every named query with intervals uses.

Named queries are `.sql` files whose header says what they answer and which parameters they
take:

    -- summary: How long do games last?                  (optional; else the first sentence)
    -- answers: How long do games last, per variant and rule set? ...
    -- param: limit INTEGER = 20 -- how many games to list

Parameters are bound by DuckDB (`$limit`), never pasted into the SQL text.

A query may only read its dataset. Its statements are checked before anything runs (only
statements that read are let through: SELECT and its kin), and once the views exist the
connection is locked: file access only inside the dataset (and the folders `allow_read`
names), no extension loading, configuration frozen. Results stream: `Result` hands out Arrow
record batches, never the whole result at once.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import duckdb
import pyarrow as pa
import pyarrow.dataset as pads
from pyarrow import fs

from ..errors import QueryError
from ..log.tables import EVENT_SCHEMA, GAME_SCHEMA
from ..model.rules import build_rules
from ..model.schema import RuleSetEntry
from ..storage.dataset import Dataset
from ..storage.location import is_remote

PARAM_LINE = re.compile(r"^--\s*param:\s*(\w+)\s+(\w+)\s*(?:=\s*(.*?))?\s*(?:--\s*(.*))?$")
TYPES = {"INTEGER": int, "BIGINT": int, "DOUBLE": float, "VARCHAR": str, "BOOLEAN": None}
BATCH_ROWS = 1 << 17  # rows per Arrow batch: a few MB, whatever the result's size


@dataclass
class Param:
    name: str
    type: str
    default: str | None
    help: str

    def convert(self, text: str):
        if self.type == "BOOLEAN":
            if text.lower() in ("true", "1", "yes"):
                return True
            if text.lower() in ("false", "0", "no"):
                return False
            raise QueryError(f"parameter {self.name!r} wants true or false, got {text!r}")
        try:
            return TYPES[self.type](text)
        except ValueError:
            raise QueryError(f"parameter {self.name!r} wants {self.type.lower()}, got {text!r}") from None


@dataclass
class NamedQuery:
    name: str
    answers: str
    sql: str
    params: list[Param] = field(default_factory=list)
    summary: str = ""

    @property
    def body(self) -> str:
        """The SQL without its header comment."""
        lines = self.sql.splitlines()
        while lines and lines[0].startswith("--"):
            lines.pop(0)
        return "\n".join(lines).strip() + "\n"


FIRST_SENTENCE = re.compile(r"^(.*?[.?!])(?:\s+(?=[A-Z(])|$)")


def queries_dir() -> Path:
    package = Path(__file__).resolve().parent.parent
    for candidate in (package.parent / "queries", package / "_queries"):
        if candidate.is_dir():
            return candidate
    raise QueryError("the named queries folder is missing from this installation")


def parse_query(path: Path) -> NamedQuery:
    text = path.read_text(encoding="utf-8")
    answers, params, summary = [], [], ""
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        m = PARAM_LINE.match(line)
        if m:
            name, type_, default, help_ = m.groups()
            type_ = type_.upper()
            if type_ not in TYPES:
                raise QueryError(f"{path.name}: parameter {name!r} has unknown type {type_}")
            params.append(Param(name, type_, default, help_ or ""))
        elif line.startswith("-- summary:"):
            summary = line.removeprefix("-- summary:").strip()
        elif line.startswith("-- answers:"):
            answers.append(line.removeprefix("-- answers:").strip())
        elif answers and line.startswith("--   "):
            answers.append(line[2:].strip())
    if not answers:
        raise QueryError(f"{path.name}: header has no `-- answers:` line")
    answer = " ".join(answers)
    if not summary:
        m = FIRST_SENTENCE.match(answer)
        summary = m.group(1) if m else answer
    return NamedQuery(path.stem, answer, text, params, summary)


def named_queries() -> dict[str, NamedQuery]:
    """Every named query by name: what it answers (`answers`, and `summary` in one sentence),
    its SQL and its parameters."""
    return {p.stem: parse_query(p) for p in sorted(queries_dir().glob("*.sql"))}


def named_query(name: str) -> NamedQuery:
    queries = named_queries()
    if name not in queries:
        raise QueryError(f"unknown query {name!r} (named queries: {', '.join(queries)})")
    return queries[name]


# ---------------------------------------------------------------- which statements may run

ST = duckdb.StatementType
READING = {ST.SELECT, ST.MULTI, ST.CALL}  # MULTI: a PIVOT, which DuckDB splits in two
READ_PRAGMAS = {"table_info", "show", "show_tables", "show_tables_expanded", "show_databases",
                "database_list", "database_size", "storage_info", "version", "platform",
                "functions", "collations", "user_agent", "metadata_info"}
SKIP = r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*"
FIRST_WORD = re.compile(SKIP + r"([A-Za-z_]+)", re.S)
EXPLAIN = re.compile(SKIP + r"EXPLAIN\s+(?:ANALY[SZ]E\s+)?(?:\([^)]*\)\s*)?(.*)$", re.S | re.I)
PRAGMA = re.compile(SKIP + r"PRAGMA\s+(\w+)", re.S | re.I)
SAVE_HINT = "to save a result, use `output` FILE"


def _refusal(kind: str) -> QueryError:
    return QueryError(f"{kind} is refused: a query may only read its dataset (SELECT, WITH, "
                      f"DESCRIBE, SUMMARIZE, SHOW, EXPLAIN, PIVOT); {SAVE_HINT}", params=("output",))


def _type(statement):
    try:
        return statement.type
    except ValueError:  # a statement kind this DuckDB's Python API cannot name
        return None


def _kind(statement) -> str:
    m = FIRST_WORD.match(statement.query)
    word = m.group(1).upper() if m else "this statement"
    if word == "COPY":
        return "COPY ... TO" if re.search(r"\bTO\b", statement.query, re.I) else "COPY ... FROM"
    return {"EXPORT": "EXPORT DATABASE", "IMPORT": "IMPORT DATABASE"}.get(word, word)


def check_statement(statement) -> None:
    """Refuse a statement that could write, load or change anything (QueryError naming its kind)."""
    kind = _type(statement)
    if kind in READING:
        return
    if kind == ST.PRAGMA:
        m = PRAGMA.match(statement.query)
        if m and m.group(1).lower() in READ_PRAGMAS:
            return
    if kind == ST.EXPLAIN:
        m = EXPLAIN.match(statement.query)
        inner = parse_statements(m.group(1)) if m and m.group(1).strip() else []
        if len(inner) == 1:
            try:
                check_statement(inner[0])
                return
            except QueryError:
                raise _refusal(f"EXPLAIN {_kind(inner[0])}") from None
    raise _refusal(_kind(statement))


def parse_statements(sql: str) -> list:
    try:
        return duckdb.extract_statements(sql)
    except duckdb.Error as err:
        raise _error(err) from None


def check_sql(sql: str) -> None:
    """The SQL is one statement that only reads; else a QueryError that says why, before
    anything has run."""
    if not sql or not sql.strip():
        raise QueryError("no SQL given")
    statements = parse_statements(sql)
    if not statements:
        raise QueryError("no SQL given (only comments)")
    for s in statements:
        check_statement(s)
    if len(statements) > 1:
        raise QueryError(f"give one statement, not {len(statements)} (WITH names a part of a query)")


# ---------------------------------------------------------------- the connection


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
    """A DuckDB connection with the dataset's views, locked down, and its private spill folder."""
    con: duckdb.DuckDBPyConnection
    spill: str | None = None

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
    session = Session(con, spill)
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
        _lock(con, dataset_folders + [_folder(Path(spill))] + [_folder(Path(f)) for f in folders], files)
    except BaseException:
        session.close()
        raise
    return session


def _lock(con, folders: list[str], files: list[str]) -> None:
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
    session = Session(con)
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
    _lock(con, [], [])
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
    return (Path(__file__).resolve().parent.parent / "log" / "events.sql").read_text(encoding="utf-8")


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


PERMISSION = re.compile(r'Cannot access (?:file|directory) "([^"]*)"')


def _error(err: Exception) -> QueryError:
    text = str(err).strip()
    m = PERMISSION.search(text)
    if m:
        return QueryError(f"the query reads {m.group(1)!r}, outside the dataset; `allow_read` "
                          "PATH lets a query read files under PATH", params=("allow_read",))
    if "Loading external extensions is disabled" in text:
        return _refusal("loading an extension")
    first = text.splitlines()[0] if text else type(err).__name__
    return QueryError(f"SQL error: {first}")


# ---------------------------------------------------------------- results


@dataclass
class Result:
    """A query ready to run in a locked session: its columns are known (binding only); its rows
    are produced, batch by batch, by `batches`, `csv_batches` or `json_lines`."""
    session: Session
    relation: duckdb.DuckDBPyRelation
    explain: bool = False

    @classmethod
    def of_table(cls, table: pa.Table) -> "Result":
        """A Result over a table already in memory (a library caller's `run` result)."""
        con = duckdb.connect()
        relation = con.from_arrow(table)
        _lock(con, [], [])
        return cls(Session(con), relation)

    def __enter__(self) -> "Result":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.session.close()

    @property
    def columns(self) -> list[tuple[str, str]]:
        """(name, DuckDB type) of every result column, without running the query."""
        return [(name, str(type_)) for name, type_ in zip(self.relation.columns, self.relation.types)]

    def _stream(self, relation) -> "_Guarded":
        """The rows of the relation `relation()` builds on this one, its errors as QueryErrors."""
        try:
            reader = relation().to_arrow_reader(BATCH_ROWS)
        except duckdb.Error as err:
            raise _error(err) from None
        return _Guarded(reader)

    def _rows(self, limit: int | None):
        return self.relation if limit is None else self.relation.limit(limit)

    def batches(self, limit: int | None = None) -> "_Guarded":
        """The rows (the first `limit` of them) as Arrow record batches, in the query's order."""
        return self._stream(lambda: self._rows(limit))

    def count(self) -> int:
        """How many rows the result has, without carrying them out of DuckDB."""
        try:
            return self.relation.aggregate("count(*)").fetchall()[0][0]
        except duckdb.Error as err:
            raise _error(err) from None

    def csv_batches(self, limit: int | None = None) -> "_Guarded":
        """The rows with lists, structs and maps as JSON text, and other types a CSV file cannot
        hold as text: what CSV needs."""
        exprs, changed = [], False
        for i, (name, type_) in enumerate(zip(self.relation.columns, self.relation.types), start=1):
            if type_.id in NESTED:
                exprs.append(f"CAST(to_json(#{i}) AS VARCHAR) AS {_ident(name)}")
                changed = True
            elif type_.id in AS_TEXT:
                exprs.append(f"CAST(#{i} AS VARCHAR) AS {_ident(name)}")
                changed = True
            else:
                exprs.append(f"#{i} AS {_ident(name)}")
        return self._stream(lambda: self._rows(limit).project(", ".join(exprs)) if changed else self._rows(limit))

    def json_lines(self, limit: int | None = None) -> "_Guarded":
        """One column `json`: each row as a JSON object text (NaN and infinities as null, which
        JSON has no other way to say; in columns and lists of numbers, not deeper)."""
        exprs = []
        for i, (name, type_) in enumerate(zip(self.relation.columns, self.relation.types), start=1):
            if type_.id in ("double", "float"):
                exprs.append(f"CASE WHEN isfinite(#{i}) THEN #{i} END AS {_ident(name)}")
            elif str(type_) in ("DOUBLE[]", "FLOAT[]"):
                exprs.append(f"list_transform(#{i}, lambda x: CASE WHEN isfinite(x) THEN x END) AS {_ident(name)}")
            else:
                exprs.append(f"#{i} AS {_ident(name)}")
        return self._stream(lambda: self._rows(limit).project(", ".join(exprs)).set_alias("_row")
                            .project("CAST(to_json(_row) AS VARCHAR) AS json"))


NESTED = {"list", "struct", "map", "array", "union"}
AS_TEXT = {"enum", "interval", "uuid", "bit", "blob", "time_tz", "varint", "bignum"}


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class _Guarded:
    """A RecordBatchReader whose DuckDB errors become QueryErrors."""

    def __init__(self, reader: pa.RecordBatchReader) -> None:
        self.reader = reader
        self.schema = reader.schema

    def __iter__(self):
        while True:
            try:
                batch = self.reader.read_next_batch()
            except StopIteration:
                return
            except (duckdb.Error, pa.ArrowException) as err:
                raise _error(err) from None
            yield batch


def _prepare(sql: str | None, name: str | None, params: dict[str, str] | None) -> tuple[str, dict]:
    params = dict(params or {})
    bound: dict = {}
    if name is not None:
        if sql is not None:
            raise QueryError("give a query `name` or `sql`, not both", params=("name", "sql"))
        q = named_query(name)
        known = {p.name: p for p in q.params}
        for key in params:
            if key not in known:
                raise QueryError(f"query {name!r} has no parameter {key!r}"
                                 f" (it takes: {', '.join(known) or 'none'})")
        for p in q.params:
            if p.name in params:
                bound[p.name] = p.convert(params[p.name])
            elif p.default is not None:
                bound[p.name] = p.convert(p.default)
            else:
                raise QueryError(f"query {name!r} needs `params` {p.name}=...", params=("params",))
        sql = q.sql
    elif params:
        bound = dict(params)
    check_sql(sql)
    return sql, bound


def open_query(root, sql: str | None = None, name: str | None = None,
               params: dict[str, str] | None = None, allow_read: Iterable = ()) -> Result:
    """A named query (`name`, with `params` {name: value as text}) or ad-hoc SQL over the dataset
    at `root`, checked and bound but not yet run. `root` None binds it to empty views of the
    dataset schema (to tell its columns without a dataset). Close the Result when done."""
    sql, bound = _prepare(sql, name, params)
    events = bool(EVENT_VIEWS.search(sql))
    session = schema_session(events) if root is None else connect(root, events, allow_read)
    try:
        relation = session.con.sql(sql, params=bound) if bound else session.con.sql(sql)
    except duckdb.Error as err:
        session.close()
        raise _error(err) from None
    except BaseException:
        session.close()
        raise
    if relation is None:  # cannot happen for the statements check_sql lets through
        session.close()
        raise QueryError("the statement returns no result")
    explain = _type(parse_statements(sql)[0]) == ST.EXPLAIN
    return Result(session, relation, explain)


def describe(root, sql: str | None = None, name: str | None = None,
             params: dict[str, str] | None = None, allow_read: Iterable = ()) -> pa.Table:
    """The result's columns (`column`, `type`), found by binding the query, without running it."""
    with open_query(root, sql, name, params, allow_read) as result:
        cols = result.columns
    return pa.table({"column": [c for c, _ in cols], "type": [t for _, t in cols]})


def run(root, sql: str | None = None, name: str | None = None, params: dict[str, str] | None = None,
        allow_read: Iterable = ()) -> pa.Table:
    """Run a named query (`name`, with `params` {name: value as text}) or ad-hoc SQL over the
    dataset at `root`; the whole result as a pyarrow Table (`open_query` streams it instead).
    The views are those of `connect`: games, events, event_rows, rules, battles, cards. A query
    may only read: a statement that writes or loads anything is refused before it runs, and
    files outside the dataset are readable only under the paths of `allow_read`."""
    with open_query(root, sql, name, params, allow_read) as result:
        reader = result.batches()
        return pa.Table.from_batches(list(reader), schema=reader.schema)
