"""What bounds the work a request to `war serve` can cause, so that no request, nor many at once,
leaves the server computing for minutes:

- time: DuckDB may work on a server query for at most TIME_LIMIT seconds a step (binding it,
  each batch of rows: a download that keeps flowing runs on) and a page's query TIME_LIMIT
  seconds in all (sql_page.first_rows);
- queries at once: QUERY_SLOTS (Slots); a request that finds them all taken for TIME_LIMIT
  seconds is answered 503, the server busy;
- a client that hangs up: every query its request started is cancelled at once (Hangups);
- a download runs to its first rows before its answer starts, so a query that fails before them
  is a 400 with DuckDB's message; one that fails later ends the body without its last chunk
  (Download), which a client sees as an incomplete transfer, and says so on one line in the
  server's output, with no traceback.

All of it goes through jobs.query.guard, the one way war stops DuckDB's work (Ctrl-C and SIGTERM
stop every query of the server the same way).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator

import anyio
from starlette.exceptions import HTTPException
from starlette.responses import StreamingResponse

from ..errors import WarError
from ..jobs.query import Result, guard_scope

TIME_LIMIT = 10.0
QUERY_SLOTS = 4  # DuckDB runs each query on every core: more at once only share them
log = logging.getLogger("war.serve")


class Slots:
    """At most `count` queries of the server at once: `take()` waits up to `wait` seconds for one
    (503 past it), and the query's Result gives it back when closed."""

    def __init__(self, count: int = QUERY_SLOTS, wait: float = TIME_LIMIT) -> None:
        self.count, self.wait = count, wait
        self._free = threading.BoundedSemaphore(count)

    def take(self) -> None:
        if not self._free.acquire(timeout=self.wait):
            raise HTTPException(503, f"the server is busy: {self.count} queries are running; try again shortly")

    def give_back(self) -> None:
        self._free.release()

    def held_by(self, result: Result) -> Result:
        """`result`, which gives its slot back when it is closed."""
        result.on_close.append(self._free.release)
        return result


class Hangups:
    """ASGI middleware: the queries a request started belong to it (jobs.query.guard.scope), and
    a client that hangs up cancels them wherever they are, the page's and the download's alike.
    The app gets the request's messages from here, and its http.disconnect when the client goes."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        with guard_scope() as work:
            request = await receive()
            first, gone = [request], anyio.Event()

            async def app_receive():
                if first:
                    return first.pop()
                await gone.wait()
                return {"type": "http.disconnect"}

            async def watch() -> None:
                message = request
                while message["type"] != "http.disconnect":
                    message = await receive()
                work.cancel()
                gone.set()

            async with anyio.create_task_group() as group:
                group.start_soon(watch)
                try:
                    await self.app(scope, app_receive, send)
                finally:
                    group.cancel_scope.cancel()


class Download(StreamingResponse):
    """A download whose body is `chunks`, a sync iterator of bytes (sql_page.download) that has
    run to its first rows. An error after the answer started ends the body without its last
    chunk (an incomplete transfer to the client) and says so on one line in the server's output."""

    def __init__(self, chunks: Iterator[bytes], what: str, **kw) -> None:
        self.chunks, self.what = chunks, what
        super().__init__(chunks, **kw)

    async def stream_response(self, send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        try:
            async for chunk in self.body_iterator:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except WarError as err:
            log.warning("warning: %s stopped before its end: %s", self.what, str(err).splitlines()[0])
            return
        finally:
            close = getattr(self.chunks, "close", None)
            if close is not None:  # its query's session, now: also when the client went away
                with anyio.CancelScope(shield=True):
                    try:
                        await anyio.to_thread.run_sync(close)
                    except ValueError:  # still running in a thread (not with anyio's run_sync)
                        pass
        await send({"type": "http.response.body", "body": b"", "more_body": False})
