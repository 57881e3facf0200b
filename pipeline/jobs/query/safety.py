"""Which statements a query may run: only those that read (SELECT and its kin), checked before
anything runs; and DuckDB's errors said as QueryErrors, a read the session's lock refused
naming what lets it through.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import duckdb

from ...errors import QueryError
from .reads import EVENT_VIEW_NAMES, log_views, parse_tree, reads_games, reads_view

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
PERMISSION = re.compile(r'Cannot access (?:file|directory) "([^"]*)"')
PARAM_RANGE = re.compile(r"^Invalid Input Error: (parameter (\w+) .*)$")
HINT_INDENT = "  "  # DuckDB's hints below an SQL error's line (`hints`)
HINT_LINES = 12
HINT_CHARS = 300


def refusal(kind: str) -> QueryError:
    return QueryError(f"{kind} is refused: a query may only read its dataset (SELECT, WITH, "
                      f"DESCRIBE, SUMMARIZE, SHOW, EXPLAIN, PIVOT); {SAVE_HINT}", params=("output",))


def statement_type(statement):
    """The statement's DuckDB StatementType; None for a kind this DuckDB's Python API cannot name."""
    try:
        return statement.type
    except ValueError:
        return None


def _kind(statement) -> str:
    """The statement's kind as a person names it: its first word, or where that is WITH (a WITH
    that ends in DELETE, INSERT, UPDATE) the kind DuckDB parsed."""
    m = FIRST_WORD.match(statement.query)
    word = m.group(1).upper() if m else "this statement"
    parsed = statement_type(statement)
    if word == "WITH" and parsed is not None and parsed not in READING:
        word = parsed.name.upper()
    if word == "COPY":
        return "COPY ... TO" if re.search(r"\bTO\b", statement.query, re.I) else "COPY ... FROM"
    return {"EXPORT": "EXPORT DATABASE", "IMPORT": "IMPORT DATABASE"}.get(word, word)


def check_statement(statement) -> None:
    """Refuse a statement that could write, load or change anything (QueryError naming its kind)."""
    kind = statement_type(statement)
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
                raise refusal(f"EXPLAIN {_kind(inner[0])}") from None
    raise refusal(_kind(statement))


def parse_statements(sql: str) -> list:
    try:
        return duckdb.extract_statements(sql)
    except duckdb.Error as err:
        raise sql_error(err) from None


@dataclass(frozen=True)
class Checked:
    """A query's SQL as one parse of it says: one statement that only reads, whether it is an
    EXPLAIN, and the views of the event log it reads (reads.log_views)."""

    sql: str
    explain: bool
    log_views: frozenset[str]
    games: bool = False  # it reads the games view (or its rows) itself
    counts: bool = False  # it reads the counts view itself (a counted rule set's rows, which games lacks)

    @property
    def events(self) -> bool:
        """Whether it reads the decoded event views (events, battles, and their parts)."""
        return bool(self.log_views & EVENT_VIEW_NAMES)


def check_sql(sql: str) -> Checked:
    """The SQL is one statement that only reads; else a QueryError that says why, before
    anything has run. Parsed once: DuckDB's parse tree (reads.parse_tree) answers for a SELECT
    and its kin, which is every statement but a few (EXPLAIN, PRAGMA, PIVOT, CALL, and those
    refused); only where it gives none are the statements parsed again by kind."""
    if not sql or not sql.strip():
        raise QueryError("no SQL given")
    tree = parse_tree(sql)
    if tree is not None:  # every statement a SELECT
        count = len(tree.get("statements") or [])
        if count != 1:
            raise QueryError("no SQL given (only comments)" if not count else
                             f"give one statement, not {count} (WITH names a part of a query)")
        return Checked(sql, False, log_views(sql, tree), reads_games(sql, tree), reads_view(sql, tree, ("counts",)))
    statements = parse_statements(sql)
    if not statements:
        raise QueryError("no SQL given (only comments)")
    for s in statements:
        check_statement(s)
    if len(statements) > 1:
        raise QueryError(f"give one statement, not {len(statements)} (WITH names a part of a query)")
    return Checked(sql, statement_type(statements[0]) == ST.EXPLAIN, log_views(sql, None), reads_games(sql, None),
                   reads_view(sql, None, ("counts",)))


def sql_error(err: Exception) -> QueryError:
    """A DuckDB (or Arrow) error as a QueryError: a file outside the dataset names `allow_read`,
    an extension load is refused as writing would be, a named query's own check of a parameter's
    range (`error('parameter NAME ...')`) is said as it is, each on one line; anything else is an
    SQL error, its first line DuckDB's and then DuckDB's hints, indented (`hints`)."""
    text = str(err).strip()
    m = PERMISSION.search(text)
    if m:
        return QueryError(f"the query reads {_read_where(m.group(1))}; `allow_read` PATH lets a query read files "
                          "under PATH", params=("allow_read",))
    if "Loading external extensions is disabled" in text:
        return refusal("loading an extension")
    first = text.splitlines()[0] if text else type(err).__name__
    if "maximum total string size" in first:  # Arrow's string buffers hold 2 GB; a batch went past it
        return QueryError("the result's values are too large: one batch of its rows holds over 2 GB of text "
                          "(rows stream a batch at a time); choose fewer or shorter values (LIMIT, left(...))")
    m = PARAM_RANGE.match(first)
    if m:
        return QueryError(f"{m.group(1)} (`params` {m.group(2)}=...)", params=("params",))
    return QueryError(f"SQL error: {first}{hints(text)}")


def _read_where(path: str) -> str:
    """What a path the lock refused is, in words: outside the dataset, and for a relative path,
    where it was looked for. DuckDB reads a relative path from the process's current directory,
    not the dataset's folder (its lock checks the path from there whatever file_search_path says,
    so a session cannot read it from the dataset), which a user naming a dataset file would not
    guess."""
    if not path or os.path.isabs(path) or path.startswith("~") or "://" in path:
        return f"{path!r}, outside the dataset"
    try:
        here = os.getcwd()
    except OSError:  # the current directory was removed
        return (f"{path!r}, outside the dataset: a relative path is read from the current directory, not from "
                "the dataset's folder")
    return (f"{os.path.normpath(os.path.join(here, path))!r}, outside the dataset: a relative path ({path!r}) is read "
            f"from the current directory ({here}), not from the dataset's folder")


def hints(text: str) -> str:
    """What DuckDB says below its error's first line ("Candidate bindings: ...", "Did you mean
    ...?", the statement's line and a caret under the place: `LINE 1: ...` then `^^^`), each line
    indented by HINT_INDENT after a newline, blank lines left out, at most HINT_LINES of them of
    HINT_CHARS each; "" when DuckDB said one line. The caret stays under its place: the line it
    points into is indented alike."""
    lines = [line.replace("\t", "  ").rstrip() for line in text.splitlines()[1:]]
    lines = [line if len(line) <= HINT_CHARS else line[:HINT_CHARS - 1] + "…" for line in lines if line.strip()]
    if len(lines) > HINT_LINES:
        lines = lines[:HINT_LINES - 1] + [f"... ({len(lines) - HINT_LINES + 1} more lines)"]
    return "".join(f"\n{HINT_INDENT}{line}" for line in lines)
