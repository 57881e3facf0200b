"""The replay page (`war replay DATASET GAME --format html`, issue 13 items 2 and 4), driven in
headless Chromium through Playwright.

The page's DOM contract: `document.body.dataset.battle` is the battle shown, and each seat's
`[data-seat=S]` element has `data-cards`, the seat's cards after that battle as labels, in the
order `held_after` in `war replay --battle N --format json` gives (pile top first, won pile top
first, hand by code). Every check compares the page with that JSON.

Needs Debian's chromium at /usr/bin/chromium (.ci/run installs it); skipped, saying so, without it.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from browser import ARGS, CHROMIUM, MISSING
from pipeline.cli import app
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import run as run_query
from pipeline.jobs.replay import replay_game
from pipeline.model.deal import check_deal
from pipeline.model.event_kinds import NAMES, sentence
from pipeline.present.replay_page import list_diff, page_data, replay_page
from pipeline.model.rules import build_rules
from pipeline.storage.dataset import Dataset
from pipeline.storage.files import sha256_file

browser_needed = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


def war(*args) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def battle_json(root: Path, gid: int, battle: int) -> dict:
    (one,) = json.loads(war("replay", root, gid, "--battle", battle, "--format", "json"))["battles"]
    return one


@pytest.fixture(scope="module")
def classic(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("page") / "classic"
    generate(out, [Plan(build_rules("classic"), 20)], seed=11)
    return out


@pytest.fixture(scope="module")
def steal(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("page") / "steal"
    generate(out, [Plan(build_rules("steal"), 6, policies=("steal:threshold:2", "greedy"))], seed=3)
    return out


def longest(root: Path) -> dict:
    return run_query(root, sql="select game_id, battles from games order by battles desc, game_id limit 1"
                     ).to_pylist()[0]


@pytest.fixture(scope="module")
def game(classic) -> dict:
    g = longest(classic)
    assert g["battles"] > 60
    return g


@pytest.fixture(scope="module")
def page_file(classic, game, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("html") / "game.html"
    war("replay", classic, game["game_id"], "--format", "html", "--output", path)
    return path


@pytest.fixture(scope="module")
def browser():
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
    if MISSING:
        pytest.skip(MISSING)
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


class Page:
    """A browser tab that records console errors and every request that is not a file."""

    def __init__(self, browser):
        self.page = browser.new_page(viewport={"width": 1400, "height": 900})
        self.errors: list[str] = []
        self.fetched: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: None if r.url.startswith("file:") else self.fetched.append(r.url))

    def open(self, path: Path, fragment: str = "") -> "Page":
        self.page.goto(path.as_uri() + fragment)
        self.page.wait_for_function("document.body.dataset.battle !== undefined")
        return self

    @property
    def battle(self) -> int:
        return int(self.page.evaluate("document.body.dataset.battle"))

    def seats(self) -> dict[int, list[str]]:
        return {int(el.get_attribute("data-seat")): (el.get_attribute("data-cards") or "").split()
                for el in self.page.query_selector_all("[data-seat]")}

    def close(self):
        self.page.close()


@pytest.fixture
def tab(browser):
    tab = Page(browser)
    yield tab
    assert tab.errors == [], f"console errors: {tab.errors}"
    assert tab.fetched == [], f"the page fetched {tab.fetched}"
    tab.close()


def assert_seats_match(tab: Page, root: Path, gid: int, battle: int) -> None:
    expected = battle_json(root, gid, battle)
    seats = tab.seats()
    assert sorted(seats) == list(range(len(expected["held_after"])))
    for seat, held in enumerate(expected["held_after"]):
        assert seats[seat] == held, f"seat {seat} after battle {battle}"


# ---------------------------------------------------------------- without a browser


def test_held_after_is_pile_then_won_pile_then_hand(classic, steal, game):
    """The order data-cards follows, defined once (BattleView.held_after) and given in JSON."""
    for root, gid in ((classic, game["game_id"]), (steal, longest(steal)["game_id"])):
        data = json.loads(war("replay", root, gid, "--format", "json"))
        deck = replay_game(root, gid).deck
        for b in data["battles"]:
            for seat, held in enumerate(b["held_after"]):
                codes = b["piles_after"][seat] + (b["won_after"][seat] if "won_after" in b else []) + \
                    (b["hands_after"][seat] if "hands_after" in b else [])
                assert held == [deck.label(c) for c in codes]


def test_list_diff_rebuilds_every_list():
    rng = random.Random(5)
    for _ in range(2000):
        old = rng.sample(range(60), rng.randint(0, 30))
        kept = old[rng.randint(0, len(old)):] if rng.random() < .5 else old[:rng.randint(0, len(old))]
        rest = [c for c in range(60, 80)]
        new = rng.sample(rest, rng.randint(0, 4)) + kept + rng.sample(rest, rng.randint(0, 4))
        if rng.random() < .1:
            new = rng.sample(range(80), rng.randint(0, 30))
        diff = list_diff(old, new)
        if diff == 0:
            assert old == new
            continue
        d, e, top, bottom = diff
        assert top + old[d:len(old) - e] + bottom == new
        assert len(old) - d - e == _longest_common_run(old, new)


def _longest_common_run(a: list[int], b: list[int]) -> int:
    return max((k for i in range(len(a)) for j in range(len(b))
                for k in [next((k for k in range(min(len(a) - i, len(b) - j) + 1)
                                if k == min(len(a) - i, len(b) - j) or a[i + k] != b[j + k]))]), default=0)


def test_page_is_self_contained_and_small_for_its_battles(classic, game):
    page = replay_page(classic, game["game_id"])
    assert page.startswith("<!DOCTYPE html>")
    for outside in ("http://", "https://", " src=", "<link rel=\"stylesheet\"", "@import", "url("):
        assert outside not in page, outside
    data = page_data(replay_game(classic, game["game_id"]))
    assert len(data["battles"]) == game["battles"] == len(data["diffs"])
    assert len(data["keyframes"]) == game["battles"] // data["keyframe"] + 1


# ---------------------------------------------------------------- in the browser


@browser_needed
def test_keyboard_to_battle_40_matches_the_json(tab, page_file, classic, game):
    tab.open(page_file)
    assert tab.battle == 0
    for _ in range(40):
        tab.page.keyboard.press("ArrowRight")
    assert tab.battle == 40
    assert_seats_match(tab, classic, game["game_id"], 40)
    assert tab.page.locator("#battle-title").inner_text() == "Battle 40"
    tab.page.keyboard.press("ArrowLeft")
    assert tab.battle == 39
    assert_seats_match(tab, classic, game["game_id"], 39)
    tab.page.keyboard.press("End")
    assert tab.battle == game["battles"]
    assert_seats_match(tab, classic, game["game_id"], game["battles"])
    tab.page.keyboard.press("Home")
    assert tab.battle == 0
    assert tab.page.evaluate("location.hash") == "#battle=0"


@browser_needed
def test_timeline_click_jumps_to_that_battle(tab, page_file, classic, game):
    tab.open(page_file)
    box = tab.page.locator("#cursor").bounding_box()
    left, right = 34, 10  # the plot's margins (present/static/replay_view.js, PAD)
    for fraction in (0.25, 0.8):
        x = box["x"] + left + fraction * (box["width"] - left - right)
        tab.page.mouse.click(x, box["y"] + box["height"] / 2)
        expected = round(fraction * game["battles"])
        assert abs(tab.battle - expected) <= 1
        assert_seats_match(tab, classic, game["game_id"], tab.battle)


@browser_needed
def test_fragment_opens_at_that_battle_and_follows_changes(tab, page_file, classic, game):
    n = game["battles"] // 2
    tab.open(page_file, f"#battle={n}")
    assert tab.battle == n
    assert_seats_match(tab, classic, game["game_id"], n)
    tab.page.evaluate("location.hash = '#battle=7'")
    tab.page.wait_for_function("document.body.dataset.battle === '7'")
    assert_seats_match(tab, classic, game["game_id"], 7)
    tab.page.keyboard.press("ArrowRight")
    assert tab.page.evaluate("location.hash") == "#battle=8"
    tab.open(page_file, "#battle=999999")
    assert tab.battle == game["battles"]


@browser_needed
def test_controls_jump_play_pause_and_reveal(tab, page_file, classic, game):
    tab.open(page_file)
    tab.page.fill("#jump-to", "25")
    tab.page.click("#jump button[type=submit]")
    assert tab.battle == 25
    tab.page.click("#next")
    assert tab.battle == 26
    tab.page.click("#prev")
    tab.page.click("#prev")
    assert tab.battle == 24
    backs = tab.page.locator("[data-seat] .card.down").count()
    assert backs > 0
    tab.page.check("#reveal")
    assert tab.page.locator("[data-seat] .card.down").count() == 0
    assert tab.page.locator("[data-seat] .card.ghost").count() == backs
    tab.page.select_option("#speed", "100")
    tab.page.locator("body").press(" ")
    tab.page.wait_for_function("Number(document.body.dataset.battle) >= 30")
    tab.page.locator("body").press(" ")
    stopped = tab.battle
    tab.page.wait_for_timeout(150)
    assert tab.battle == stopped
    assert_seats_match(tab, classic, game["game_id"], stopped)


@browser_needed
def test_the_table_shows_the_battle(tab, page_file, classic, game):
    """The table holds the battle's cards (face up as labels, face down as backs), the war depth
    and who collects what, in order."""
    gid = game["game_id"]
    data = json.loads(war("replay", classic, gid, "--wars", "--format", "json"))
    war_battle = data["battles"][0]
    tab.open(page_file, f"#battle={war_battle['battle']}")
    assert f"depth {war_battle['war_depth']}" in tab.page.locator("#war-badge").inner_text()
    downs = sum(len(e["cards"]) for e in war_battle["events"] if e["kind"] == "down")
    ups = [lab for e in war_battle["events"] if e["kind"] == "play" for lab in e["labels"]]
    assert tab.page.locator("#table .card.down").count() == downs
    assert tab.page.locator("#table .card:not(.down)").all_inner_texts() == \
        [lab for s in range(2) for e in war_battle["events"] if e["kind"] == "play" and e["seat"] == s
         for lab in e["labels"]]
    assert sorted(ups) == sorted(tab.page.locator("#table .card:not(.down)").all_inner_texts())
    (collect,) = [e for e in war_battle["events"] if e["kind"] == "collect"]
    assert tab.page.locator("#collects .card").all_inner_texts() == collect["labels"]
    assert f"Seat {collect['seat']} collects" in tab.page.locator("#collects").inner_text()


@browser_needed
def test_steal_war_decisions_and_won_piles(tab, steal, tmp_path):
    gid = longest(steal)["game_id"]
    path = tmp_path / "steal.html"
    war("replay", steal, gid, "--format", "html", "--output", path)
    data = json.loads(war("replay", steal, gid, "--format", "json"))
    chosen = next(b for b in data["battles"]
                  if any(e["kind"] == "decision" and e["note"] == "top" and len(e["options"]) > 2
                         for e in b["events"]))
    tab.open(path, f"#battle={chosen['battle']}")
    assert_seats_match(tab, steal, gid, chosen["battle"])
    decisions = [e for e in chosen["events"] if e["kind"] == "decision"]
    assert tab.page.locator("#decisions .decision").count() == len(decisions)
    top = next(e for e in decisions if e["note"] == "top")
    shown = tab.page.locator("#decisions .decision", has_text="top card").first
    assert shown.locator(".card").count() == len(top["options"])
    assert shown.locator(".card.chosen").inner_text() == top["labels"][0]
    # a won pile's top card is face up (everyone sees it), the rest face down
    for seat, won in enumerate(chosen["won_after"]):
        if won:
            area = tab.page.locator(f"[data-seat='{seat}'] .area").nth(1)
            assert area.locator(".card:not(.down)").count() == 1
            assert area.locator(".card.down").count() == len(won) - 1


@browser_needed
def test_a_long_game_lays_out_one_battle(tab, tmp_path):
    """A 2,000-battle game (a 160-card deck) keeps the DOM to one battle's worth of nodes."""
    root = tmp_path / "long"
    generate(root, [Plan(build_rules("classic", {"ranks": 40, "max_battles": 2000}), 3)], seed=7)
    g = longest(root)
    assert g["battles"] == 2000
    path = tmp_path / "long.html"
    war("replay", root, g["game_id"], "--format", "html", "--output", path)
    tab.open(path, "#battle=1500")
    assert tab.battle == 1500
    assert_seats_match(tab, root, g["game_id"], 1500)
    nodes = tab.page.evaluate("document.querySelectorAll('*').length")
    assert nodes < 150 + 2 * 160
    assert tab.page.locator("canvas").count() == 2
    for _ in range(30):
        tab.page.keyboard.press("Shift+ArrowLeft")
    assert tab.battle == 1200
    assert_seats_match(tab, root, g["game_id"], 1200)


