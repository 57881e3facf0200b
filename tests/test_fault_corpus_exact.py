"""The fault corpus, round three (issue 45, item 9): a partial enumeration is not called exact.
`war generate --all-deals --games 10 --set ranks=3 --set suits=2` plays the first 10 of the
deck's 90 deals; exact answers (`exact_outcomes`, the report's exact block) are given only for
rule sets that play every deal, and a query or report over such a rule set says plainly which
part of the deals it played, and how to play them all.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from faultkit import war
from pipeline.jobs.query import open_query, run
from pipeline.jobs.request import GenerateArgs, generate_request
from pipeline.present.report import build_report_data
from pipeline.present.report_page import render_report

PARTIAL = ["generate", "--all-deals", "--games", "10", "--set", "ranks=3", "--set", "suits=2", "-q"]
EXACT = ("exact_outcomes", "exact_length", "exact_cards_laid", "records", "cycle_periods")


@pytest.fixture(scope="module")
def partial(tmp_path_factory) -> Path:
    """`war generate --all-deals --games 10 --set ranks=3 --set suits=2`, through the library."""
    root = tmp_path_factory.mktemp("partial") / "ds"
    generate_request(GenerateArgs(options=["ranks=3", "suits=2"], all_deals=True, games=10, out=root)).run()
    return root


class _Exact(HTMLParser):
    """Whether the page has an exact block, and its notes on partial enumerations."""

    def __init__(self):
        super().__init__()
        self.exact = False
        self.partial: list[str] = []
        self._in = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "exact" in (a.get("class") or "").split():
            self.exact = True
        if tag == "p" and "partial" in (a.get("class") or "").split():
            self._in = True
            self.partial.append("")

    def handle_data(self, data):
        if self._in:
            self.partial[-1] += data

    def handle_endtag(self, tag):
        if tag == "p":
            self._in = False


@pytest.mark.parametrize("name", EXACT)
def test_a_partial_enumeration_has_no_exact_rows_and_says_why(partial, name):
    assert run(partial, name=name).num_rows == 0
    with open_query(partial, name=name) as result:
        note = result.note
    assert note and "plays the first 10 of its 90 deals" in note, note
    assert "war generate -v classic --set ranks=3 --set suits=2 --all-deals --out NEW" in note


def test_war_query_warns_on_stderr(partial, monkeypatch, capsys):
    code, out, err = war(monkeypatch, capsys, "query", partial, "exact_outcomes", "--format", "csv")
    assert code == 0 and out.strip().count("\n") == 0  # the header alone
    [said] = [line for line in err.splitlines() if line.startswith("warning:")]
    assert "exact_outcomes has no rows: no rule set of" in said and "plays every deal of its deck" in said
    assert "'classic ranks=3 suits=2' plays the first 10 of its 90 deals" in said


def test_the_report_calls_nothing_exact_and_says_which_deals_it_played(partial):
    data = build_report_data(partial)
    [info] = data.rule_sets
    assert info.partial and not info.all_deals and info.deals == 90 and info.games == 10
    page = _Exact()
    page.feed(render_report(data, "ds", None))
    assert not page.exact
    assert len(page.partial) == 1 and "plays the first 10 of its deck's 90 deals" in page.partial[0]


def test_the_whole_enumeration_is_exact(tmp_path, monkeypatch, capsys):
    # a fixed pickup: under the default shuffled one each deal's game draws too, and no share is exact
    code, _, err = war(monkeypatch, capsys, *[a for a in PARTIAL if a not in ("--games", "10")],
                       "--set", "pickup=natural", "--out", tmp_path / "all")
    assert code == 0, err
    rows = run(tmp_path / "all", name="exact_outcomes").to_pylist()
    assert rows and {r["denominator"] for r in rows} == {90}
    with open_query(tmp_path / "all", name="exact_outcomes") as result:
        assert result.note is None
    assert not build_report_data(tmp_path / "all").rule_sets[0].partial


def test_the_report_of_a_slice_of_counts_says_its_range_and_the_deals_it_counted(tmp_path, monkeypatch, capsys):
    """A `--deal-range 1000:2520` slice was reported as 'the first 1,520 deals (--all-deals --games
    1520)' and '1,520 deals counted': it counts the 1,060 deals of the classes whose first deal is
    in the range (hostile pass E, 4)."""
    out = tmp_path / "slice"
    code, _, err = war(monkeypatch, capsys, "generate", "--set", "ranks=4", "--set", "suits=2", "--set",
                       "pickup=natural", "--set", "war_down=0", "--all-deals", "--log", "counts",
                       "--deal-range", "1000:2520", "--out", out, "-q")
    assert code == 0, err
    counted = run(out, sql="SELECT sum(games) AS n FROM counts").to_pylist()[0]["n"]
    data = build_report_data(out)
    [info] = data.rule_sets
    assert info.partial and info.deal_range == (1000, 2520) and info.games == counted and counted < 1520
    text = render_report(data, "slice", None)
    page = _Exact()
    page.feed(text)
    [said] = page.partial
    assert "--deal-range 1000:2520" in said and f"the {counted:,} deals of the classes" in said, said
    assert "1,000 to 2,519" in said and "war combine" in said and "--games" not in said, said
    assert f"{counted:,} deals counted" in text
