"""`war serve`: a read-only web app over one dataset, an explorer in the manner of datasette:

- `/`: the report, built while the server listens (until it is there, a page saying how far
  it is, read again every two seconds), its histogram bars, seats' win rates and matchup cells links to the games behind them;
- `/games`: the games, with facet counts beside each filter, sorted by a click on a column,
  in the columns a person chooses, in numbered pages; `/games.csv` and `/games.json`, the games
  of the same filter: every one, or a page of them when `page` or `per_page` is given
  (games_request.py reads the filter, games_sql.py answers it, games_list.py the facets and pages);
- `/games/ID`: a game's replay page with breadcrumbs and its row, battles and events as tables
  (game_page.py);
- `/sql?q=SQL` and `/queries/NAME?PARAM=VALUE`: a query in `war query`'s sandbox, its first rows
  on the page, every row with `&format=csv` or `&format=json`, streamed (sql_page.py).

Every state is in the URL, so every page is a permalink. The site follows the dataset's
manifest (site.py): after `war generate --append` the new rule sets and variants are listed.

What it may do is narrow on purpose. It serves no file: every answer is built from the dataset
through the library (the manifest's files, read by jobs.query and jobs.replay) and rendered
from the package's templates, so no URL can name a path and a traversal (`/games/../../etc/passwd`,
encoded or not) matches no route. It only reads the data and writes nothing into the dataset (its
report is kept in war's cache, per user, for the next start: report_cache): its own SQL is fixed text with bound
parameters (a sort column chosen from a list), and the SQL a visitor writes runs where `war
query` runs it, refused before it runs unless it only reads, in a DuckDB locked to the
dataset's files, with a time limit. A page is bounded (a list page at most MAX_PER_PAGE games, a
result page HTML_ROWS rows, a game page MAX_PAGE_BYTES); a download streams. It answers GET only,
binds to 127.0.0.1 unless told otherwise, and answers only requests addressed to the host it
binds to. docs/decisions.md says why Starlette and uvicorn.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from urllib.parse import parse_qsl, urlencode

from starlette.applications import Starlette
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from ..errors import GameNotFound, QueryError, UsageError, WarError, ctrl_c_pressed, raise_lost_ctrl_c
from ..jobs.query import named_queries
from ..solve.folder import is_solution
from . import games_list, sql_page
from .bounds import Download, Hangups
from .games_columns import COLUMNS
from .games_filter import OPS, GameFilter
from .games_request import MAX_EXPORT_PAGE, MAX_PER_PAGE, added_filter, parse_filter
from .games_sql import FACET_SIZE, as_sql, count_sql, export_sql, facet_sql, list_sql
from .headers import Headers
from .pages import render
from .site import Progress, Site, Snapshot

MAX_PAGE_BYTES = 64 * 1024 * 1024
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
SITE_LINKS = (("/", "Report"), ("/games", "Games"), ("/sql", "SQL"))
__all__ = ["create_app", "serve", "listen", "MAX_PER_PAGE"]


# ----------------------------------------------------------------------------- pages


def _filter(snap: Snapshot, query, most: int = MAX_PER_PAGE) -> GameFilter:
    return parse_filter(query, snap.infos, snap.players, most)


def games(snap: Snapshot, site: Site, query) -> Response:
    """A page of the games list (templates/games.html); the form that adds a filter
    (`_filter_column`, ...) is sent on to the list's own address with it."""
    added = added_filter(query)
    if added is not None:
        return RedirectResponse(added, status_code=303)
    f = _filter(snap, query)
    rows = snap.run(*list_sql(f))
    counts = snap.run(*facet_sql(f))
    total = games_list.total_of(counts)
    here = f.query()
    every = f.query(page=None, per_page=None)
    this = f.query(page=f.number, per_page=f.size)
    exports = [("CSV", f"/games.csv?{every}"), ("JSON", f"/games.json?{every}"),
               ("SQL", "/sql?" + urlencode({"q": as_sql(f)}))]
    page_exports = [("CSV", f"/games.csv?{this}"), ("JSON", f"/games.json?{this}")]
    page = render("games.html", title=f"Games: {site.name}", heading="Games", links=SITE_LINKS, site=site,
                  f=f, rows=rows, total=total, first=f.offset,
                  facets=games_list.facets(f, counts, snap.infos, snap.players), columns=f.shown,
                  choices=list(COLUMNS.values()), pages=games_list.pager(f, total),
                  last=games_list.last_page(f, total), exports=exports, page_exports=page_exports,
                  back=urlencode({"list": here}) if here else "", ops=OPS,
                  facet_size=FACET_SIZE)
    return HTMLResponse(page)


