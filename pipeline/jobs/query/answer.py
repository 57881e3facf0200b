"""Answering a query: a named query with its parameters bound, or ad-hoc SQL, checked, then
opened in a session over the dataset (with the event views only when the SQL reads them), its
columns told, or its whole result run into a table.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import partial
from typing import Iterable, Mapping

import duckdb
import pyarrow as pa

from ...errors import DatasetError, QueryError, brief
from .safety import Checked, check_sql, sql_error
from .reads import reads_event_views
from .guard import Guard
from .session import Session
from .stream import Result

# The named queries' registry (the families'), the set-up of the views (the models) and a
# solution's views (its manifest's model) are imported where a query needs them: a query of
# ad-hoc SQL over a dataset whose plan is kept (plan.py) imports none of them.
SOLUTION_MANIFEST = "solution.json"  # solve.folder.MANIFEST: a folder without one is no solution


def _is_solution(root) -> bool:
    """solve.folder.is_solution, its module imported only for a folder that holds a solution's
    manifest."""
    if root is None or "://" in str(root) or not os.path.lexists(os.path.join(os.fspath(root), SOLUTION_MANIFEST)):
        return False
    from .solution_views import is_solution

    return is_solution(root)


def named_query(name: str):
    """registry.named_query, the registry imported when a named query is first asked for."""
    from .registry import named_query

    return named_query(name)


@dataclass(frozen=True)
class Prepared:
    """A query ready to open: its SQL checked and parsed once (safety.Checked), its parameters
    bound, and for a named query about every deal its name and what its header says is exact
    (`-- exact:`)."""

    checked: Checked
    params: dict
    name: str | None = None
    exact: str = ""
    dataset: str = "games"  # what the named query asks: games, or a solution of war solve
    solution: str | None = None  # a SOLUTION parameter's folder, whose views it reads beside the games
    seats: tuple = ()  # its parameters bounded by the dataset's players (`< players`: Param.check_players)

    @property
    def events(self) -> bool:
        """Whether it reads the decoded event views, whose set-up is a pass over every battle's
        shape: a caller keeping sessions open knows which one to give it."""
        return self.checked.events


def prepare(sql: str | None = None, name: str | None = None, params: dict[str, str] | None = None) -> Prepared:
    """A named query (`name`, with `params` {name: value as text}) or ad-hoc SQL, checked and
    bound, not yet opened."""
    if params is not None and not isinstance(params, Mapping):
        raise QueryError(f"`params` is a mapping of parameter names to values ({{'limit': '5'}}), not {brief(params)}",
                         params=("params",))
    for given, what in ((sql, "sql"), (name, "name")):
        if given is not None and not isinstance(given, str):
            raise QueryError(f"`{what}` is a text, not {brief(given)}", params=(what,))
    params = dict(params or {})
    exact, dataset, solution, seats = "", "games", None, ()
    if name is not None:
        if sql is not None:
            raise QueryError("give a query `name` or `sql`, not both", params=("name", "sql"))
        q = named_query(name)
        sql, exact, dataset = q.sql, q.exact, q.dataset
        for p in q.params:  # a folder whose views the session makes, not a value DuckDB binds
            if p.type == "SOLUTION":
                solution = params.pop(p.name, "")
        bound = q.bind(params, solution=solution)
        seats = tuple(p for p in q.params if p.by_players)
    else:
        bound = params
    return Prepared(check_sql(sql), bound, name, exact, dataset, solution, seats)


def _check_seats(session: Session, query: Prepared) -> None:
    """Refuse a parameter bounded by the dataset's players (`< players`) beyond them: the bound is
    the dataset's, known once its session is open (the manifest's rule sets it read). A session
    without rule sets (no dataset: `describe`, a solution's views) bounds nothing. Asked only of a
    query with such a parameter: a planned session's rule sets open the manifest (its models)."""
    if not query.seats:
        return
    players = max((p for e in session.rule_sets if (p := getattr(e.rules, "players", None)) is not None), default=None)
    if players is not None:
        for param in query.seats:
            param.check_players(query.params[param.name], players)


def needs_events(sql: str | None = None, name: str | None = None) -> bool:
    """Whether a query reads the decoded event views (events, battles), whose set-up is a pass
    over every battle's shape."""
    return reads_event_views(named_query(name).sql if name is not None else sql or "")


def open_query(root, sql: str | None = None, name: str | None = None,
               params: dict[str, str] | None = None, allow_read: Iterable = (),
               session: Session | None = None, limit: float | None = None,
               step_limit: float | None = None) -> Result:
    """A named query (`name`, with `params` {name: value as text}) or ad-hoc SQL over the dataset
    at `root`, checked and bound but not yet run (`describe` binds one to empty views of the
    dataset schema, to tell its columns without a dataset). With `session` (an open `connect`
    session, with the event views when the query reads them), the query runs in a cursor of it
    instead of a session of its own, so a server pays the views' set-up once. DuckDB may work on
    it for `limit` seconds in all and `step_limit` seconds a step (binding, each batch of rows),
    and Ctrl-C stops it wherever it is (guard.py). Close the Result when done."""
    if root is None and session is None:
        raise DatasetError("no dataset given: `root` is None, and a query of no dataset would answer from empty "
                           "views (war.describe_query tells a query's columns without one)", params=("root",))
    if root is not None and not isinstance(root, (str, os.PathLike)):  # a number reached os.fspath's TypeError
        raise DatasetError(f"`root` is a dataset folder (a path or a URI), not {brief(root)}", params=("root",))
    return open_prepared(root, prepare(sql, name, params), allow_read, session, limit, step_limit)


def open_prepared(root, query: Prepared, allow_read: Iterable = (), session: Session | None = None,
                  limit: float | None = None, step_limit: float | None = None) -> Result:
    """open_query of a query already prepared (`prepare`), which a caller that chooses the
    session by it (Prepared.events) has parsed once already."""
    checked, bound = query.checked, query.params
    if session is not None:
        if checked.events and not session.events:
            raise QueryError(session.no_events or "the query reads the event views, which this session has not set up")
        session = session.cursor()
    elif root is not None and _is_solution(root):  # a solution of war solve: views of its own
        from .solution_views import solution_session

        session = solution_session(root, checked.sql, query.name, query.dataset, allow_read)
    elif query.dataset == "solution":
        if root is not None:
            raise QueryError(f"query {query.name!r} asks a solution of war solve (war solve ... --out DIR), "
                             f"and {str(root)!r} is not one")
        from .solution_views import schema_solution_session

        session = schema_solution_session()
    else:
        attach = None
        if query.solution is not None and root is None:
            from .solution_views import empty_views

            attach = partial(empty_views, prefix="solved_")
        elif query.solution is not None:
            if not query.solution:
                raise QueryError(f"query {query.name!r} needs `params` solution=DIR, a folder of war solve --out",
                                 params=("params",))
            from .solution_views import attach_solution

            attach = attach_solution(query.solution)
        if root is None:
            from .session_setup import schema_session

            session = schema_session(checked.events, attach)
        elif attach is None:  # from the dataset's plan when one is kept (plan.py)
            from .plan import open_session

            session = open_session(root, checked.events, allow_read, views=checked.log_views)
        else:
            from .session_setup import connect

            session = connect(root, checked.events, allow_read, views=checked.log_views, attach=attach)
    guard = Guard(session, limit, step_limit)
    try:
        _check_seats(session, query)
        with guard.step():  # binding runs the table functions' arguments: range((SELECT ...))
            relation = session.con.sql(checked.sql, params=bound) if bound else session.con.sql(checked.sql)
    except duckdb.CatalogException as err:
        session.close()
        if session.no_events and checked.log_views:  # the log it does not store
            raise QueryError(session.no_events) from None
        raise sql_error(err) from None
    except duckdb.Error as err:
        session.close()
        raise sql_error(err) from None
    except BaseException:
        session.close()
        raise
    if relation is None:  # cannot happen for the statements check_sql lets through
        session.close()
        raise QueryError("the statement returns no result")
    notes = [session.partial_log if checked.log_views else None,
             _every_deal_note(root, session.rule_sets, query.name, query.exact) if query.exact and root is not None else None,
             session.counted if session.counted and checked.games and not checked.counts else None]
    return Result(session, relation, checked.explain, "; ".join(n for n in notes if n) or None, guard)


def _every_deal_note(root, entries, name, exact):
    from .every_deal import every_deal_note

    return every_deal_note(root, entries, name, exact)


def describe(root, sql: str | None = None, name: str | None = None,
             params: dict[str, str] | None = None, allow_read: Iterable = (), columns=None) -> pa.Table:
    """The result's columns (`column`, `type`), found by binding the query, without running it;
    only `columns` (names, or "a,b,c"), in their order, when given."""
    with open_prepared(root, prepare(sql, name, params), allow_read) as result:
        if columns is not None:
            result.choose(columns)
        cols = result.columns
    return pa.table({"column": [c for c, _ in cols], "type": [t for _, t in cols]})


def run(root, sql: str | None = None, name: str | None = None, params: dict[str, str] | None = None,
        allow_read: Iterable = (), session: Session | None = None) -> pa.Table:
    """Run a named query (`name`, with `params` {name: value as text}) or ad-hoc SQL over the
    dataset at `root`; the whole result as a pyarrow Table (`open_query` streams it instead).
    The views are those of `connect` (games, events, battles, cards, deals, rules, counts, ...). A query
    may only read: a statement that writes or loads anything is refused before it runs, and
    files outside the dataset are readable only under the paths of `allow_read`. `session` as
    in `open_query`."""
    with open_query(root, sql, name, params, allow_read, session) as result:
        reader = result.batches()
        return pa.Table.from_batches(list(reader), schema=reader.schema)
