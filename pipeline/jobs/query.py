"""Statistics with DuckDB over a dataset's Parquet files, in place.

Views: `games` and `events` (the files the manifest lists; `events` shows one row per event,
decoded from the rows of the `events/` files, which are `event_rows`), `rules` (one row per
rule set, every option a column), `battles` (one row per battle, read from its shape without
decoding cards), `cards` (every card of every deck in the dataset with its label). Macro
`card_label(code)` labels a standard-deck card (`10♥`, `JK1`).

Named queries are `.sql` files whose header says what they answer and which parameters they
take:

    -- answers: How long do games last, per variant and rule set?
    -- param: limit INTEGER = 20 -- how many games to list

Parameters are bound by DuckDB (`$limit`), never pasted into the SQL text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.dataset as pads
from pyarrow import fs

from ..errors import QueryError
from ..storage.dataset import Dataset
from ..storage.location import is_remote

PARAM_LINE = re.compile(r"^--\s*param:\s*(\w+)\s+(\w+)\s*(?:=\s*(.*?))?\s*(?:--\s*(.*))?$")
TYPES = {"INTEGER": int, "BIGINT": int, "DOUBLE": float, "VARCHAR": str, "BOOLEAN": None}


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


def queries_dir() -> Path:
    package = Path(__file__).resolve().parent.parent
    for candidate in (package.parent / "queries", package / "_queries"):
        if candidate.is_dir():
            return candidate
    raise QueryError("the named queries folder is missing from this installation")


def parse_query(path: Path) -> NamedQuery:
    text = path.read_text(encoding="utf-8")
    answers, params = [], []
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
        elif line.startswith("-- answers:"):
            answers.append(line.removeprefix("-- answers:").strip())
        elif answers and line.startswith("--   "):
            answers.append(line[2:].strip())
    if not answers:
        raise QueryError(f"{path.name}: header has no `-- answers:` line")
    return NamedQuery(path.stem, " ".join(answers), text, params)


def named_queries() -> dict[str, NamedQuery]:
    """Every named query by name: what it answers (`answers`), its SQL and its parameters."""
    return {p.stem: parse_query(p) for p in sorted(queries_dir().glob("*.sql"))}


# A view read FROM or JOINed (or listed after a comma) on a line that is not a comment: the
# `battles` column of games and the words of a query's header do not set up the event views,
# which costs a pass over every battle's shape (seconds on a million games).
EVENT_VIEWS = re.compile(r"^(?!\s*--)[^\n]*?(?:(?:\bFROM|\bJOIN)\s*(?:events|battles|event_steps|battle_shapes)"
                         r"\b(?!\s*[.(])|,\s*(?:events|battles|event_steps|battle_shapes)\b(?!\s*[.(),]))",
                         re.IGNORECASE | re.MULTILINE)


def connect(root, events: bool = True):
    """A DuckDB connection with the dataset's views. `events=False` leaves out the decoded
    `events` and `battles` views, whose set-up reads every battle's shape."""
    ds = Dataset.open(root)
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    for table in ("games", "events"):
        files = [ds.root / f.path for f in ds.files(table)]
        if not files:
            raise QueryError(f"dataset {str(ds.root)!r} lists no {table} files")
        view = "event_rows" if table == "events" else table
        if is_remote(ds.root):
            _remote_view(con, ds.root, view, table, files)
            continue
        paths = [str(p.resolve()) for p in files]
        for p in paths:
            if not Path(p).exists():
                raise QueryError(f"dataset file {p!r} is missing (`war validate` says more)")
        listing = ", ".join("'" + p.replace("'", "''") + "'" for p in paths)
        hive = "true" if table == "events" else "false"
        con.execute(f"CREATE VIEW {view} AS SELECT * FROM read_parquet([{listing}], "
                    f"hive_partitioning = {hive})")
    if events:
        _events_view(con)
    rows = []
    for e in ds.manifest.rule_sets:
        rules = e.rules.model_dump(mode="json")
        rules["war_down"] = str(rules["war_down"])
        rows.append({"rule_set": e.ordinal, "rules_id": e.rules_id, **rules,
                     "policies": ",".join(e.policies), "seed": e.seed, "games": e.games})
    seeds = pa.array([r.pop("seed") for r in rows], pa.uint64())
    rules_table = pa.Table.from_pylist(rows).append_column("seed", seeds)
    con.register("_rules", rules_table)
    con.execute("CREATE TABLE rules AS SELECT * FROM _rules")
    con.unregister("_rules")
    con.execute(CARD_SQL)
    if events:
        con.execute(BATTLES_SQL)
    return con


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


def _error(err: Exception) -> QueryError:
    first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return QueryError(f"SQL error: {first}")


def run(root, sql: str | None = None, name: str | None = None, params: dict[str, str] | None = None):
    """Run a named query (`name`, with `params` {name: value as text}) or ad-hoc SQL over the
    dataset at `root`; the result as a pyarrow Table (None for SQL that returns nothing).
    The views are those of `connect`: games, events, event_rows, rules, battles, cards."""
    params = dict(params or {})
    bound: dict = {}
    if name is not None:
        queries = named_queries()
        if name not in queries:
            raise QueryError(f"unknown query {name!r} (named queries: {', '.join(queries)})")
        q = queries[name]
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
    if not sql or not sql.strip():
        raise QueryError("no SQL given")
    con = connect(root, events=bool(EVENT_VIEWS.search(sql)))
    try:
        rel = con.sql(sql, params=bound) if bound else con.sql(sql)
        return rel.to_arrow_table() if rel is not None else None
    except duckdb.Error as err:
        raise _error(err) from None
    finally:
        con.close()