@browser_needed
def test_a_one_battle_game_is_said_in_the_singular(tab, tmp_path):
    """Two cards of one rank: one battle, one war nobody can add to, a draw."""
    root = tmp_path / "two_cards"
    generate(root, [Plan(build_rules("classic", {"ranks": 1, "suits": 2}), 1)], seed=1)
    path = tmp_path / "two_cards.html"
    path.write_text(replay_page(root, 0), encoding="utf-8")
    tab.open(path)
    assert tab.page.locator("#game-outcome").text_content() == "Outcome: draw after 1 battle"
    assert "1 war in 1 battle, deepest 1" in tab.page.locator("#game-meta").text_content()


@browser_needed
@pytest.mark.parametrize("variant, options", [("steal", {}), ("arneson", {}),
                                              ("multiplayer", {"players": 4, "pickup": "pooled"}),
                                              ("classic", {"players": 3, "shortfall": "lose"})])
def test_every_battle_of_every_layout_matches_the_json(tab, tmp_path, variant, options):
    """Won piles and reshuffles, hands, players going out, forfeits: stepping through the whole
    game, every seat's data-cards after every battle equals held_after in the JSON replay."""
    root = tmp_path / variant
    generate(root, [Plan(build_rules(variant, options), 3)], seed=4)
    gid = longest(root)["game_id"]
    path = tmp_path / "game.html"
    war("replay", root, gid, "--format", "html", "--output", path)
    data = json.loads(war("replay", root, gid, "--format", "json"))
    tab.open(path)
    seen = tab.page.evaluate("""(n) => {
        const seats = () => Array.from(document.querySelectorAll('[data-seat]'), (el) => el.dataset.cards);
        const out = [];
        for (let b = 1; b <= n; b++) {
            document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}));
            out.push([Number(document.body.dataset.battle), seats()]);
        }
        return out;
    }""", len(data["battles"]))
    assert [b for b, _ in seen] == [b["battle"] for b in data["battles"]]
    for (b, cards), expected in zip(seen, data["battles"]):
        assert [c.split() for c in cards] == expected["held_after"], f"battle {b}"