def game(snap: Snapshot, site: Site, game_id: int, query) -> str:
    """A game's page (game_page.py), with breadcrumbs back to the list it came from."""
    from .game_page import game_page  # lazy: the replay

    extra = set(query.keys()) - {"list"}
    if extra:
        raise HTTPException(400, f"unknown parameter {sorted(extra)[0][:40]!r}")
    back = query.get("list", "")
    listed = _filter(snap, QueryParams(parse_qsl(back, keep_blank_values=True))) if back else GameFilter()
    crumbs = [("/", "Report"), ("/games?" + listed.query() if listed.query() else "/games", "Games")]

    def build() -> str:
        try:
            page = game_page(snap.root, game_id, crumbs)
        except GameNotFound as err:
            raise HTTPException(404, str(err)) from None
        if len(page.encode("utf-8")) > MAX_PAGE_BYTES:
            raise HTTPException(413, f"game {game_id}'s page is over {MAX_PAGE_BYTES // 2**20} MB")
        return page

    return snap.page((game_id, listed.query()), build)


def _format(query) -> str:
    try:
        return sql_page.check_format(query.get("format"))
    except QueryError as err:
        raise HTTPException(400, str(err)) from None


def sql(snap: Snapshot, site: Site, query, name: str | None = None) -> Response:
    """The SQL page (`name` None) or a named query's page; with format=csv or json, every row."""
    fmt = _format(query)
    named = None
    if name is not None:
        queries = named_queries()
        if name not in queries:
            raise HTTPException(404, f"no named query {name[:60]!r} (the SQL page lists them)")
        named = next(q for q in sql_page.query_forms() if q.name == name)
    answered = sql_page.answer_request(snap, query, fmt, name, named)
    if not isinstance(answered, tuple):
        return answered
    fields, status = answered
    title = f"{name}: {site.name}" if name else f"SQL: {site.name}"
    page = render("sql.html", title=title, heading=name or "SQL", links=SITE_LINKS, site=site, **fields,
                  queries=sql_page.query_forms(), views=sql_page.views_of(snap.logs, snap.every_deal),
                  limit=sql_page.HTML_ROWS,
                  time_limit=sql_page.TIME_LIMIT)
    return HTMLResponse(page, status_code=status)


def export_games(snap: Snapshot, query, fmt: str) -> Response:
    """The games of a list's filter, streamed: every one, or the page asked for (`page`,
    `per_page`); every column, or those asked for (`col`), in the order asked. CSV is the rows;
    JSON an object: `total` (the filter's games), `page` and `per_page` (null for every game),
    `next` (the next page's address, null on the last), `columns`, and `rows`, one object a
    game, its keys in the columns' order."""
    f = _filter(snap, query, MAX_EXPORT_PAGE)
    sql, params = export_sql(f)
    if fmt == "csv":
        return sql_page.download_response(snap, fmt, f"games.{fmt}", sql=sql, params=params)
    total = snap.run(*count_sql(f))[0]["n"]
    try:
        result = snap.open(sql=sql, params=params)
    except QueryError as err:
        raise HTTPException(400, sql_page.message(err)) from None
    head = {"total": total, "page": f.number if f.paged else None, "per_page": f.size if f.paged else None,
            "next": games_list.next_page(f, total), "columns": [name for name, _ in result.columns]}
    try:
        chunks = sql_page.download(result, fmt)
    except QueryError as err:
        raise HTTPException(400, sql_page.message(err)) from None
    return Download(_enveloped(head, chunks), "the download of games.json", media_type=sql_page.MEDIA[fmt],
                    headers={"content-disposition": 'inline; filename="games.json"'})


def _enveloped(head: dict, rows):
    """A JSON object of `head`'s fields and `rows`, the chunks of a JSON array, streamed."""
    yield json.dumps(head, ensure_ascii=False)[:-1].encode() + b', "rows": '
    try:
        yield from rows
    finally:
        close = getattr(rows, "close", None)
        if close is not None:
            close()
    yield b"}\n"


# ----------------------------------------------------------------------------- the app


def building(snap: Snapshot, site: Site) -> Response:
    """The home page while the report is built (templates/building.html): how far it is, read
    again every two seconds until the report is there."""
    done, total = snap.steps
    return HTMLResponse(render("building.html", title=f"War report: {site.name}", heading="War report",
                               links=SITE_LINKS, site=site, done=min(done, total), total=total, games=snap.games,
                               rule_sets=len(snap.infos)))


