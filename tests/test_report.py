"""`war report`: the page's numbers are the named queries' results, the page needs nothing from
the network, its charts render in a real browser (headless Chromium), and the chart files and
the command's errors behave."""

from __future__ import annotations

import json
import shlex
import re
import subprocess
import sys
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

import pytest

from browser import Tab, chromium
from reportkit import six_variants
from pipeline.jobs.query import run
from pipeline.present.report import build_report_data
from pipeline.present.charts import sections
from pipeline.present.report_page import all_sections, default_game_href, render_report, write_report


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return six_variants(tmp_path_factory.mktemp("report") / "ds", games=200, tournament_games=12, seed=3)


@pytest.fixture(scope="module")
def data(root):
    return build_report_data(root)


@pytest.fixture(scope="module")
def page(root, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("page") / "report.html"
    write_report(root, out, dataset="ds")
    return out


class Tables(HTMLParser):
    """Every table cell that carries a value: (section id, query, params) -> rows of
    {column: value}, and the summary cells (query, column, value)."""

    def __init__(self):
        super().__init__()
        self.section = None
        self.table = None
        self.row = None
        self.tables: dict[tuple, list[dict]] = defaultdict(list)
        self.summary: list[tuple[str, str, object]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.section = a.get("id")
        elif tag == "table" and "data-query" in a:
            self.table = (self.section, a["data-query"], a["data-params"])
        elif tag == "tr" and self.table:
            self.row = {}
        elif tag == "td" and "data-value" in a:
            value = json.loads(a["data-value"])
            if self.row is not None:
                self.row[a["data-col"]] = value
            elif "data-query" in a:
                self.summary.append((a["data-query"], a["data-col"], value))

    def handle_endtag(self, tag):
        if tag == "tr" and self.row is not None:
            if self.row:
                self.tables[self.table].append(self.row)
            self.row = None
        elif tag == "table":
            self.table = None


@pytest.fixture(scope="module")
def tables(page) -> Tables:
    parser = Tables()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def test_every_table_is_a_named_query_result(root, data, tables):
    """Each table under a chart holds rows of its named query, run as `war query` runs it, with
    their exact values; each variant's section holds all of that variant's rows."""
    assert tables.tables
    results = {}
    seen = defaultdict(set)
    for (section, name, params), rows in tables.tables.items():
        key = (name, params)
        if key not in results:
            results[key] = run(root, name=name, params=json.loads(params)).to_pylist()
        expected = results[key]
        for r in rows:
            if section == "games":  # the games list shows some of the columns
                assert any(all(e[k] == v for k, v in r.items()) for e in expected), (name, r)
            else:
                assert r in expected, (section, name, r)
        if section not in ("overview", "games"):
            seen[(name, params, section)].update(json.dumps(r, sort_keys=True) for r in rows)
    for (name, params, section), got in seen.items():
        want = {json.dumps(r, sort_keys=True) for r in results[(name, params)] if r["variant"] == section}
        assert got == want, (name, section)
    # the report shows every query it ran, for every variant it answers for
    shown = {name for (_, name, _) in tables.tables}
    assert shown == set(data.results)
    assert {"razboi_war_sizes", "joker_wars", "steals", "policy_matchup", "arneson_consolation",
            "deal_win_rate", "first_battle_war_exact"} <= shown


def test_the_summary_cells_are_query_values(root, tables):
    assert tables.summary
    by = {}
    for name, col, value in tables.summary:
        if name not in by:
            by[name] = run(root, name=name).to_pylist()
        assert value in [r[col] for r in by[name]], (name, col, value)


def test_the_page_needs_nothing_from_outside(page):
    text = page.read_text(encoding="utf-8")
    assert "<script" not in text and "<link" not in text and "@import" not in text
    assert not re.search(r"\bsrc=", text)
    urls = set(re.findall(r"https?://[^\s\"')]+", text))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}, urls
    assert all(h.startswith("#") or h.startswith("report-games/")
               for h in re.findall(r'href="([^"]*)"', text))


def test_charts_render_in_the_browser_with_the_network_off(page, data):
    """Chromium opens the file with every request but the file itself aborted: nothing was
    asked for, nothing failed, and every chart is an SVG with marks."""
    with chromium() as browser:
        tab = Tab(browser)
        tab.page.goto(page.as_uri())
        figures = tab.page.eval_on_selector_all("figure.fig", """figs => figs.map(f => ({
            id: f.id,
            marks: f.querySelectorAll('svg .mark-rect path, svg .mark-line path, svg .mark-symbol path,'
                                      + ' svg .mark-rule line, svg .mark-tick path, svg .mark-area path').length,
            width: f.querySelector('svg').getBoundingClientRect().width,
            height: f.querySelector('svg').getBoundingClientRect().height}))""")
        expected = [f.id for s in sections(data) for _, figs in s.groups for f in figs]
        assert [f["id"] for f in figures] == [f"fig-{i}" for i in expected]
        for f in figures:
            assert f["marks"] >= 2 and f["width"] > 200 and f["height"] > 60, f
        # the numbers under a chart open, and the summary line of a rule set shows its games
        tab.page.click("#fig-classic-length-ecdf details summary")
        assert tab.page.is_visible("#fig-classic-length-ecdf table.numbers")
        games = tab.page.inner_text("table.summary tbody tr:first-child td[data-col=games]")
        assert games == "200"
        shot = page.parent / "report.png"
        tab.page.screenshot(path=str(shot))
        assert shot.stat().st_size > 20_000
        assert tab.blocked == [] and tab.errors == []
        tab.close()


def test_a_game_link_opens_its_replay(page, root, data):
    """The linked replay pages are written beside the report, one per game listed, and open
    from file:// with the network off at the game's first battle."""
    listed = {r["game_id"] for r in data.rows("notable_games")}
    assert {int(p.stem) for p in (page.parent / "report-games").glob("*.html")} == listed
    players = {r["game_id"]: r for r in run(root, sql="SELECT game_id, players FROM games").to_pylist()}
    with chromium() as browser:
        tab = Tab(browser)
        tab.page.goto(page.as_uri() + "#games")
        links = tab.page.eval_on_selector_all("#games table.games a", "as => as.map(a => a.getAttribute('href'))")
        assert len(links) == len(data.rows("notable_games"))
        first = tab.page.query_selector("#games table.games a")
        gid = int(first.inner_text())
        first.click()
        tab.page.wait_for_load_state()
        assert tab.page.url.split("#")[0].endswith(f"report-games/{gid}.html")
        assert tab.page.evaluate("document.body.dataset.battle") is not None
        assert len(tab.page.query_selector_all("[data-seat]")) == players[gid]["players"]
        assert tab.blocked == [] and tab.errors == []
        tab.close()


def test_every_chart_spec_is_valid_vega_lite(data):
    for s in sections(data):
        for _, figs in s.groups:
            for f in figs:
                f.chart.to_dict(validate=True)


def test_same_data_same_page(data):
    href = default_game_href("report")
    assert render_report(data, "ds", href) == render_report(data, "ds", href)


def test_charts_drawn_beside_the_report_are_the_same_page(root, tmp_path):
    """`war report` draws every other chart on a helper process it forks: the page is the same
    bytes as one drawn in a single process (write_report's default)."""
    r = war("report", root, "--output", tmp_path / "cli.html", "--no-game-pages", "-q")
    assert r.returncode == 0, r.stderr
    write_report(root, tmp_path / "here.html", dataset=str(root), game_pages=False)
    assert (tmp_path / "cli.html").read_bytes() == (tmp_path / "here.html").read_bytes()


def test_a_helper_that_hangs_has_its_charts_drawn_here(data, monkeypatch):
    """A process that has drawn a chart forks no helper (vl-convert's runtime does not survive a
    fork); one forked all the same, which hangs in it, costs HELPER_WAIT, then the charts are
    drawn here and the helper is stopped: the same SVGs, no process left."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    from pipeline.present.charts import painter

    figures = [f for s in all_sections(data) for _, figs in s.groups for f in figs][:4]
    here = painter.Painter().svgs(figures)  # vl-convert now runs in this process
    assert painter.Painter(helper=True).pool is None
    monkeypatch.setattr(painter, "HELPER_WAIT", 1)
    hung = painter.Painter()
    hung.pool = ProcessPoolExecutor(1, mp_context=mp.get_context("fork"))
    assert hung.svgs(figures) == here
    assert hung.pool is None and not mp.active_children()


def war(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd)


def test_chart_files(root, tmp_path):
    out = tmp_path / "charts"
    r = war("report", root, "--format", "svg", "--output", out)
    assert r.returncode == 0, r.stderr
    svgs = sorted(out.glob("*.svg"))
    assert {p.stem for p in svgs} >= {"classic-length-ecdf", "classic-seat-advantage", "razboi-war-sizes"}
    for p in svgs:
        text = p.read_text(encoding="utf-8")
        assert text.startswith("<svg") and "mark-" in text
    again = war("report", root, "--format", "svg", "--output", out)
    assert again.returncode == 2 and again.stderr.startswith("error: ") and "--overwrite" in again.stderr
    r = war("report", root, "--format", "png", "--output", tmp_path / "png")
    assert r.returncode == 0, r.stderr
    pngs = list((tmp_path / "png").glob("*.png"))
    assert len(pngs) == len(svgs)
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


@pytest.mark.parametrize("args,message", [
    (["--format", "svg"], "needs --output"),
    (["--games", "-1"], "--games"),
    (["--games", "101"], "--games"),
])
def test_bad_arguments_say_so_on_one_line(root, tmp_path, args, message):
    r = war("report", root, *args, cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ") and message in r.stderr
    assert not list(tmp_path.iterdir())


def test_report_keeps_an_earlier_report_s_replay_pages(root, tmp_path):
    pages = tmp_path / "r-games"
    pages.mkdir()
    (pages / "7.html").write_text("mine")
    r = war("report", root, "--output", tmp_path / "r.html")
    assert r.returncode == 2 and str(pages) in r.stderr and "--overwrite" in r.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["r-games"] and (pages / "7.html").read_text() == "mine"
    assert war("report", root, "--output", tmp_path / "r.html", "--no-game-pages").returncode == 0


def test_a_report_s_commands_are_quoted_for_a_shell():
    from pipeline.present.report_page import command

    said = command("with space", "outcomes", {"variant": "classic it's"})
    assert shlex.split(said) == ["war", "query", "with space", "outcomes", "--param", "variant=classic it's"]


def test_report_refuses_to_replace_a_file(root, tmp_path):
    out = tmp_path / "r.html"
    out.write_text("mine")
    r = war("report", root, "--output", out, "--no-game-pages")
    assert r.returncode == 2 and "--overwrite" in r.stderr
    assert out.read_text() == "mine"
    r = war("report", tmp_path / "nothing", "--output", tmp_path / "x.html")
    assert r.returncode == 2 and r.stderr.startswith("error: ") and "Traceback" not in r.stderr