@browser_needed
def test_a_disagreeing_games_row_is_flagged_on_the_page(tab, classic, game, tmp_path):
    root = tmp_path / "forged"
    shutil.copytree(classic, root)
    _, games_file, _ = Dataset.open(root).locate(game["game_id"])
    table = pq.read_table(root / games_file.path)
    rows = [{**r, "battles": r["battles"] + 1} if r["game_id"] == game["game_id"] else r for r in table.to_pylist()]
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), root / games_file.path)
    manifest = json.loads((root / "manifest.json").read_text())
    for f in manifest["files"]:
        if f["path"] == games_file.path:
            f["sha256"] = sha256_file(root / games_file.path)
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))
    path = tmp_path / "forged.html"
    war("replay", root, game["game_id"], "--format", "html", "--output", path)
    tab.open(path)
    warning = tab.page.locator("#warning")
    assert warning.is_visible()
    assert f"battles: the row says {game['battles'] + 1}, the log says {game['battles']}" in warning.inner_text()
    assert "the row says" not in replay_page(classic, game["game_id"])


def mirrored_deal():
    """Classic War's deck dealt so that every face-up pair ties: one war after another until
    neither seat has a card left, the table set aside, a draw."""
    rules = build_rules("classic")
    return rules, check_deal(rules, [[4 * rank + suit for suit in (0, 1) for rank in range(13)],
                                     [4 * rank + suit for suit in (2, 3) for rank in range(13)]])


