"""An all-deals dataset, and one that stores the games table alone, work wherever a seeded one
does: the report (with its exact results, marked as such), replay as text, JSON and page,
validation (a tampered games row named), an append of seeded games, and --resume."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pyarrow.parquet as pq
import pytest

from faultkit import sign
from pipeline.jobs.generate import Plan, generate, make_plans
from pipeline.jobs.query import run
from pipeline.jobs.replay import as_json, render_text, replay_game
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules
from pipeline.present.replay_page import replay_page
from pipeline.present.report_page import write_report
from rulekit import digests

EIGHT = build_rules("classic", {"ranks": "4", "suits": "2", "pickup": "winner_first"})  # 2,520 deals


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """Every deal of an 8-card deck, games table alone, then 200 seeded Jokers games appended."""
    root = tmp_path_factory.mktemp("exact") / "ds"
    generate(root, make_plans([EIGHT], all_deals=True, log="games"), seed=5, shard_size=1000)
    generate(root, [Plan(build_rules("jokers"), 200)], shard_size=100, append=True)
    return root


class Exact(HTMLParser):
    """The exact block of each section: section id -> {query: [{column: value}]}."""

    def __init__(self):
        super().__init__()
        self.section, self.inside, self.query, self.row = None, 0, None, None
        self.found: dict[str, dict[str, list[dict]]] = {}
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.section = a.get("id")
        if tag == "div" and "exact" in (a.get("class") or "").split():
            self.inside = self.depth + 1
            self.found.setdefault(self.section, {})
        if tag == "div":
            self.depth += 1
        if self.inside and tag == "table":
            self.query = a["data-query"]
            self.found[self.section][self.query] = []
        if self.inside and tag == "tr" and self.query:
            self.row = {}
        if self.inside and tag == "td" and self.row is not None:
            self.row[a["data-col"]] = json.loads(a["data-value"])

    def handle_endtag(self, tag):
        if tag == "div":
            if self.inside == self.depth:
                self.inside = 0
            self.depth -= 1
        if tag == "tr" and self.row:
            self.found[self.section][self.query].append(self.row)
            self.row = None


def test_the_report_shows_exact_results_for_the_rule_sets_that_play_every_deal(mixed, tmp_path):
    out = tmp_path / "r.html"
    write_report(mixed, out, dataset="ds")
    parser = Exact()
    parser.feed(out.read_text(encoding="utf-8"))
    assert set(parser.found) == {"classic"}  # Jokers' games are sampled: no exact block
    shown = parser.found["classic"]
    assert set(shown) == {"exact_outcomes", "records", "exact_length", "exact_cards_laid"}  # no cycle in this deck
    want = run(mixed, name="exact_outcomes").to_pylist()
    assert shown["exact_outcomes"] == want
    assert sum(r["numerator"] for r in want if not r["result"].startswith("seat ")) == 2520
    assert {r["denominator"] for r in want} == {2520}
    assert [r["battles"] for r in shown["records"]] == [r["battles"] for r in run(mixed, name="records",
                                                                                    params={"limit": "5"}).to_pylist()]
    assert "exact-mark" in out.read_text(encoding="utf-8")
    pages = sorted((tmp_path / "r-games").glob("*.html"))  # replay pages of games-only games, played again
    assert pages and all("war-data" in p.read_text(encoding="utf-8") for p in pages)


def test_a_game_of_every_deal_stored_alone_replays_as_text_json_and_page(mixed):
    rp = replay_game(mixed, 1234)
    assert rp.record["game_id"] == 1234 and not rp.disagreements
    assert render_text(rp).splitlines()[0].startswith("Game 1234")
    assert as_json(rp)["game"]["game_id"] == 1234
    assert "war-data" in replay_page(mixed, 1234)


def test_validation_names_a_tampered_games_row_of_every_deal(mixed, tmp_path):
    import shutil

    root = tmp_path / "t"
    shutil.copytree(mixed, root)
    assert validate(root).ok
    part = next(p for p in sorted((root / "games").rglob("*.parquet")) if "variant=classic" in str(p))
    table = pq.read_table(part)
    battles = table.column("battles").to_pylist()
    battles[7] += 1
    table = table.set_column(table.schema.get_field_index("battles"), "battles",
                             __import__("pyarrow").array(battles, table.schema.field("battles").type))
    pq.write_table(table, part)
    sign(root)
    report = validate(root)
    assert not report.ok
    assert any(str(table.column("game_id")[7].as_py()) in str(p) for p in report.problems), report.problems


def test_an_interrupted_run_of_every_deal_resumes_to_the_same_bytes(tmp_path):
    plans = make_plans([EIGHT], all_deals=True, log="games")
    generate(tmp_path / "whole", plans, seed=5, shard_size=300)
    calls = []

    def stop(*args):
        calls.append(args)
        if len(calls) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        generate(tmp_path / "cut", plans, seed=5, shard_size=300, progress=stop)
    assert (tmp_path / "cut" / ".war").exists()
    generate(tmp_path / "cut", plans, seed=5, shard_size=300, resume=True)
    assert digests(tmp_path / "cut") == digests(tmp_path / "whole")


def test_a_query_over_the_log_of_a_partly_stored_dataset_says_which_rule_sets_it_lacks(mixed, monkeypatch,
                                                                                        capsys):
    """Rule set 0 stores the games table alone, rule set 1 its log: a query of the event views
    or event_rows counts rule set 1's games only, and says so (library, command line, war serve's
    SQL page); a query of the games table says nothing."""
    from urllib.request import urlopen
    from urllib.parse import quote

    from clikit import run_main
    from pipeline.jobs.query import open_query
    from servekit import war_serve

    for text in ("SELECT count(DISTINCT game_id) AS n FROM events", "SELECT count(DISTINCT game_id) AS n FROM event_rows",
                 "SELECT count(*) AS n FROM battles"):
        with open_query(mixed, sql=text) as result:
            assert result.note is not None and result.note.startswith("the event views hold no rows of rule set 0 ("), text
            assert "2,520 games" in result.note and "war generate --from" in result.note
    assert run(mixed, sql="SELECT count(DISTINCT game_id) AS n FROM events").to_pylist() == [{"n": 200}]
    with open_query(mixed, sql="SELECT count(*) FROM games") as result:
        assert result.note is None
    code, out, err = run_main(monkeypatch, capsys, "query", mixed, "--sql", "SELECT count(*) FROM events")
    assert code == 0 and [line for line in err.splitlines() if line.startswith("warning: the event views")], err
    code, out, err = run_main(monkeypatch, capsys, "query", mixed, "--sql", "SELECT count(*) FROM games")
    assert code == 0 and "warning" not in err
    with war_serve(mixed) as (url, _):
        with urlopen(url + "sql?q=" + quote("SELECT count(*) FROM events"), timeout=120) as page:
            assert 'id="note"' in page.read().decode()
        with urlopen(url + "sql?q=" + quote("SELECT count(*) FROM games"), timeout=120) as page:
            assert 'id="note"' not in page.read().decode()


def test_the_log_of_a_dataset_that_stores_none_is_refused_by_name_also_as_event_rows(tmp_path):
    from pipeline.errors import QueryError

    root = tmp_path / "alone"
    generate(root, make_plans([EIGHT], games=20, log="games"), seed=5)
    for text in ("SELECT count(*) FROM events", "SELECT count(*) FROM event_rows"):
        with pytest.raises(QueryError, match="stores the games table alone"):
            run(root, sql=text)
