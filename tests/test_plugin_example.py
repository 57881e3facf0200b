"""The example family, Slap War (examples/war-slap), installed for the session as `pip install`
would install it (tests/conftest.py: its package and its entry point, nothing of war changed):
war finds it through the entry point group `war.families` and plays it everywhere, from its
declaration alone. It adds an event kind (`slap`, a take of the table), a decision (`slap`) with
its policies, an option (`slap_order`), a named query (`slaps`) and its golden playthroughs
(tests/test_conformance.py plays its games with every other variant's)."""

from __future__ import annotations

import json
import re
import sys
import urllib.request
from pathlib import Path

import pytest

from browser import clean_tab
from clikit import error_lines
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import run
from pipeline.jobs.replay import as_json, render_text, replay_game
from pipeline.jobs.replay_out import render_replay
from pipeline.jobs.validate import validate
from pipeline.model.families import registry
from pipeline.model.rules import build_rules
from pipeline.present.replay_page import page_data, replay_page
from rulekit import dataset_events
from servekit import war_serve
from validatekit import assert_caught, copy, edit_game, finish

ROOT = Path(__file__).resolve().parent.parent
GAMES = 24


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """Slap War at its defaults, seat 0 first with two policies, and Classic War beside them."""
    out = tmp_path_factory.mktemp("slap") / "d"
    generate(out, [Plan(build_rules("slap"), GAMES),
                   Plan(build_rules("slap", {"slap_order": "seat", "pickup": "table_order"}), GAMES,
                        policies=("high:9", "random")),
                   Plan(build_rules("classic"), GAMES)], seed=8, shard_size=12)
    return out


@pytest.fixture(scope="module")
def events(root) -> list[dict]:
    return dataset_events(root)


@pytest.fixture(scope="module")
def slapped(events) -> int:
    """A game of the first rule set with a slap."""
    return next(e["game_id"] for e in events if e["kind"] == "slap" and e["game_id"] < 1_000_000_000)


def test_war_finds_it_through_its_entry_point_and_names_it_nowhere():
    """The family is an outside one, declared in its own package; no file of war names it."""
    reg = registry()
    family = reg.families["slap"]
    assert "slap" not in reg.built_in and family.module == "war_slap"
    assert reg.variants["slap"].family == "slap" and "slap_order" in reg.options and "slap" in reg.kinds
    named = [str(p.relative_to(ROOT)) for p in (ROOT / "pipeline").rglob("*")
             if p.is_file() and p.suffix in (".py", ".sql", ".js", ".html", ".css")
             and re.search(r"slap", p.read_text(encoding="utf-8"), re.I)]
    assert named == [], "war names the example family"


def test_variants_and_policies_list_it(monkeypatch, capsys):
    from clikit import run_main

    code, out, _ = run_main(monkeypatch, capsys, "variants", "--json")
    slap = next(v for v in json.loads(out) if v["variant"] == "slap")
    assert code == 0 and slap["family"] == "slap" and slap["decisions"] == ["slap"]
    assert slap["defaults"]["slap_order"] == "after_winner" and slap["rules"] == "war-slap's README.md"
    code, out, _ = run_main(monkeypatch, capsys, "policies")
    assert "slap: always, never, random, high:N (default always)" in out.splitlines()
    assert "slap: decides slap" in out.splitlines()


def test_an_option_of_the_family_is_checked_and_recorded_only_where_it_is_set():
    """Its option is checked as declared, shown with its family's rule sets, and recorded (a
    manifest, a plan) only away from its default: a Classic War rule set is as it was."""
    seat = build_rules("slap", {"slap_order": "seat"})
    assert seat.differences() == {"slap_order": "seat"} and seat.model_dump(mode="json")["slap_order"] == "seat"
    with pytest.raises(Exception, match="slap_order"):
        build_rules("slap", {"slap_order": "sometimes"})
    with pytest.raises(Exception, match="does not apply to variant 'classic'"):
        build_rules("classic", {"slap_order": "seat"})
    assert "slap_order" not in build_rules("classic").model_dump(mode="json")
    assert "slap_order" not in build_rules("classic").options()
    assert "slap_order" not in build_rules("slap").model_dump(mode="json")
    assert build_rules("slap").options()["slap_order"] == "after_winner"


def test_generate_says_once_that_its_reference_engine_plays_it(tmp_path, monkeypatch, capsys):
    from clikit import run_main

    code, out, err = run_main(monkeypatch, capsys, "generate", "-v", "slap", "-v", "classic", "--games", "6",
                              "--out", tmp_path / "g")
    assert code == 0, err
    notes = [line for line in error_lines(err) if "compiled engine" in line]
    assert notes == ["note: slap has no compiled engine: the reference engine plays its games"]


def test_replay_says_each_slap_in_its_sentence(root, slapped):
    rp = replay_game(root, slapped)
    text = render_text(rp)
    assert re.search(r"^    seat \d slaps the pair$", text, re.M)
    assert re.search(r"^  seat \d slaps the pair first and takes 2 cards: \S+ \S+$", text, re.M)
    data = as_json(rp)
    battle = next(b for b in data["battles"] if any(e["kind"] == "slap" for e in b["events"]))
    slap = next(e for e in battle["events"] if e["kind"] == "slap")
    assert battle["winner"] == slap["seat"] and battle["war_depth"] == 0
    card = slap["labels"][0]
    journey = render_replay(rp, card=card)
    assert f"Battle {battle['battle']}: " in journey and "slaps it up" in journey


