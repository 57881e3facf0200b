"""`war serve`: a small read-only web app over one dataset: the report, a list of games that can
be filtered, sorted and paged, and any game's replay page.

What it may do is narrow on purpose. It serves no file: every answer is built from the dataset
through the library (the manifest's files, read by `jobs.query.run` and `replay_page`) and
rendered from the package's templates (`pages`; the games list is templates/games.html), so no
URL can name a path and a traversal (`/games/../../etc/passwd`, encoded or not) matches no
route. It only reads. Its SQL is fixed text with bound parameters (the sort column is chosen from
a list), so no request runs SQL of its own. Every response is bounded: a page of the games list
holds at most MAX_PER_PAGE games, a replay page at most MAX_PAGE_BYTES. It binds to 127.0.0.1
unless told otherwise, and answers only requests addressed to the host it binds to.
docs/decisions.md says why Starlette and uvicorn.
"""

from __future__ import annotations

import re
import socket
import threading
from collections import OrderedDict
from dataclasses import dataclass
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from ..errors import GameNotFound, UsageError, WarError
from ..storage.dataset import Dataset
from ..jobs.query import run
from .report import RuleSetInfo, build_report_data, rule_sets
from .pages import render
from .report_page import render_report

MAX_PER_PAGE = 200
PER_PAGE = 50
MAX_PAGE_BYTES = 64 * 1024 * 1024
REPLAY_CACHE = 8
OUTCOMES = ("win", "draw", "capped", "cycle")
SORTS = {"battles": "battles", "game_id": "game_id", "wars": "wars", "deepest_war": "max_war_depth"}
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
GAMES_LINK = ("/games", "All games")  # (href, label) in a page's bar of links
SITE_LINKS = (("/", "Report"), GAMES_LINK)
SECURITY_HEADERS = {
    # the pages are self-contained: inline style and (replay page) inline script, nothing fetched
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
                               "img-src data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}

# The games list's filter: each parameter NULL (not given) or the value a game must have.
GAMES_WHERE = """
WHERE ($variant IS NULL OR variant = $variant)
  AND ($rules_id IS NULL OR rules_id = $rules_id)
  AND ($outcome IS NULL OR outcome = $outcome)
  AND ($winner IS NULL OR winner = $winner)
  AND ($min_battles IS NULL OR battles >= $min_battles)
  AND ($max_battles IS NULL OR battles <= $max_battles)
"""
GAMES_SQL = """
SELECT game_id, variant, rules_id, policies, battles, outcome, winner, wars, max_war_depth, cycle_length
FROM games""" + GAMES_WHERE + """ORDER BY {order}, game_id
LIMIT $limit OFFSET $offset
"""
COUNT_SQL = "SELECT count(*) AS games FROM games" + GAMES_WHERE


@dataclass(frozen=True)
class GameFilter:
    """A games-list request, checked: every field is None (no filter) or a valid value."""

    variant: str | None = None
    rules_id: str | None = None
    outcome: str | None = None
    winner: int | None = None
    min_battles: int | None = None
    max_battles: int | None = None
    sort: str = "battles"
    order: str = "desc"
    page: int = 1
    per_page: int = PER_PAGE

    def params(self) -> dict:
        return {"variant": self.variant, "rules_id": self.rules_id, "outcome": self.outcome,
                "winner": self.winner, "min_battles": self.min_battles, "max_battles": self.max_battles}

    def query(self, **change) -> str:
        """The URL query string of this filter, with `change` applied, defaults left out."""
        values = {**self.__dict__, **change}
        defaults = GameFilter().__dict__
        return urlencode({("rule_set" if k == "rules_id" else k): v for k, v in values.items()
                          if v is not None and v != defaults[k]})


def _int(query, name: str, low: int, high: int) -> int | None:
    text = query.get(name, "").strip()
    if not text:
        return None
    if not re.fullmatch(r"[0-9]{1,12}", text) or not low <= int(text) <= high:
        raise HTTPException(400, f"{name} must be a whole number from {low} to {high}")
    return int(text)


def _choice(query, name: str, allowed) -> str | None:
    text = query.get(name, "").strip()
    if not text:
        return None
    if text not in allowed:
        raise HTTPException(400, f"{name} must be one of: {', '.join(sorted(allowed))}")
    return text


def parse_filter(query, infos: list[RuleSetInfo]) -> GameFilter:
    """The filter a request's query string asks for; HTTP 400 for any value outside its range."""
    unknown = set(query.keys()) - {"variant", "rule_set", "outcome", "winner", "min_battles", "max_battles",
                                   "sort", "order", "page", "per_page"}
    if unknown:
        raise HTTPException(400, f"unknown parameter {sorted(unknown)[0]!r}")
    return GameFilter(
        variant=_choice(query, "variant", {r.variant for r in infos}),
        rules_id=_choice(query, "rule_set", {r.rules_id for r in infos}),
        outcome=_choice(query, "outcome", OUTCOMES),
        winner=_int(query, "winner", 0, 63),
        min_battles=_int(query, "min_battles", 0, 10**9),
        max_battles=_int(query, "max_battles", 0, 10**9),
        sort=_choice(query, "sort", SORTS) or "battles",
        order=_choice(query, "order", ("asc", "desc")) or "desc",
        page=_int(query, "page", 1, 10**7) or 1,
        per_page=_int(query, "per_page", 1, MAX_PER_PAGE) or PER_PAGE,
    )


def list_games(root, f: GameFilter) -> tuple[list[dict], int]:
    """One page of the games that pass the filter, sorted, and how many pass it in all."""
    params = f.params()
    order = f"{SORTS[f.sort]} {'DESC' if f.order == 'desc' else 'ASC'}"
    rows = run(root, sql=GAMES_SQL.format(order=order),
               params={**params, "limit": f.per_page, "offset": (f.page - 1) * f.per_page}).to_pylist()
    total = run(root, sql=COUNT_SQL, params=params).to_pylist()[0]["games"]
    return rows, total


class Site:
    """What the app serves for one dataset: the report (built once, in the background from the
    start), the games list, and replay pages (the last few kept)."""

    def __init__(self, root, name: str | None = None):
        self.root = root
        self.name = name or str(root)
        self.infos = rule_sets(Dataset.open(root))
        self.players = max(r.rules.get("players", 2) for r in self.infos)
        self._report: str | None = None
        self._report_error: Exception | None = None
        self._report_done = threading.Event()
        self._pages: OrderedDict[int, str] = OrderedDict()
        self._lock = threading.Lock()

    def start(self) -> None:
        threading.Thread(target=self._build_report, name="war-report", daemon=True).start()

    def _build_report(self) -> None:
        try:
            data = build_report_data(self.root)
            self._report = render_report(data, self.name, lambda gid: f"/games/{gid}",
                                         links=[GAMES_LINK])
        except Exception as err:  # shown on the report's page, the server stays up
            self._report_error = err
        finally:
            self._report_done.set()

    def report(self) -> str:
        if not self._report_done.is_set() and self._report is None and self._report_error is None:
            if not any(t.name == "war-report" for t in threading.enumerate()):
                self.start()
        self._report_done.wait()
        if self._report_error is not None:
            raise HTTPException(500, f"the report could not be built: {self._report_error}")
        return self._report

    def replay(self, game_id: int) -> str:
        with self._lock:
            if game_id in self._pages:
                self._pages.move_to_end(game_id)
                return self._pages[game_id]
        from .replay_page import replay_page  # lazy: the page of `war replay --format html`

        page = replay_page(self.root, game_id)
        if len(page.encode("utf-8")) > MAX_PAGE_BYTES:
            raise HTTPException(413, f"game {game_id}'s replay page is over {MAX_PAGE_BYTES // 2**20} MB")
        with self._lock:
            self._pages[game_id] = page
            while len(self._pages) > REPLAY_CACHE:
                self._pages.popitem(last=False)
        return page


def games_page(site: Site, f: GameFilter, rows: list[dict], total: int) -> str:
    """One page of the games list (templates/games.html): the filter form, the games, the pager."""
    labels = {r.rules_id: r.label for r in site.infos}
    choices = {"variant": [(v, v) for v in sorted({r.variant for r in site.infos})],
               "rule_set": list(labels.items()),
               "outcome": [(o, o) for o in OUTCOMES],
               "winner": [(s, f"seat {s}") for s in range(site.players)]}
    return render("games.html", title=f"Games: {site.name}", heading="Games", links=SITE_LINKS, site=site,
                  f=f, rows=rows, total=total, first=(f.page - 1) * f.per_page, labels=labels,
                  choices=choices, sorts=SORTS)


def create_app(root, name: str | None = None, hosts: tuple[str, ...] = LOOPBACK, warm: bool = True) -> Starlette:
    """The app for the dataset at `root` (checked now: a bad dataset fails here, not on the first
    request). `hosts` are the Host headers it answers ("*" for any)."""
    site = Site(root, name)

    def report(request: Request) -> Response:
        return HTMLResponse(site.report())

    def games(request: Request) -> Response:
        f = parse_filter(request.query_params, site.infos)
        rows, total = list_games(site.root, f)
        return HTMLResponse(games_page(site, f, rows, total))

    def game(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        try:
            return HTMLResponse(site.replay(game_id))
        except GameNotFound as err:
            raise HTTPException(404, str(err)) from None

    async def error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            status, text = exc.status_code, exc.detail
        elif isinstance(exc, WarError):
            status, text = 400, str(exc)
        else:
            status, text = 500, "internal error"
        return PlainTextResponse(f"{status}: {text}\n"[:2000], status_code=status, headers=SECURITY_HEADERS)

    async def headers(request: Request, call_next):
        response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    app = Starlette(
        routes=[Route("/", report, methods=["GET"]), Route("/games", games, methods=["GET"]),
                Route("/games/{game_id:int}", game, methods=["GET"])],
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts)),
                    Middleware(BaseHTTPMiddleware, dispatch=headers)],
        exception_handlers={HTTPException: error, WarError: error, Exception: error},
    )
    app.state.site = site
    if warm:
        site.start()
    return app


def serve(root, host: str = "127.0.0.1", port: int = 8000, name: str | None = None,
          ready=None) -> None:
    """Serve the dataset at `root` until interrupted. `ready(url)` is called once it listens."""
    import uvicorn  # lazy: only the server needs it

    hosts = ("*",) if host in ("0.0.0.0", "::", "") else tuple(dict.fromkeys((*LOOPBACK, host)))
    sock = listen(host, port)
    app = create_app(root, name, hosts)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                            server_header=False, limit_concurrency=32, timeout_keep_alive=5,
                            h11_max_incomplete_event_size=16 * 1024)
    server = uvicorn.Server(config)
    if ready is not None:
        original = server.startup

        async def startup(sockets=None):
            await original(sockets)
            bound = server.servers[0].sockets[0].getsockname() if server.servers else (host, port)
            ready(f"http://{host if ':' not in host else f'[{host}]'}:{bound[1]}/")

        server.startup = startup
    server.run(sockets=[sock])


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
