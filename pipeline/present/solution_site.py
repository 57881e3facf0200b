"""`war serve SOLUTION`: a solution of `war solve` in the browser, read-only as a dataset is
(serve.py says what the server may do, and it does no more here):

- `/`: its report (solution_page.py), built at the start, and again once the solution is
  rewritten (`war solve --overwrite`): a page of the old one beside SQL of the new said two things;
- `/sql?q=SQL` and `/queries/NAME?PARAM=VALUE`: its named queries (queries/solution/) and
  ad-hoc SQL over its views, in war query's sandbox (solution_views.py: files only inside the
  solution), every row with `&format=csv` or `json`;
- `/games`: a page saying a solution has no games, and where its deals are.

A query that asks games (or reads another folder, as vs_exact does) is not offered and is refused.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from ..errors import DatasetError, QueryError, WarError
from ..jobs.query import open_query, solution_queries
from ..jobs.query.solution_views import schema_solution_session
from ..solve.folder import MANIFEST, read_manifest
from ..storage.layout import files_identity
from . import sql_page
from .bounds import TIME_LIMIT, Hangups
from .headers import Headers
from .pages import render
from .site import SLOTS
from .solution_page import render_solution_report

LINKS = (("/", "Report"), ("/games", "Games"), ("/sql", "SQL"))
VIEWS_SQL = sql_page.VIEWS_SQL.replace("('games', 'events', 'event_rows', 'rules', 'battles', 'cards')",
                                       "('deals', 'positions', 'distribution', 'deck')")


class SolutionSite:
    """The solution at `root` as the server shows it: its name, its report (built once for each
    manifest it has: a rewrite replaces the manifest whole), its queries; `open` runs one within
    the server's bounds."""

    def __init__(self, root, name: str | None = None):
        self.root = root
        self.name = name or str(root)
        self.body = read_manifest(root)  # a bad folder fails here, not on the first request
        self._report: str | None = None
        self._built_of: tuple | None = None

    def _manifest_stamp(self) -> tuple:
        try:
            return files_identity(self.root, [MANIFEST])
        except OSError:
            raise DatasetError(f"the solution {self.name!r} is gone (no {MANIFEST})") from None

    def report(self) -> str:
        stamp = self._manifest_stamp()
        if self._report is None or stamp != self._built_of:
            self.body = read_manifest(self.root)
            self._report = render_solution_report(self.root, self.name, links=[("/sql", "SQL")])
            self._built_of = stamp
        return self._report

    def queries(self) -> list:
        return [q for q in solution_queries().values() if q.dataset == "solution"]

    def open(self, sql: str | None = None, name: str | None = None, params: dict | None = None):
        SLOTS.take()
        try:
            result = open_query(self.root, sql=sql, name=name, params=params, step_limit=TIME_LIMIT)
        except BaseException:
            SLOTS.give_back()
            raise
        return SLOTS.held_by(result)

    def close(self) -> None:
        pass


def _views() -> list[tuple[str, list[str]]]:
    session = schema_solution_session()
    try:
        rows = session.con.sql(VIEWS_SQL).fetchall()
    finally:
        session.close()
    found = dict(rows)
    return [(v, found[v]) for v in ("deck", "deals", "positions", "distribution") if v in found]


def sql(site: SolutionSite, query, name: str | None = None) -> Response:
    """The SQL page or a named query's page of the solution; with format=csv or json, every row."""
    try:
        fmt = sql_page.check_format(query.get("format"))
    except QueryError as err:
        raise HTTPException(400, str(err)) from None
    forms = [sql_page.QueryForm(q.name, q.summary, q.answers, q.params, q.body) for q in site.queries()]
    named = None
    if name is not None:
        named = next((f for f in forms if f.name == name), None)
        if named is None:
            raise HTTPException(404, f"no named query {name[:60]!r} of a solution (the SQL page lists them)")
    answered = sql_page.answer_request(site, query, fmt, name, named)
    if not isinstance(answered, tuple):
        return answered
    fields, status = answered
    page = render("sql.html", title=f"{name or 'SQL'}: {site.name}", heading=name or "SQL", links=LINKS, site=site,
                  **fields, queries=forms, views=_views(), limit=sql_page.HTML_ROWS, time_limit=TIME_LIMIT,
                  queries_folder="queries/solution/", list_of=f"{site.name} --list", kind="solution")
    return HTMLResponse(page, status_code=status)


def create_solution_app(root, name: str | None = None, hosts=("127.0.0.1",), progress=None,
                        built: Callable[[], None] | None = None) -> Starlette:
    """The app for the solution at `root`; its report is built now (`progress` told of its one
    step, `built()` once it is)."""

    site = SolutionSite(root, name)
    try:
        site.report()
        if progress is not None:
            progress(1, 1)
    finally:
        if built is not None:
            built()

    def report(request: Request) -> Response:
        return HTMLResponse(site.report())

    def games(request: Request) -> Response:
        return HTMLResponse(render("solution_games.html", title=f"Games: {site.name}", heading="Games", links=LINKS,
                                   site=site, deals=site.body["deals"]))

    def sql_view(request: Request) -> Response:
        return sql(site, request.query_params)

    def query_view(request: Request) -> Response:
        return sql(site, request.query_params, request.path_params["name"])

    async def error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            status, text = exc.status_code, exc.detail
        elif isinstance(exc, WarError):
            status, text = 400, str(exc)
        else:
            status, text = 500, "internal error"
        return PlainTextResponse(f"{status}: {text}\n"[:2000], status_code=status)

    get = ["GET"]
    app = Starlette(
        routes=[Route("/", report, methods=get), Route("/games", games, methods=get),
                Route("/sql", sql_view, methods=get), Route("/queries/{name:str}", query_view, methods=get)],
        middleware=[Middleware(Headers), Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts)),
                    Middleware(Hangups)],
        exception_handlers={HTTPException: error, WarError: error, Exception: error},
    )
    app.state.site = site
    return app
