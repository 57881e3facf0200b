"""The security headers every page of `war serve` carries, a dataset's site or a solution's."""

from __future__ import annotations

SECURITY_HEADERS = {
    # the pages are self-contained: inline style and (replay and SQL pages) inline script, nothing fetched
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
                               "img-src data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}


class Headers:
    """ASGI middleware: the security headers on every response (a pure ASGI one, which a
    streamed download passes through as it is)."""

    def __init__(self, app):
        self.app = app
        self.headers = [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                names = {k for k, _ in self.headers}
                message["headers"] = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message["headers"] += self.headers
            await send(message)

        return await self.app(scope, receive, with_headers)
