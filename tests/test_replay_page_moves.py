"""The replay page as a chess viewer (issue 37 item 4), in headless Chromium: the list of battles
beside the table (`[data-battle-item=N]`, wars with their depth, decisions, lead changes), the
current battle highlighted and in view, `w`/`W` to the next/previous war and `l`/`L` to the
next/previous lead change, battle numbers under the timeline, and *Download JSON*, which saves
exactly what `war replay --format json` prints. Every check is held to `war replay`'s JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from browser import MISSING, clean_tab
from pipeline.cli import app
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import run as run_query
from pipeline.jobs.replay import replay_game
from pipeline.model.rules import build_rules
from pipeline.present.replay_page import lead_changes, page_data

browser_needed = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


def war(*args) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def longest(root: Path) -> int:
    return run_query(root, sql="select game_id from games order by battles desc, game_id limit 1").to_pylist()[0]["game_id"]


@pytest.fixture(scope="module")
def games(tmp_path_factory) -> dict[str, tuple[Path, int, dict, Path]]:
    """Per layout (a pile, a won pile, a hand): the dataset, its longest game, that game's JSON
    replay, and its page written by `war replay --format html`."""
    base = tmp_path_factory.mktemp("moves")
    out = {}
    for name, plan in (("classic", Plan(build_rules("classic"), 20)),
                       ("steal", Plan(build_rules("steal"), 4, policies=("steal:threshold:2", "greedy"))),
                       ("arneson", Plan(build_rules("arneson"), 3))):
        root = base / name
        generate(root, [plan], seed=21)
        gid = longest(root)
        page = base / f"{name}.html"
        war("replay", root, gid, "--format", "html", "--output", page)
        out[name] = (root, gid, json.loads(war("replay", root, gid, "--format", "json")), page)
    return out


@pytest.fixture
def page(browser):
    with clean_tab(browser, viewport=(1400, 900)) as tab:
        yield tab.page


def open_page(tab, path: Path, fragment: str = "") -> None:
    tab.goto(path.as_uri() + fragment)
    tab.wait_for_function("document.body.dataset.battle !== undefined")


def battle(tab) -> int:
    return int(tab.evaluate("document.body.dataset.battle"))


def held(data: dict) -> list[list[int]]:
    """Each seat's cards after each battle (0: the deal), from the JSON replay."""
    dealt = [len(e["cards"]) for e in data["deal"] if e["kind"] == "deal"]
    per_seat = [[n] for n in dealt]
    for b in data["battles"]:
        for s, cards in enumerate(b["held_after"]):
            per_seat[s].append(len(cards))
    return per_seat


# ---------------------------------------------------------------- without a browser


def test_lead_changes():
    # seat 0 leads from the deal; a tie keeps the lead; seat 1 takes it at 3, seat 0 again at 5
    counts = [[27, 26, 26, 24, 26, 30], [25, 26, 26, 28, 26, 22]]
    assert lead_changes(counts) == [[3, 1], [5, 0]]
    assert lead_changes([[26, 27], [26, 25]]) == [[1, 0]]  # taken for the first time


def test_the_pages_leads_are_the_json_replays(games):
    for root, gid, data, _ in games.values():
        counts = held(data)
        expected, leader = [], None
        for b in range(len(counts[0])):
            n = [c[b] for c in counts]
            top = [s for s, x in enumerate(n) if x == max(n)]
            if len(top) == 1 and top[0] != leader:
                leader = top[0]
                if b:
                    expected.append([b, leader])
        assert page_data(replay_game(root, gid))["leads"] == expected


# ---------------------------------------------------------------- in the browser


