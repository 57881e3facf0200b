"""Headless Chromium for the report and server tests: Debian's /usr/bin/chromium driven by
Playwright (never `playwright install`). A tab aborts every request that leaves the allowed
origins and records it, and records console errors, so a test can say the page needed nothing
from the network and raised nothing."""

from __future__ import annotations

import os
from contextlib import contextmanager

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# Why a browser test is skipped on this machine, or None: the README's test command needs only
# Python and pip; .ci/run installs Debian's chromium, so CI runs them all.
MISSING = None if os.path.exists(CHROMIUM) else f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run does)"


@contextmanager
def chromium():
    """The browser; the test is skipped on a machine without it (MISSING)."""
    if MISSING:
        pytest.skip(MISSING)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


class Tab:
    """A page whose requests outside `allowed` (URL prefixes) are aborted and listed in
    `blocked`; console errors and page errors are listed in `errors`."""

    def __init__(self, browser, allowed: tuple[str, ...] = ("file://",), viewport=(1280, 900)):
        self.context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        self.page = self.context.new_page()
        self.allowed = allowed
        self.blocked: list[str] = []
        self.errors: list[str] = []
        self.page.route("**/*", self._route)
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def _route(self, route):
        url = route.request.url
        if url.startswith(self.allowed) or url.startswith("data:"):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()

    def close(self) -> None:
        self.context.close()


@contextmanager
def clean_tab(browser, allowed: tuple[str, ...] = ("file://",), viewport=(1280, 900)):
    """A Tab for one test, which fails it if the page fetched from outside `allowed` or logged
    an error."""
    tab = Tab(browser, allowed, viewport)
    try:
        yield tab
        assert tab.blocked == [] and tab.errors == [], (tab.blocked, tab.errors)
    finally:
        tab.close()
