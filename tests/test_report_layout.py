"""The report reads at a glance (issue 37, item 1), measured in headless Chromium over every
chart of a six-variant report: no two pieces of text overlap, text on a coloured mark meets
WCAG AA (4.5:1), the rule sets' lines are told apart by colour, the tournament matrix's colour
scale spans its data and diverges at the fair share, the hand-strength buckets with few games
are hollow and not joined, every column of a table has one number format, tables stay inside
their card and name rule sets, a chart that would compare one thing or show single full bars
is left out, and a report without its replay pages links to none."""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

import pytest

from browser import Tab, chromium
from colourkit import ciede2000, contrast, over_white, rgb
from reportkit import six_variants
from pipeline.jobs.generate import Plan, generate
from pipeline.model.names import rules_names
from pipeline.model.rules import build_rules
from pipeline.storage.dataset import Dataset
from pipeline.present.charts import sections
from pipeline.present.report import build_report_data
from pipeline.present.report_page import render_report, write_report


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return six_variants(tmp_path_factory.mktemp("layout") / "ds", games=300, tournament_games=40, seed=11)


@pytest.fixture(scope="module")
def data(root):
    return build_report_data(root)


@pytest.fixture(scope="module")
def page(root, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("layout-page") / "report.html"
    write_report(root, out, dataset="ds")
    return out


# Per figure: every visible text (its box, text, colour, and the colour under its middle: the
# topmost filled shape there, blended with its opacity, or the white page), and the colours of
# its lines and points.
MEASURE = """figs => figs.map(fig => {
  const svg = fig.querySelector('.chart svg');
  const opacity = el => { let o = 1; for (let e = el; e && e !== svg.parentNode; e = e.parentNode) {
      if (e.nodeType !== 1) continue; const s = getComputedStyle(e);
      o *= parseFloat(s.opacity); if (s.visibility === 'hidden' || s.display === 'none') return 0; }
    return o; };
  const shapes = [...svg.querySelectorAll('path, rect, circle')].filter(el => {
    const s = getComputedStyle(el);
    return s.fill !== 'none' && !s.fill.startsWith('url') && parseFloat(s.fillOpacity) > 0 && opacity(el) > 0; });
  const under = (x, y) => { let found = null;
    for (const el of shapes) { const m = el.getScreenCTM(); if (!m) continue;
      const p = new DOMPoint(x, y).matrixTransform(m.inverse());
      if (el.isPointInFill(p)) found = el; }
    if (!found) return {fill: 'rgb(255, 255, 255)', alpha: 1};
    const s = getComputedStyle(found);
    return {fill: s.fill, alpha: parseFloat(s.fillOpacity) * opacity(found)}; };
  const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim() && opacity(t) > 0
      && parseFloat(getComputedStyle(t).fillOpacity) > 0).map(t => {
    const b = t.getBoundingClientRect();
    return {text: t.textContent, x: b.left, y: b.top, w: b.width, h: b.height,
            color: getComputedStyle(t).fill, size: parseFloat(getComputedStyle(t).fontSize),
            under: under(b.left + b.width / 2, b.top + b.height / 2)}; });
  const lines = [...svg.querySelectorAll('.mark-line path')].map(p => getComputedStyle(p).stroke)
    .filter(c => c && c !== 'none');
  const rules = [...svg.querySelectorAll('.mark-rule.role-mark line')].filter(l => opacity(l) > 0).map(l => {
    const b = l.getBoundingClientRect(); return {x: b.left, y: b.top, w: b.width, h: b.height}; });
  return {id: fig.id, texts, lines, rules};
})"""


@pytest.fixture(scope="module")
def measured(page):
    with chromium() as browser:
        tab = Tab(browser, viewport=(1280, 900))
        tab.page.goto(page.as_uri())
        figures = tab.page.eval_on_selector_all("figure.fig", MEASURE)
        widths = tab.page.eval_on_selector_all(
            "figure.fig", "figs => figs.map(f => ({id: f.id, scroll: f.scrollWidth, client: f.clientWidth}))")
        for details in tab.page.query_selector_all("details"):
            details.evaluate("d => d.open = true")
        scrolls = tab.page.eval_on_selector_all(
            ".scroll", "ss => ss.map(s => ({id: s.closest('[id]').id, query: s.querySelector('table').dataset.query,"
                       " scroll: s.scrollWidth, client: s.clientWidth}))")
        tables = tab.page.eval_on_selector_all(
            "figure.fig", "figs => figs.map(f => ({id: f.id, scroll: f.scrollWidth, client: f.clientWidth,"
                          " right: Math.max(0, ...[...f.querySelectorAll('.scroll')].map("
                          "s => s.getBoundingClientRect().right)), card: f.getBoundingClientRect().right}))")
        assert tab.errors == [] and tab.blocked == []
        tab.close()
    return {"figures": figures, "closed": widths, "open": tables, "scrolls": scrolls}


def test_every_chart_of_the_six_variants_is_measured(measured, data):
    ids = [f["id"] for f in measured["figures"]]
    expected = [f"fig-{f.id}" for s in sections(data) for _, figs in s.groups for f in figs]
    assert ids == expected
    assert {v for v in data.variants} == {"classic", "multiplayer", "jokers", "razboi", "steal", "arneson"}
    assert all(f["texts"] for f in measured["figures"])


def _overlap(a: dict, b: dict) -> float:
    w = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
    return min(w, h)


def test_no_two_texts_overlap(measured):
    """No two text boxes of a chart intersect (by more than half a pixel both ways: boxes of
    neighbouring rows of text touch)."""
    clashes = []
    for fig in measured["figures"]:
        for a, b in itertools.combinations(fig["texts"], 2):
            if _overlap(a, b) > 0.5:
                clashes.append((fig["id"], a["text"], b["text"]))
    assert clashes == []


def test_no_line_strikes_through_a_text(measured):
    """No rule drawn as data (a mean, a cap, an interval, a fair share) crosses a text box."""
    struck = []
    for fig in measured["figures"]:
        for t in fig["texts"]:
            for r in fig["rules"]:
                w = min(t["x"] + t["w"], r["x"] + r["w"]) - max(t["x"], r["x"])
                h = min(t["y"] + t["h"], r["y"] + r["h"]) - max(t["y"], r["y"])
                if w > -0.5 and h > 0.5 and (r["w"] > 1 or w >= 0) and (r["h"] > 1 or h >= 0):
                    struck.append((fig["id"], t["text"]))
    assert struck == []


def test_text_meets_wcag_aa_on_what_it_sits_on(measured):
    """Every text against the colour under its middle: a cell, a bar, or the white page."""
    poor = []
    for fig in measured["figures"]:
        for t in fig["texts"]:
            under = over_white(t["under"]["fill"], t["under"]["alpha"])
            ratio = contrast(rgb(t["color"]), under)
            if ratio < 4.5:
                poor.append((fig["id"], t["text"], t["color"], t["under"], round(ratio, 2)))
    assert poor == []
    matrix = [f for f in measured["figures"] if "-matchups-" in f["id"]]
    assert matrix and all(any(t["under"]["fill"] != "rgb(255, 255, 255)" for t in f["texts"]) for f in matrix)


def test_lines_of_a_chart_are_told_apart_by_colour(measured):
    """Any two colours of the lines of one chart differ by at least 20 (CIEDE2000)."""
    close = []
    for fig in measured["figures"]:
        colours = sorted({"#%02x%02x%02x" % rgb(c) for c in fig["lines"]})
        for a, b in itertools.combinations(colours, 2):
            if ciede2000(a, b) < 20:
                close.append((fig["id"], a, b, round(ciede2000(a, b), 1)))
    assert close == []
    assert any(len(set(f["lines"])) >= 3 for f in measured["figures"])


def test_tables_stay_inside_their_card(measured):
    """With its numbers open a chart's card spans the page, and every table fits it whole: no
    table scrolls sideways, at a 1280-pixel window."""
    assert len(measured["scrolls"]) > 30
    assert [s for s in measured["scrolls"] if s["scroll"] > s["client"]] == []
    for state in ("closed", "open"):
        for f in measured[state]:
            assert f["scroll"] <= f["client"], (state, f)
    for f in measured["open"]:
        assert f["right"] <= f["card"] + 0.5, f


def _layers(spec: dict) -> list[dict]:
    out = []
    for key in ("layer", "vconcat", "hconcat", "concat"):
        for child in spec.get(key, []):
            out += _layers(child)
    return out + ([spec] if "mark" in spec else [])


def test_the_matrix_scale_spans_the_data_and_diverges_at_the_fair_share(data):
    from pipeline.present.charts.variant_rules import EVEN, LOSES, WINS

    figures = [f for s in sections(data) for _, figs in s.groups for f in figs if "-matchups-" in f.id]
    assert len(figures) == 2
    for fig in figures:
        spec = fig.chart.to_dict()
        cells = next(layer["data"]["values"] for layer in _layers(spec) if layer.get("mark", {}).get("type") == "rect")
        shares = [c["share"] for c in cells]
        lo, hi = min(shares), max(shares)
        assert lo < 0.5 < hi
        for c in cells:
            if c["share"] == lo:
                assert c["fill"] == LOSES
            if c["share"] == hi:
                assert c["fill"] == WINS
            # at the fair share the cell is the neutral colour; on each side it darkens with the distance
            if c["share"] == 0.5:
                assert c["fill"] == EVEN
            assert contrast(c["ink"], c["fill"]) >= 4.5
        key = next(layer for layer in _layers(spec) if "color" in layer.get("encoding", {})
                   and layer["encoding"]["color"].get("type") == "quantitative")
        assert key["encoding"]["color"]["scale"]["domain"] == [lo, 0.5, hi]
        # redder below the fair share the further from it, bluer above
        below = sorted((c for c in cells if c["share"] < 0.5), key=lambda c: c["share"])
        assert [rgb(c["fill"])[1] for c in below] == sorted(rgb(c["fill"])[1] for c in below)


def test_sparse_buckets_are_hollow_and_not_joined(data):
    figures = [f for s in sections(data) for _, figs in s.groups for f in figs if f.id.endswith("-deal-strength")]
    assert figures
    seen_sparse = False
    for fig in figures:
        layers = _layers(fig.chart.to_dict())
        line = next(x for x in layers if x["mark"]["type"] == "line")
        points = [x for x in layers if x["mark"]["type"] == "point"]
        hollow = next(x for x in points if x["mark"].get("filled") is False)
        filled = next(x for x in points if x["mark"].get("filled") is True)
        assert all(r["decided_seats"] >= 100 for r in line["data"]["values"])
        assert all(r["decided_seats"] >= 100 for r in filled["data"]["values"])
        assert all(r["decided_seats"] < 100 for r in hollow["data"]["values"])
        seen_sparse = seen_sparse or bool(hollow["data"]["values"])
        variant = fig.id.split("-")[0]
        rows = [r for r in data.rows("deal_win_rate", variant) if r["by"] == "strength" and r["share"] is not None]
        assert len(line["data"]["values"]) + len(hollow["data"]["values"]) == len(rows)
    assert seen_sparse


def test_a_chart_that_compares_one_thing_is_left_out(data, tmp_path):
    """A variant with one rule set has no comparison of rule sets and no outcome bars; a
    dataset of one rule set whose games all end in a win has no overview chart."""
    ids = {f.id for s in sections(data) for _, figs in s.groups for f in figs}
    for variant in data.variants:
        one = len(data.rule_sets_of(variant)) == 1
        all_win = all(r["win_share"] == 1 for r in data.rows("outcomes", variant))
        assert (f"{variant}-length-ecdf" in ids) == (not one)
        assert (f"{variant}-outcomes" in ids) == (not one and not all_win)
    assert {"all-length-ecdf", "all-outcomes"} <= ids
    single = tmp_path / "single"
    generate(single, [Plan(build_rules("razboi"), 60)], seed=2)
    lone = build_report_data(single)
    assert all(r["win_share"] == 1 for r in lone.rows("outcomes"))
    overview = sections(lone)[0]
    assert overview.groups == [("", [])]


class Cells(HTMLParser):
    """The text of every cell of every table that names its query, by table and column."""

    def __init__(self):
        super().__init__()
        self.tables: list[dict[str, list[str]]] = []
        self.column = None
        self.names: list[tuple[str, str]] = []
        self.rules_cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and ("data-query" in a or "summary" in (a.get("class") or "")):
            self.tables.append(defaultdict(list))
        elif tag == "td" and "data-col" in a and self.tables:
            self.column = a["data-col"]
            self.tables[-1][self.column].append("")
            if "name" in (a.get("class") or "").split():  # a rule set's name, its rules_id in its title
                self.rules_cell = a.get("title")

    def handle_data(self, text):
        if self.column is not None:
            self.tables[-1][self.column][-1] += text

    def handle_endtag(self, tag):
        if tag == "td" and self.column is not None:
            if self.rules_cell is not None:
                self.names.append((self.rules_cell, self.tables[-1][self.column][-1]))
            self.column, self.rules_cell = None, None


NUMBER = re.compile(r"^-?[\d,]+(?:\.(\d+))?(%?)$")


def test_one_number_format_per_column(page):
    parser = Cells()
    parser.feed(page.read_text(encoding="utf-8"))
    assert len(parser.tables) > 30
    for table in parser.tables:
        for column, texts in table.items():
            forms = set()
            for text in texts:
                for part in text.split(", "):  # a list column: each of its numbers
                    m = NUMBER.match(part.strip())
                    if m:
                        forms.add((len(m.group(1) or ""), m.group(2)))
            assert len(forms) <= 1, (column, sorted(forms), texts[:6])


def test_tables_name_rule_sets(page, data, root):
    parser = Cells()
    parser.feed(page.read_text(encoding="utf-8"))
    named = {(r.rules_id, r.name) for r in data.rule_sets}
    rules = {(rid, name) for (rid,), name in rules_names(Dataset.open(root).manifest.rule_sets).items()}
    assert parser.names and set(parser.names) <= named | rules  # policy_matchup's rows: by their rules' name
    assert "classic pickup=table_order max_battles=300" in {name for _, name in named}
    # two tournaments, so each seating after its rules' name
    assert {"steal: always vs never", "steal: never vs always"} <= {name for _, name in parser.names}


def test_a_report_without_its_replay_pages_links_to_none(data, tmp_path):
    text = render_report(data, "ds", None)
    games = text[text.index('id="games"'):]
    assert "<a " not in games and "war replay ds GAME --format html" in games
    with_pages = render_report(data, "ds", lambda g: f"report-games/{g}.html", pages="report-games")
    assert "send the folder with it" in with_pages and 'href="report-games/' in with_pages


def test_the_palette_keeps_rule_sets_apart():
    """Any two of the rule sets' colors differ by 20 or more (CIEDE2000), each at least 3:1 on
    the white page; past them, a rule set's line is dashed."""
    from pipeline.present.charts.figure import PALETTE, Palette

    assert len(PALETTE) >= 8
    assert min(ciede2000(a, b) for a, b in itertools.combinations(PALETTE, 2)) >= 20
    assert min(contrast(c, "#ffffff") for c in PALETTE) >= 3
    infos = [type("R", (), {"name": f"r{i}", "label": f"r{i}"})() for i in range(len(PALETTE) + 2)]
    palette = Palette(infos, lambda r: r.label)
    assert palette.dashes[:len(PALETTE)] == [[1, 0]] * len(PALETTE)
    assert all(d != [1, 0] for d in palette.dashes[len(PALETTE):])