def test_the_replay_page_shows_a_slap_by_what_it_does(root, slapped, browser, tmp_path):
    rp = replay_game(root, slapped)
    data = page_data(rp)
    assert data["sentences"]["kinds"]["slap"]["collects"] and data["sentences"]["decisions"]["slap"]["chooses"] == "seats"
    battle = next(i + 1 for i, b in enumerate(data["battles"]) if any(e[0] == "slap" for e in b["e"]))
    page = tmp_path / "g.html"
    page.write_text(replay_page(root, slapped), encoding="utf-8")
    with clean_tab(browser) as tab:
        tab.page.goto(page.as_uri() + f"#battle={battle}")
        tab.page.wait_for_function(f"document.body.dataset.battle === '{battle}'")
        line = tab.page.locator('#events li[data-kind="slap"]').inner_text()
        slap = next(e for e in rp.battles[battle - 1].events if e.kind == "slap")
        assert line == f"seat {slap.seat} slaps the pair first and takes 2 cards: " + \
            " ".join(rp.deck.label(c) for c in slap.cards)
        assert f"Seat {slap.seat} collects 2 cards" in tab.page.locator("#collects").inner_text()
        assert "slap the pair?" in tab.page.locator("#decisions").inner_text()
        assert tab.page.locator(f'[data-battle-item="{battle}"][data-decision]').count() == 1


def test_validation_finds_its_games_good_and_names_a_tampered_slap(root, slapped, tmp_path):
    report = validate(root)
    assert report.ok and report.good == 3 * GAMES
    bad = copy(root, tmp_path)
    where = {}

    def other_seat_slaps(rows):
        i = next(i for i, r in enumerate(rows) if r["kind"] == "slap")
        where["seq"] = i
        rows[i]["seat"] = 1 - rows[i]["seat"]
        return rows

    rel = edit_game(bad, slapped, "events", other_seat_slaps)
    problem = assert_caught(finish(bad, "fixed", rel), slapped, "fixed", (rel,), seq=where["seq"])
    assert "slap" in problem.message


def test_its_events_are_in_the_views_and_its_query_answers(root, events):
    slaps = [e for e in events if e["kind"] == "slap"]
    viewed = run(root, sql="SELECT count(*) AS n FROM events WHERE kind = 'slap'").column("n").to_pylist()
    assert slaps and viewed == [len(slaps)]
    winners = run(root, sql="""SELECT b.winner, e.seat FROM battles b JOIN events e USING (game_id, battle)
                               WHERE e.kind = 'slap'""").to_pylist()
    assert len(winners) == len(slaps) and all(r["winner"] == r["seat"] for r in winners)
    rows = run(root, name="slaps").to_pylist()
    names = run(root, sql="SELECT rule_set FROM rules WHERE variant = 'slap' ORDER BY ordinal").column("rule_set").to_pylist()
    assert [r["rule_set"] for r in rows] == names and len(rows) == 2  # named, in the dataset's order
    for row in rows:
        games = {e["game_id"] for e in events if e["game_id"] // 1_000_000_000 == (0 if row["policies"][0] == "slap:always"
                                                                                  else 1)}
        mine = [e for e in events if e["game_id"] in games]
        pairs = {(e["game_id"], e["battle"]) for e in mine if e["kind"] == "decision" and e["note"] == "slap"}
        taken = [e for e in mine if e["kind"] == "slap"]
        assert (row["games"], row["pairs"], row["slapped"]) == (GAMES, len(pairs), len(taken))


def test_the_report_has_its_section_and_its_numbers(root, tmp_path):
    from pipeline.present.report_page import write_report

    out = tmp_path / "report.html"
    write_report(root, out, game_pages=False)
    html = out.read_text(encoding="utf-8")
    assert '<section class="part" id="slap">' in html and "Slap War" in html
    assert "This variant&#39;s own numbers" in html or "This variant's own numbers" in html
    assert 'data-query="slaps"' in html and "war query" in html


def test_serve_opens_its_games(root, slapped):
    with war_serve(root) as (url, _):
        with urllib.request.urlopen(url + f"games/{slapped}", timeout=120) as response:
            page = response.read().decode("utf-8")
        assert response.status == 200
        assert '"slap":{"text":"seat {seat} slaps the pair first' in page  # the page's data: the kind's sentence
        rows = re.findall(r"<tr[^>]*>(.*?)</tr>", page, re.S)
        assert any(">slap<" in row for row in rows), "the events table lists the game's slaps"
        with urllib.request.urlopen(url + "games?variant=slap", timeout=120) as response:
            assert response.status == 200 and str(slapped) in response.read().decode("utf-8")


def test_a_dataset_of_a_family_not_installed_says_which(root, tmp_path):
    """Without the package, its dataset is refused with the variant named (the rule set's model
    has no such variant), not read wrong."""
    import subprocess

    env_path = [p for p in sys.path if "war-slap" not in p and "war-slap-site" not in p]
    code = subprocess.run([sys.executable, "-c", "import sys; sys.path[:] = sys.argv[1:]; "
                           "from pipeline.cli import main; sys.argv = ['war', 'replay', %r, '0']; main()" % str(root),
                           *env_path], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}, timeout=300)
    assert code.returncode == 2 and "Traceback" not in code.stderr, code.stderr
    assert "variant 'slap' is played by no installed family" in code.stderr.splitlines()[-1], code.stderr
