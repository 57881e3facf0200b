"""Statistics with DuckDB over a dataset's Parquet files, in place, read-only.

- `registry`: the named queries of `queries/`, their headers and parameters.
- `safety`: only statements that read may run, checked before anything runs; DuckDB's errors
  as QueryErrors.
- `reads`: which views a query reads (the event views cost a pass over every battle to set up).
- `session`: a DuckDB connection with the views games, events, event_rows, rules, battles and
  cards, locked to the dataset's files (and the paths of `allow_read`).
- `stream`: a query's `Result`, whose rows come as Arrow record batches, never all at once.
- `guard`: what stops DuckDB's work: Ctrl-C or SIGTERM, a time limit, a reader gone away.
- `answer`: `open_query`, `describe` and `run`, which put these together.
"""

from .answer import Prepared, describe, needs_events, open_prepared, open_query, prepare, run
from .registry import NamedQuery, Param, named_queries, named_query, parse_query, queries_dir, solution_queries
from .safety import Checked, check_sql, check_statement, parse_statements
from .reads import EVENT_VIEW_NAMES, EVENT_VIEWS, log_views, log_views_read, parse_tree, reads_event_views, reads_log, tables_named
from .guard import Guard, scope as guard_scope
from .log_views import events_sql
from .session import Session, connect, open_connection, schema_session
from .stream import BATCH_ROWS, Result, parquet_refusal

__all__ = [
    "run", "open_query", "open_prepared", "prepare", "Prepared", "describe", "needs_events",
    "NamedQuery", "Param", "named_queries", "named_query", "parse_query", "queries_dir", "solution_queries",
    "check_sql", "Checked", "check_statement", "parse_statements",
    "EVENT_VIEW_NAMES", "EVENT_VIEWS", "log_views", "log_views_read", "parse_tree", "reads_event_views", "reads_log", "tables_named",
    "Session", "connect", "open_connection", "events_sql", "schema_session",
    "BATCH_ROWS", "Result", "parquet_refusal", "Guard", "guard_scope",
]
