"""The server's SQL: `/sql?q=SQL` runs a query, `/queries/NAME?PARAM=VALUE` a named query, in
the sandbox `war query` runs in (jobs.query: only statements that read, checked before anything
runs; DuckDB locked to the dataset's files). A page shows the first HTML_ROWS rows; with
`format=csv` or `format=json` every row is streamed, batch by batch, so a result of any size
goes out in flat memory.

Time: DuckDB may compute for at most TIME_LIMIT seconds for a page, and for at most TIME_LIMIT
seconds to a download's first rows and between two of its batches (bounds.py, through the
query's guard), so a runaway query stops while a large download that keeps flowing does not. A
download runs to its first rows before its answer starts: a query that fails before them is a
400 with the message. A page's query state is all in its URL, which is its permalink.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from urllib.parse import urlencode

from starlette.exceptions import HTTPException

from ..errors import QueryError
from ..jobs.query import Result, named_queries
from .bounds import TIME_LIMIT, Download
from .output import csv_chunks, json_chunks

HTML_ROWS = 1000
CELL_CHARS = 300
FORMATS = ("html", "csv", "json")
NUMBERS = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
           "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL"}
MEDIA = {"csv": "text/csv; charset=utf-8", "json": "application/json"}


@dataclass
class Answer:
    """A query's first rows for a page: columns (name, type, whether numbers), rows as text,
    whether more rows exist, how long it took, and what its reader should know (`Result.note`)."""

    columns: list[tuple[str, str, bool]] = field(default_factory=list)
    rows: list[list[tuple[str, str]]] = field(default_factory=list)  # (text, class) per cell
    more: bool = False
    seconds: float = 0.0
    note: str | None = None


def cell(value) -> tuple[str, str]:
    """A value as a page shows it, with its CSS class: NULL, numbers right-aligned, lists and
    structs as JSON, long text cut."""
    if value is None:
        return "NULL", "null"
    if isinstance(value, bool):
        return ("true" if value else "false"), "num"
    if isinstance(value, float):
        return ("NaN" if math.isnan(value) else f"{value:.10g}"), "num"
    if isinstance(value, int):
        return str(value), "num"
    if isinstance(value, (list, dict, tuple)):
        text = json.dumps(value, ensure_ascii=False, default=str)
    else:
        text = str(value)
    return (text if len(text) <= CELL_CHARS else text[:CELL_CHARS - 1] + "…"), ""


def first_rows(result: Result, limit: int = HTML_ROWS, seconds: float = TIME_LIMIT) -> Answer:
    """The first `limit` rows of a result, as a page shows them, within `seconds` of DuckDB's
    work in all (QueryError past it)."""
    start = time.perf_counter()
    result.guard.limit = seconds
    with result:
        columns = [(name, kind, kind.split("(")[0] in NUMBERS) for name, kind in result.columns]
        rows = []
        for batch in result.shown_batches(limit + 1, CELL_CHARS + 1):
            rows += batch.to_pylist()
    more = len(rows) > limit
    shown = [[cell(v) for v in r.values()] for r in rows[:limit]]
    return Answer(columns, shown, more, time.perf_counter() - start, result.note)


def download(result: Result, fmt: str) -> Iterator[bytes]:
    """Every row of a result as CSV or JSON (an array, one object a line), chunk by chunk. The
    query runs to its first batch now, so an error before any row is raised here (QueryError,
    for the caller's 400) rather than after the answer started; the result is closed at the end,
    or when the body is closed (its reader went away)."""
    try:
        batches = result.csv_batches() if fmt == "csv" else result.json_lines()
        rest = iter(batches)
        first = next(rest, None)
    except BaseException:
        result.close()
        raise
    return _chunks(result, _Started(batches.schema, first, rest), fmt)


def _chunks(result: Result, batches: "_Started", fmt: str) -> Iterator[bytes]:
    try:
        yield from (csv_chunks(batches) if fmt == "csv" else json_chunks(batches, lines=False))
    finally:
        result.close()


class _Started:
    """A result's batches whose first was read already (None: there are none); `schema` as the
    reader's."""

    def __init__(self, schema, first, rest):
        self.schema, self.first, self.rest = schema, first, rest

    def __iter__(self):
        if self.first is None:
            return
        yield self.first
        yield from self.rest


# what a QueryError's hints for the command line (its flags) say on the web instead
WEB_HINTS = {"to save a result, use `output` FILE": "format=csv or format=json downloads a result",
             "; `allow_read` PATH lets a query read files under PATH": "; the server reads only the dataset",
             "is read from the current directory": "is read from the server's current directory"}


def answer_request(source, query, fmt: str, name: str | None, named) -> tuple[dict, int] | Download:
    """A SQL page's request once its named query (`named`, a QueryForm, or None for SQL) is
    found, the same for a dataset's site and a solution's: its parameters checked, every row
    streamed for format=csv or json, else the page's fields and status. `source.open(**query)`
    runs it."""
    if named is not None:
        unknown = set(query.keys()) - {p.name for p in named.params} - {"format"}
        if unknown:
            raise HTTPException(400, f"query {name!r} has no parameter {sorted(unknown)[0][:40]!r}")
        values, text = {k: v for k, v in query.items() if k != "format"}, None
    else:
        unknown = set(query.keys()) - {"q", "format"}
        if unknown:
            raise HTTPException(400, f"unknown parameter {sorted(unknown)[0][:40]!r}")
        values, text = {}, query.get("q", "")
    run_it = named is not None or bool(text.strip())
    if fmt != "html":
        if not run_it:
            raise HTTPException(400, "give the SQL to run: q=SQL")
        return download_response(source, fmt, f"{name or 'query'}.{fmt}", sql=text, name=name, params=values)
    answer, error, status = None, None, 200
    if run_it:
        try:
            answer = first_rows(source.open(sql=text, name=name, params=values))
        except QueryError as err:
            error, status = message(err), 400
    base = f"/queries/{name}?" if name else "/sql?"
    here = {**values, "q": text} if name is None else values
    exports = [(f.upper(), base + urlencode({**here, "format": f})) for f in ("csv", "json")]
    return dict(q=text or "", named=named, values=values, answer=answer, error=error, exports=exports), status


def download_response(site, fmt: str, filename: str, **query) -> Download:
    """A query's rows as the file `filename` (CSV or JSON), streamed from `site.open(**query)` (a
    dataset's snapshot or a solution's site): run to its first rows first, so a query that fails
    before them is a 400, not a 200 cut short."""
    try:
        chunks = download(site.open(**query), fmt)
    except QueryError as err:
        raise HTTPException(400, message(err)) from None
    return Download(chunks, f"the download of {filename}", media_type=MEDIA[fmt],
                    headers={"content-disposition": f'inline; filename="{filename}"'})


def message(err: QueryError) -> str:
    """A query's error as the SQL page says it: the command line's hints in the web's words."""
    text = str(err)
    for cli, web in WEB_HINTS.items():
        text = text.replace(cli, web)
    return err.__class__(text, params=err.params).spoken(lambda name: name)


def check_format(text: str | None) -> str:
    fmt = (text or "html").strip().lower()
    if fmt not in FORMATS:
        raise QueryError(f"format must be one of: {', '.join(FORMATS)}")
    return fmt


@dataclass
class QueryForm:
    """A named query as the SQL page lists it: its name, what it answers, and each parameter
    (name, type, default, help) for its form."""

    name: str
    summary: str
    answers: str
    params: list
    sql: str


def query_forms() -> list[QueryForm]:
    return [QueryForm(q.name, q.summary, q.answers, q.params, q.body) for q in named_queries().values()]


VIEWS_SQL = """
SELECT table_name AS view, list(column_name || ' ' || data_type ORDER BY ordinal_position) AS columns
FROM information_schema.columns
WHERE table_name IN ('games', 'events', 'event_rows', 'rules', 'battles', 'cards', 'counts')
GROUP BY table_name
"""
VIEW_ORDER = ("games", "events", "battles", "counts", "rules", "cards", "event_rows")
EVENT_VIEWS = frozenset({"events", "battles", "event_rows"})


def views_of(logs, every_deal: bool) -> list[tuple[str, list[str]]]:
    """The views the SQL page lists for a dataset whose rule sets store `logs` (events, games,
    counts): the event views only where some rule set keeps its events, `counts` only where some
    rule set plays or counts every deal (its rows are theirs alone). A counts dataset listed
    `events` and `battles`, which failed there, and not `counts`, which every exact answer reads."""
    return [(name, columns) for name, columns in views()
            if (name not in EVENT_VIEWS or "events" in logs) and (name != "counts" or every_deal)]


@cache
def views() -> list[tuple[str, list[str]]]:
    """The views a query reads, each with its columns and their types (from empty views of the
    dataset schema: no dataset is read)."""
    from ..jobs.query import schema_session

    session = schema_session(True)
    try:
        rows = session.con.sql(VIEWS_SQL).fetchall()
    finally:
        session.close()
    found = {name: columns for name, columns in rows}
    return [(name, found[name]) for name in VIEW_ORDER if name in found]