def create_app(root, name: str | None = None, hosts: tuple[str, ...] = LOOPBACK, warm: bool = True,
               progress: Progress | None = None, background: bool = False,
               built: Callable[[], None] | None = None,
               interrupted: Callable[[], None] | None = None) -> Starlette:
    """The app for the dataset at `root` (checked now: a bad dataset fails here, not on the first
    request). `hosts` are the Host headers it answers ("*" for any). With `warm` the report is
    built now, `progress(advance, total)` told as it goes, so the first page answers at once;
    with `background` too it is built in a thread while the app answers, its home page saying
    how far the report is until it is there, and `built()` is called once it is; `interrupted()`
    is called when a Ctrl-C ends a report built in the background (site.py). A solution of war
    solve gets its own app (solution_site.py)."""
    if is_solution(root):
        from .solution_site import create_solution_app

        return create_solution_app(root, name, hosts, progress if warm else None, built)
    site = Site(root, name, links=[("/games", "All games"), ("/sql", "SQL")], interrupted=interrupted)
    if warm and background:
        site.now().build_report_later(progress, built)
    elif warm:
        site.now().build_report(progress)

    def report(request: Request) -> Response:
        snap = site.now()
        if snap.building:
            return building(snap, site)
        return HTMLResponse(snap.report())

    def games_page(request: Request) -> Response:
        return games(site.now(), site, request.query_params)

    def games_csv(request: Request) -> Response:
        return export_games(site.now(), request.query_params, "csv")

    def games_json(request: Request) -> Response:
        return export_games(site.now(), request.query_params, "json")

    def game_page(request: Request) -> Response:
        return HTMLResponse(game(site.now(), site, request.path_params["game_id"], request.query_params))

    def sql_view(request: Request) -> Response:
        return sql(site.now(), site, request.query_params)

    def query_view(request: Request) -> Response:
        return sql(site.now(), site, request.query_params, request.path_params["name"])

    async def error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            status, text = exc.status_code, exc.detail
        elif isinstance(exc, GameNotFound):
            status, text = 404, str(exc)
        elif isinstance(exc, WarError):
            status, text = 400, str(exc)
        else:
            status, text = 500, "internal error"
        return PlainTextResponse(f"{status}: {text}\n"[:2000], status_code=status)

    get = ["GET"]
    app = Starlette(
        routes=[Route("/", report, methods=get), Route("/games", games_page, methods=get),
                Route("/games.csv", games_csv, methods=get), Route("/games.json", games_json, methods=get),
                Route("/games/{game_id:int}", game_page, methods=get), Route("/sql", sql_view, methods=get),
                Route("/queries/{name:str}", query_view, methods=get)],
        middleware=[Middleware(Headers), Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts)),
                    Middleware(Hangups)],
        exception_handlers={HTTPException: error, WarError: error, Exception: error},
    )
    app.state.site = site
    return app


def serve(root, host: str = "127.0.0.1", port: int = 8000, name: str | None = None,
          ready: Callable[[str], None] | None = None, progress: Progress | None = None,
          built: Callable[[], None] | None = None) -> None:
    """Serve the dataset at `root` until interrupted. The port is taken first (a busy one is an
    error at once), then `ready(url)` is called once it listens, at once: the report is built
    meanwhile in a thread (`progress(advance, total)` told as it goes, `built()` once it is
    done), its home page saying how far it is until then.

    A Ctrl-C stops it at once, KeyboardInterrupt (war's exit 130), whenever it comes: while the
    app is made (the server does not start), while uvicorn starts (swallowed by a library: the
    latch keeps it), once uvicorn handles it, or while the report is built in its thread (which
    DuckDB ends with its own error, or a library swallows there: `stopped` below)."""
    import uvicorn  # lazy: only the server needs it

    hosts = ("*",) if host in ("0.0.0.0", "::", "") else tuple(dict.fromkeys((*LOOPBACK, host)))
    stopped = threading.Event()  # a Ctrl-C ended the report's build in its thread (told from there)

    def lost() -> None:
        raise_lost_ctrl_c()
        if stopped.is_set():
            raise KeyboardInterrupt

    sock = listen(host, port)
    try:
        app = create_app(root, name, hosts, progress=progress, background=True, built=built, interrupted=stopped.set)
    except BaseException:
        sock.close()
        raise
    try:
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                                server_header=False, limit_concurrency=32, timeout_keep_alive=5,
                                h11_max_incomplete_event_size=16 * 1024)
        server = uvicorn.Server(config)
        original, ticked = server.startup, server.on_tick

        async def startup(sockets=None):
            await original(sockets)
            if ctrl_c_pressed():  # before uvicorn took Ctrl-C over, and swallowed by a library
                server.should_exit = True
                return
            if ready is not None and not stopped.is_set():
                bound = server.servers[0].sockets[0].getsockname() if server.servers else (host, port)
                ready(f"http://{host if ':' not in host else f'[{host}]'}:{bound[1]}/")

        async def on_tick(counter: int) -> bool:  # uvicorn's main loop asks every tenth of a second
            # not should_exit: the Ctrl-C itself, reaching uvicorn's handler after this, would find
            # it set and force the exit, skipping the app's shutdown
            return await ticked(counter) or stopped.is_set()

        server.startup, server.on_tick = startup, on_tick
        lost()  # lost while the app was built: the server does not start
        server.run(sockets=[sock])
    finally:
        app.state.site.close()
        sock.close()
    lost()  # lost before uvicorn took Ctrl-C over, or in the report's thread: the server stopped


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything else starts: a busy port is one error line."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {err.strerror or err}", params=("port",)) from None
    sock.listen(128)
    return sock
