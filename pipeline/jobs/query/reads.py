"""Which of a dataset's views a query reads, before it runs: the event views (events, battles)
cost a pass over every battle's shape to set up (seconds on a million games), so a query that
reads only `games` should not pay it; and a dataset that stores the log of some rule sets only
has a word to say to a query of the log.

DuckDB's own parser says which tables a SELECT names (`json_serialize_sql`: the parse tree, no
binding, so no view need exist), less the names a WITH clause gives. A statement it does not
serialise (PRAGMA, EXPLAIN, PIVOT, SHOW) or that names no table is read by a pattern instead,
which errs on the side of setting the views up: `battles` is also a column of games, and only
the parse tree tells `GROUP BY variant, battles` from `FROM games, battles`.
"""

from __future__ import annotations

import json
import re
import threading

import duckdb

EVENT_VIEW_NAMES = frozenset({"events", "battles", "deals", "event_steps", "battle_shapes", "shape_steps", "event_row_steps"})

# A view read (after FROM, JOIN, a comma, DESCRIBE, SUMMARIZE, SHOW, TABLE, PIVOT, or quoted as in
# PRAGMA table_info('events')) on a line that is not a comment: the `battles` column of games
# and the words of a query's header do not match.
_VIEW_NAMES = r"(?:events|battles|event_steps|battle_shapes|shape_steps|event_row_steps)"
EVENT_VIEWS = re.compile(
    r"^(?!\s*--)[^\n]*?(?:(?:\bFROM|\bJOIN|\bDESCRIBE|\bSUMMARIZE|\bSHOW|\bTABLE|\bPIVOT|\bUNPIVOT)\s*"
    + _VIEW_NAMES + r"\b(?!\s*[.(])|,\s*" + _VIEW_NAMES + r"\b(?!\s*[.(),])|['\"]" + _VIEW_NAMES + r"['\"])",
    re.IGNORECASE | re.MULTILINE)
EVENT_ROWS = re.compile(r"^(?!\s*--)[^\n]*?\bevent_rows\b", re.IGNORECASE | re.MULTILINE)

_parser: list[duckdb.DuckDBPyConnection] = []  # one bare in-memory connection, for parse trees only
_parser_lock = threading.Lock()  # a connection opens in about 25 ms, a tree takes 0.5 ms


def parse_tree(sql: str) -> dict | None:
    """DuckDB's parse tree of `sql` (json_serialize_sql: no binding, so no view need exist);
    None when it does not serialise it: a statement other than a SELECT (or a kin of SELECT:
    DESCRIBE, SUMMARIZE, SHOW, FROM-first), or SQL it cannot parse."""
    try:
        with _parser_lock:
            if not _parser:
                _parser.append(duckdb.connect())
            text = _parser[0].execute("SELECT json_serialize_sql($sql)", {"sql": sql}).fetchone()[0]
        tree = json.loads(text)
    except (duckdb.Error, ValueError):
        return None
    return None if tree.get("error") else tree


def spare_connection() -> duckdb.DuckDBPyConnection | None:
    """The parser's connection, for a session about to open one (None when there is none): a
    command parses its query, then opens its session, and starts one DuckDB instead of two (a
    connection costs 25 ms of CPU). The next parse opens another."""
    with _parser_lock:
        return _parser.pop() if _parser else None


def tables_named(tree: dict) -> frozenset[str] | None:
    """The tables and views a parse tree names (lower case, without the WITH clause's own
    names); None when it names none."""
    tables: set[str] = set()
    ctes: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("type") == "BASE_TABLE" and isinstance(node.get("table_name"), str):
                tables.add(node["table_name"].lower())
            cte_map = node.get("cte_map")
            if isinstance(cte_map, dict):
                ctes.update(str(entry.get("key", "")).lower() for entry in cte_map.get("map", []))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    named = frozenset(tables - ctes)
    return named or None


def log_views(sql: str, tree: dict | None) -> frozenset[str]:
    """The views of the event log `sql` reads, of EVENT_VIEW_NAMES and `event_rows`: by its
    parse tree (parse_tree), or, without one or where it names no table, by the patterns, which
    name no view: EVENT_VIEW_NAMES or `event_rows` whole."""
    named = tables_named(tree) if tree is not None else None
    if named is not None:
        return named & (EVENT_VIEW_NAMES | {"event_rows"})
    return (EVENT_VIEW_NAMES if EVENT_VIEWS.search(sql) else frozenset()) | \
        (frozenset({"event_rows"}) if EVENT_ROWS.search(sql) else frozenset())


def log_views_read(sql: str) -> frozenset[str]:
    """The views of the event log `sql` reads (log_views), from a parse of its own: for a
    question about a query alone. A query that runs is parsed once, by safety.check_sql."""
    return log_views(sql, parse_tree(sql))


def reads_event_views(sql: str) -> bool:
    """Whether `sql` reads the decoded event views (events, battles, and their parts)."""
    return bool(log_views_read(sql) & EVENT_VIEW_NAMES)


def reads_log(sql: str) -> bool:
    """Whether `sql` reads the event log at all: the event views or `event_rows`."""
    return bool(log_views_read(sql))


def reads_games(sql: str, tree: dict | None) -> bool:
    """Whether `sql` reads the games view (or its rows) itself, by its parse tree (parse_tree; a
    view that reads it, such as `counts`, is not counted); by a pattern where there is none."""
    return reads_view(sql, tree, ("games", "game_rows"))


def reads_view(sql: str, tree: dict | None, names) -> bool:
    """Whether `sql` names one of the views `names` itself (by its parse tree, else by a pattern)."""
    named = tables_named(tree) if tree is not None else None
    if named is not None:
        return bool(named & set(names))
    return re.search(r"\b(" + "|".join(map(re.escape, names)) + r")\b", sql, re.IGNORECASE) is not None
