"""A rule set that plays every deal gets exact statements everywhere in the report (issue 46, item
4): findings with fractions of the deals and no interval, no interval drawn on its charts (the
first battle's war an exact tick at its fraction), its intervals' cells in the tables said to be
exact, its deck described from its own rules; the games worth a look list the longest games
that end; and a dataset stored as counts alone reads well (what it counted in the overview, no
empty list of games). Beside it, a sampled rule set keeps its intervals."""

from __future__ import annotations

import re
from fractions import Fraction
from html.parser import HTMLParser

import pytest

from pipeline.jobs.generate import Plan, generate, make_plans
from pipeline.jobs.query import run
from pipeline.model.rules import build_rules
from pipeline.present.charts import sections
from pipeline.present.findings import all_findings
from pipeline.present.report import build_report_data
from pipeline.present.report_page import render_report

# every deal of 12 cards, 3 ranks of 4 suits, in open play: 34,650 deals; a first battle is a war
# when the two top cards share a rank, 3 of the other 11 cards
OPEN = build_rules("classic", {"ranks": "3", "suits": "4", "war_down": "0", "pickup": "natural"})
SAMPLED = build_rules("classic", {"pickup": "winner_first"})
INTERVAL = re.compile(r"\[\d[\d.,]*, \d[\d.,]*\]")


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("exact") / "ds"
    generate(root, make_plans([OPEN], all_deals=True), seed=3, shard_size=20_000)
    generate(root, [Plan(SAMPLED, 300)], append=True)
    return root


@pytest.fixture(scope="module")
def report(root):
    """The report's numbers, and its page."""
    data = build_report_data(root)
    return data, render_report(data, "ds", None)


@pytest.fixture
def data(report):
    return report[0]


@pytest.fixture
def page(report):
    return report[1]


class Cells(HTMLParser):
    """Every table cell of the page: (table's query, column, rules_id of its row, text)."""

    def __init__(self):
        super().__init__()
        self.cells, self.query, self.row, self.cell = [], None, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.query = a.get("data-query")
        elif tag == "tr":
            self.row = []
        elif tag == "td" and self.row is not None:
            self.cell = [a.get("data-col"), a.get("data-value"), ""]

    def handle_data(self, text):
        if self.cell is not None:
            self.cell[2] += text

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.row.append(self.cell)
            self.cell = None
        elif tag == "tr" and self.row:
            rid = next((v.strip('"') for c, v, _ in self.row if c == "rules_id"), None)
            self.cells += [(self.query, c, rid, text.strip()) for c, _, text in self.row]
            self.row = None


def test_findings_of_every_deal_are_exact_fractions(data):
    found, _ = all_findings(data)
    texts = [f.text for f in found["classic"]]
    name = next(r.name for r in data.rule_sets if r.rules_id == OPEN.rules_id)
    first = [f for f in found["classic"] if f.values.get("rule_set") == name and f.values.get("exact")]
    assert first, texts
    for f in first:
        assert not INTERVAL.search(f.text), f.text
    by = {}
    for f in found["classic"]:
        by.setdefault(f.query, f)
    assert "exactly 3/11" in by["first_battle_war_exact"].text
    assert "over every deal" in by["median_interval"].text
    seat = by["seat_win_interval"]
    assert seat.values["exact"] and "exactly" in seat.text and seat.claims == ()  # a fact, not a claim
    # the sampled rule set keeps its interval where it is compared
    assert any(INTERVAL.search(t) for t in texts), texts


def test_its_deck_is_described_from_its_rules(page):
    heading = re.search(r'<section class="part" id="classic">\s*<h2>(.*?)</h2>', page, re.S)[1]
    assert "52 cards" not in heading  # the variant's default deck is not this rule set's
    chips = re.search(r'<ul class="chips">(.*?)</ul>', page.split('id="classic"', 1)[1], re.S)[1]
    assert "12 cards (3 ranks × 4 suits)" in chips and "open wars: 1 up and none down" in chips
    assert "52 cards (13 ranks × 4 suits), wars of 3 down and 1 up, winner&#39;s cards first" in chips
    assert "every deal of its deck, 34,650" in chips


