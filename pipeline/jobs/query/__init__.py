"""Statistics with DuckDB over a dataset's Parquet files, in place, read-only.

- `registry`: the named queries of `queries/`, their headers and parameters.
- `safety`: only statements that read may run, checked before anything runs; DuckDB's errors
  as QueryErrors.
- `reads`: which views a query reads (the event views cost a pass over every battle to set up).
- `session`: a DuckDB connection with the views games, events, event_rows, rules, battles and
  cards, locked to the dataset's files (and the paths of `allow_read`); `session_setup` sets
  the views up, `plan` keeps what it set up for the next query of the same dataset.
- `stream`: a query's `Result`, whose rows come as Arrow record batches, never all at once.
- `guard`: what stops DuckDB's work: Ctrl-C or SIGTERM, a time limit, a reader gone away.
- `answer`: `open_query`, `describe` and `run`, which put these together.

Each name is imported from its module when first asked for (PEP 562): a query of ad-hoc SQL
then imports neither the named queries' registry nor the set-up of the views.
"""

from __future__ import annotations

import importlib

_FROM = {
    "answer": ("run", "open_query", "open_prepared", "prepare", "Prepared", "describe", "needs_events"),
    "registry": ("NamedQuery", "Param", "named_queries", "named_query", "parse_query", "queries_dir", "solution_queries"),
    "safety": ("check_sql", "Checked", "check_statement", "parse_statements"),
    "reads": ("EVENT_VIEW_NAMES", "EVENT_VIEWS", "log_views", "log_views_read", "parse_tree", "reads_event_views",
              "reads_log", "tables_named"),
    "guard": ("Guard", "guard_scope:scope"),
    "log_views": ("events_sql",),
    "session": ("Session",),
    "session_setup": ("connect", "open_connection", "schema_session"),
    "stream": ("BATCH_ROWS", "Result", "parquet_refusal"),
}
_WHERE = {entry.partition(":")[0]: (module, entry.partition(":")[2] or entry)
          for module, entries in _FROM.items() for entry in entries}

__all__ = [
    "run", "open_query", "open_prepared", "prepare", "Prepared", "describe", "needs_events",
    "NamedQuery", "Param", "named_queries", "named_query", "parse_query", "queries_dir", "solution_queries",
    "check_sql", "Checked", "check_statement", "parse_statements",
    "EVENT_VIEW_NAMES", "EVENT_VIEWS", "log_views", "log_views_read", "parse_tree", "reads_event_views", "reads_log", "tables_named",
    "Session", "connect", "open_connection", "events_sql", "schema_session",
    "BATCH_ROWS", "Result", "parquet_refusal", "Guard", "guard_scope",
]


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _WHERE[name]
    value = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
