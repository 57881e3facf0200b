"""`war serve`, started as a user starts it (a `war serve` process on a free port), driven by
headless Chromium and by raw HTTP: the games list filters, sorts and pages with exactly the
games SQL finds; a game opens; no request reaches a file outside the dataset; it answers only
GET, only for its own host name, and leaves the dataset as it was (its report kept beside it
aside)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from browser import Tab, chromium
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import run
from pipeline.present.serve import MAX_PER_PAGE
from pipeline.model.rules import build_rules
from rulekit import digests
from servekit import raw_get, war_serve


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("serve") / "ds"
    generate(out, [Plan(build_rules("classic"), 150),
                   Plan(build_rules("classic", {"pickup": "table_order", "max_battles": "300"}), 150),
                   Plan(build_rules("multiplayer", {"players": "3"}), 60)], seed=5)
    return out


@pytest.fixture(scope="module")
def server(root):
    """A `war serve` process on a free port; its base URL. Stopped (by its pid) at the end."""
    before = digests(root)
    with war_serve(root) as (url, _):
        yield url
    assert digests(root) == before, "the server changed the dataset"  # its report is kept in war's cache


def test_it_listens_on_loopback_only(server):
    assert urlsplit(server).hostname == "127.0.0.1"


@pytest.mark.parametrize("path", [
    "/games/../../etc/passwd",
    "/games/..%2f..%2f..%2fetc%2fpasswd",
    "/games/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/games/%252e%252e%252f%252e%252e%252fetc%252fpasswd",
    "/games/..\\..\\..\\etc\\passwd",
    "/games/1/../../../../etc/passwd",
    "//etc/passwd",
    "/../manifest.json",
    "/manifest.json",
    "/games/%2fetc%2fpasswd",
    "/games?rule_set=../../etc/passwd",
    "/games?variant=%2e%2e%2f%2e%2e%2fetc%2fpasswd",
])
def test_path_traversal_reaches_nothing(server, path):
    status, body = raw_get(server, path)
    assert status in (400, 404), (path, status)
    assert b"root:" not in body and b"rules_id" not in body and len(body) < 2000


def test_only_get_only_its_host_and_safe_headers(server):
    assert raw_get(server, "/games", method="POST")[0] == 405
    assert raw_get(server, "/games", method="DELETE")[0] == 405
    assert raw_get(server, "/games", host="evil.example")[0] == 400
    parts = urlsplit(server)
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as s:
        s.sendall(f"GET /games?per_page=1 HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: close\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(4096)
    head = head.decode("latin-1").lower()
    assert "content-security-policy: default-src 'none'" in head and "x-content-type-options: nosniff" in head


@pytest.mark.parametrize("query", [
    f"per_page={MAX_PER_PAGE + 1}", "page=0", "winner=-1", "outcome=lost", "sort=random()",
    "sort=battles%3BDROP%20TABLE%20games", "rule_set=nope", "min_battles=1e3", "sql=select+1", "order=up",
])
def test_bad_list_requests_are_refused(server, query):
    status, body = raw_get(server, f"/games?{query}")
    assert status == 400 and body.startswith(b"400: "), (query, body)


def _rows(tab) -> list[dict]:
    return tab.page.eval_on_selector_all("table.games-list tbody tr", """trs => trs.map(tr => {
        const c = [...tr.children].map(td => td.innerText);
        return {game_id: Number(tr.dataset.game), battles: Number(c[4].replace(/,/g, '')), outcome: c[5],
                winner: c[6], rule_set: c[2]};
    })""")


def test_filter_sort_and_page_the_games(server, root):
    """The list shows exactly the games SQL finds for the same filter, in order, page by page."""
    fixed = run(root, sql="SELECT DISTINCT rule_set FROM rules WHERE pickup = 'table_order'").to_pylist()[0]["rule_set"]
    expected = run(root, sql="SELECT game_id, battles FROM games WHERE rule_set = $r AND outcome = 'cycle' "
                             "ORDER BY battles, game_id", params={"r": fixed}).to_pylist()
    assert len(expected) > 8
    with chromium() as browser:
        tab = Tab(browser, allowed=(server,))
        tab.page.goto(server + "games?per_page=4")
        assert int(tab.page.get_attribute("#count", "data-total")) == 360
        tab.page.click(f"a[data-facet=rule_set][data-value='{fixed}']")
        tab.page.wait_for_load_state()
        tab.page.click("a[data-facet=outcome][data-value=cycle]")
        tab.page.wait_for_load_state()
        tab.page.click("th[data-sort=battles] a")  # battles is the sort, high first: now low first
        tab.page.wait_for_load_state()
        assert tab.page.get_attribute("th[data-sort=battles]", "aria-sort") == "ascending"
        assert int(tab.page.get_attribute("#count", "data-total")) == len(expected)
        seen = []
        while True:
            rows = _rows(tab)
            assert rows and all(r["outcome"] == "cycle" and "table_order" in r["rule_set"] for r in rows)
            seen += rows
            if not tab.page.query_selector("a[rel=next]"):
                break
            tab.page.click("a[rel=next]")
            tab.page.wait_for_load_state()
        assert [r["game_id"] for r in seen] == [g["game_id"] for g in expected]
        assert [r["battles"] for r in seen] == sorted(r["battles"] for r in seen)
        # a range of battles and a winner
        tab.page.goto(server + "games?min_battles=100&max_battles=200&winner=1&per_page=200")
        rows = _rows(tab)
        want = run(root, sql="SELECT count(*) AS n FROM games WHERE battles BETWEEN 100 AND 200 "
                             "AND winner = 1").to_pylist()[0]["n"]
        assert len(rows) == want and all(100 <= r["battles"] <= 200 and r["winner"] == "seat 1" for r in rows)
        assert tab.blocked == [] and tab.errors == []
        tab.close()


def test_a_game_opens_from_the_list(server, root):
    with chromium() as browser:
        tab = Tab(browser, allowed=(server,))
        tab.page.goto(server + "games?outcome=win&sort=wars&per_page=5")
        link = tab.page.query_selector("table.games-list tbody a")
        gid = int(link.inner_text())
        link.click()
        tab.page.wait_for_load_state()
        assert tab.page.url.split("#")[0].split("?")[0] == f"{server}games/{gid}"
        assert tab.page.evaluate("document.body.dataset.battle") is not None
        players = run(root, sql=f"SELECT players FROM games WHERE game_id = {gid}").to_pylist()[0]["players"]
        assert len(tab.page.query_selector_all("[data-seat]")) == players
        # the page's own controls work under the server's content policy
        tab.page.keyboard.press("End")
        assert int(tab.page.evaluate("document.body.dataset.battle")) > 0
        assert tab.blocked == [] and tab.errors == []
        tab.close()
    status, body = raw_get(server, "/games/999999999999")
    assert status == 404 and b"no game" in body


def test_the_report_links_each_game_to_its_page(server):
    with chromium() as browser:
        tab = Tab(browser, allowed=(server,))
        tab.page.goto(server, timeout=180_000)
        assert tab.page.eval_on_selector_all("figure.fig svg", "s => s.length") >= 10
        links = tab.page.eval_on_selector_all("#games table a", "as => as.map(a => a.getAttribute('href'))")
        assert links and all(re.fullmatch(r"/games/\d+", h) for h in links)
        assert tab.page.query_selector('nav a[href="/games"]')
        assert tab.blocked == [] and tab.errors == []
        tab.close()


def test_a_busy_port_is_one_error_line(root):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "pipeline.cli", "serve", str(root), "--port", str(port)],
                           capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.startswith("error: cannot listen on") and r.stderr.count("\n") == 1


def test_a_host_it_cannot_listen_on_is_one_error_line_with_no_warning(root):
    """The warning that other machines can read the dataset comes once the server listens: for a
    host it cannot take, nothing listens and the error comes alone."""
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "serve", str(root), "--host", "no-such-host.invalid",
                        "--port", "0"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.startswith("error: cannot listen on no-such-host.invalid"), r.stderr
    assert r.stderr.count("\n") == 1 and "warning" not in r.stderr, r.stderr