def test_its_interval_cells_say_exact_and_the_sampled_keep_theirs(page):
    parser = Cells()
    parser.feed(page)
    ci = [(q, rid, text) for q, c, rid, text in parser.cells if c in ("ci_low", "ci_high") and rid]
    assert {rid for _, rid, _ in ci} == {OPEN.rules_id, SAMPLED.rules_id}
    for query, rid, text in ci:
        assert (text == "exact") == (rid == OPEN.rules_id), (query, rid, text)


def _figure(data, fid):
    return next(f for s in sections(data) for _, figs in s.groups for f in figs if f.id == fid)


def _layers(figure):
    spec = figure.chart.to_dict()
    return spec.get("layer", [spec])


def test_the_first_battles_war_is_an_exact_tick_with_its_fraction(data, root):
    layers = _layers(_figure(data, "classic-first-battle-war"))
    tick = next(layer for layer in layers if layer["mark"]["type"] == "tick")
    rows = {r["rules_id"]: r for r in tick["data"]["values"]}
    games = run(root, sql=f"SELECT count(*) AS n, count(*) FILTER (WHERE first_battle_war) AS k FROM games "
                          f"WHERE rules_id = '{OPEN.rules_id}'").to_pylist()[0]
    assert Fraction(games["k"], games["n"]) == Fraction(3, 11)
    assert rows[OPEN.rules_id]["tick"] == pytest.approx(3 / 11)
    assert rows[OPEN.rules_id]["text"].startswith("exactly 3/11 = 27.27%")
    assert rows[SAMPLED.rules_id]["tick"] == pytest.approx(3 / 51)  # the sampled one's exact probability
    intervals = [layer for layer in layers if layer["mark"]["type"] == "rule"]
    assert intervals and all(r["rules_id"] == SAMPLED.rules_id for layer in intervals for r in layer["data"]["values"])
    assert tick["encoding"]["x"]["title"] == "share of games whose first battle is a war"


def test_the_seats_and_the_deal_draw_no_interval_for_every_deal(data):
    for fid in ("classic-seat-advantage", "classic-deal-top-cards"):
        rows = [r for layer in _layers(_figure(data, fid)) if "data" in layer for r in layer["data"]["values"]
                if r.get("rules_id") == OPEN.rules_id]
        assert rows, fid
        assert all(r["every_deal"] and r["ci_low"] == r["ci_high"] == r["share"] for r in rows), fid


def test_the_games_worth_a_look_are_the_longest_that_end(data, page):
    longest = [r for r in data.rows("notable_games") if r["kind"] == "longest"]
    assert longest and all(r["outcome"] in ("win", "draw") for r in longest)
    assert "longest that ends" in page


@pytest.fixture(scope="module")
def counted(tmp_path_factory):
    root = tmp_path_factory.mktemp("counted") / "ds"
    generate(root, make_plans([OPEN], all_deals=True, log="counts"), seed=3)
    return root


def test_a_dataset_of_counts_reads_well(counted):
    data = build_report_data(counted)
    page = render_report(data, "ds", None)
    assert "34,650 deals counted · 1 rule set · 1 variant" in page
    assert 'id="games"' not in page and "#games" not in page  # no empty list of games
    summary = page.split('<table class="summary">', 1)[1].split("</table>", 1)[0]
    cells = re.findall(r'<td data-query="([a-z_]+)" data-col="([a-z_]+)" data-value="([^"]*)">', summary)
    by = {(q, c): v for q, c, v in cells}
    outcomes = {r["result"]: r for r in run(counted, name="exact_outcomes").to_pylist()}
    wins = sum(r["numerator"] for k, r in outcomes.items() if k.startswith("seat "))
    assert by[("exact_outcomes", "denominator")] == "34650"
    shares = [float(v) for q, c, v in cells if q == "exact_outcomes" and c == "share"]
    assert pytest.approx(wins / 34650) in shares
    mean = run(counted, name="exact_length").to_pylist()[0]["mean_battles"]
    assert float(by[("exact_length", "mean_battles")]) == pytest.approx(mean)
    longest = max(r["battles"] for r in run(counted, name="records").to_pylist())
    assert int(by[("records", "battles")]) == longest