@browser_needed
def test_the_list_marks_wars_decisions_and_follows_the_battle(page, games):
    root, gid, data, path = games["steal"]
    open_page(page, path)
    assert page.get_attribute("[data-battle-item='0']", "class").split() == ["battle-item", "current"]
    wars = {b["battle"]: b["war_depth"] for b in data["battles"]}
    decided = {b["battle"] for b in data["battles"] if any(e["kind"] == "decision" for e in b["events"])}
    leads = dict(map(tuple, page_data(replay_game(root, gid))["leads"]))
    seen = set()
    for target in (1, len(data["battles"]) // 2, len(data["battles"])):
        page.fill("#jump-to", str(target))
        page.click("#jump button[type=submit]")
        assert battle(page) == target
        current = page.locator(".battle-item.current")
        assert current.get_attribute("data-battle-item") == str(target)
        assert current.get_attribute("aria-selected") == "true"
        box, item = page.locator("#battle-list").bounding_box(), current.bounding_box()
        assert box["y"] <= item["y"] and item["y"] + item["height"] <= box["y"] + box["height"] + 1
        for el in page.query_selector_all("[data-battle-item]"):
            b = int(el.get_attribute("data-battle-item"))
            seen.add(b)
            if b:
                assert int(el.get_attribute("data-war")) == wars[b]
                assert (el.get_attribute("data-decision") is not None) == (b in decided)
                assert el.get_attribute("data-lead") == (str(leads[b]) if b in leads else None)
                assert f"seat {data['battles'][b - 1]['winner']}" in el.inner_text()
    assert len(seen) > 20
    # a click on a battle in view shows it
    b = len(data["battles"]) - 2
    page.click(f"[data-battle-item='{b}']")
    assert battle(page) == b
    assert page.locator(".battle-item.current").get_attribute("data-battle-item") == str(b)


@browser_needed
def test_w_jumps_to_the_next_war_and_W_back(page, games):
    _, _, data, path = games["classic"]
    wars = [b["battle"] for b in data["battles"] if b["war_depth"]]
    assert len(wars) > 3
    open_page(page, path)
    for expected in wars[:4]:
        page.keyboard.press("w")
        assert battle(page) == expected
        assert page.locator("#war-badge").is_visible()
        depth = next(b["war_depth"] for b in data["battles"] if b["battle"] == expected)
        assert page.get_attribute(f"[data-battle-item='{expected}']", "data-war") == str(depth)
    page.keyboard.press("Shift+W")
    assert battle(page) == wars[2]
    page.keyboard.press("End")
    page.keyboard.press("w")  # no war after the last battle: it stays
    assert battle(page) == len(data["battles"])
    page.keyboard.press("Shift+W")
    assert battle(page) == wars[-1]


@browser_needed
def test_l_jumps_to_the_next_lead_change(page, games):
    root, gid, data, path = games["classic"]
    leads = [b for b, _ in page_data(replay_game(root, gid))["leads"]]
    assert len(leads) > 2
    open_page(page, path)
    page.keyboard.press("l")
    assert battle(page) == leads[0]
    page.keyboard.press("l")
    assert battle(page) == leads[1]
    page.keyboard.press("Shift+L")
    assert battle(page) == leads[0]


@browser_needed
def test_the_timeline_has_battle_numbers(page, games):
    _, _, data, path = games["classic"]
    open_page(page, path)
    ticks = [int(t) for t in page.get_attribute("#timeline", "data-ticks").split()]
    assert ticks[0] == 0 and len(ticks) >= 4 and ticks == sorted(ticks) and ticks[-1] <= len(data["battles"])
    steps = {b - a for a, b in zip(ticks, ticks[1:])}
    assert len(steps) == 1 and str(steps.pop()).rstrip("0") in ("1", "2", "5")


@browser_needed
@pytest.mark.parametrize("layout", ["classic", "steal", "arneson"])
def test_download_is_the_json_replay(page, games, layout):
    _, _, data, path = games[layout]
    open_page(page, path, "#battle=3")
    with page.expect_download() as info:
        page.click("#download")
    download = info.value
    assert download.suggested_filename == f"war-game-{data['game']['game_id']}.json"
    assert json.loads(Path(download.path()).read_text(encoding="utf-8")) == data
    assert battle(page) == 3


@browser_needed
def test_a_long_game_lays_out_only_the_rows_in_view(page, tmp_path):
    root = tmp_path / "long"
    generate(root, [Plan(build_rules("classic", {"ranks": 40, "max_battles": 2000}), 2)], seed=7)
    gid = longest(root)
    path = tmp_path / "long.html"
    war("replay", root, gid, "--format", "html", "--output", path)
    open_page(page, path, "#battle=1500")
    rows = page.locator("[data-battle-item]")
    assert 5 < rows.count() < 30
    assert page.locator(".battle-item.current").get_attribute("data-battle-item") == "1500"
    page.locator("#battle-list").evaluate("el => { el.scrollTop = 0; el.dispatchEvent(new Event('scroll')); }")
    page.wait_for_function("document.querySelector('[data-battle-item=\"0\"]') !== null")
    assert page.locator("[data-battle-item]").count() < 30