@browser_needed
def test_the_log_reads_the_sentences_of_the_event_kinds(tab, tmp_path):
    """Every line of the page's log is the sentence model.event_kinds.sentence gives its event:
    the script fills the registry's templates from the page's data as Python does. Over games
    of classic (one a mirrored deal: wars until the table is set aside), steal, arneson, a
    shortfall=lose table and each installed outside family's, every event kind and every
    template is read."""
    rules, mirrored = mirrored_deal()
    cases = {"classic": Plan(build_rules("classic"), 4), "mirrored": Plan(rules, 1, deals=[mirrored]),
             "steal": Plan(build_rules("steal"), 2, policies=("steal:threshold:3", "steal:never")),
             "arneson": Plan(build_rules("arneson"), 1),
             "lose": Plan(build_rules("classic", {"players": 3, "shortfall": "lose"}), 3)}
    # and a game of each variant of a family installed beside war (the example's, in the tests)
    from pipeline.model.families import registry

    cases.update({v.name: Plan(build_rules(v.name), 2) for v in registry().variants.values()
                  if v.family not in registry().built_in})
    read: set[str] = set()
    kinds: set[str] = set()
    for name, plan in cases.items():
        root = tmp_path / name
        generate(root, [plan], seed=4)
        for gid in [r["game_id"] for r in run_query(root, sql="select game_id from games").to_pylist()]:
            rp = replay_game(root, gid)
            expected = [[sentence(ev, rp.deck.label) for ev in rp.deal]]
            expected += [[sentence(ev, rp.deck.label) for ev in view.events] for view in rp.battles]
            expected[-1].append(sentence(rp.end, rp.deck.label))
            path = tmp_path / f"{name}-{gid}.html"
            path.write_text(replay_page(root, gid), encoding="utf-8")
            tab.open(path)
            shown = tab.page.evaluate("""(n) => {
                const log = () => Array.from(document.querySelectorAll('#events li[data-kind]'), (li) => li.textContent);
                const out = [log()];
                for (let b = 1; b <= n; b++) {
                    document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}));
                    out.push(log());
                }
                return out;
            }""", len(rp.battles))
            for battle, (got, want) in enumerate(zip(shown, expected, strict=True)):
                assert got == want, f"{name} game {gid} battle {battle}"
            read.update(s for lines in expected for s in lines)
            kinds.update(ev.kind for ev in (*rp.deal, *(e for v in rp.battles for e in v.events), rp.end))
    assert kinds == set(NAMES)
    # both sides of each template's [[field?...|...]] were read
    for part in ("plays it instead", "steals from seat", "as its fourth card", "as its card", "win (seat ",
                 ": draw"):
        assert any(part in s for s in read), part
    # each decision's note and the deal's own sentences were read
    for part in ("could steal from", "on top of its won bundle", "set aside, out of play", "table cards set aside"):
        assert any(part in s for s in read), part
