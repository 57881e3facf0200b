"""`war replay` for debugging long games (issue 11, item 3): battle ranges, only the wars, one
card's journey, the games row checked against the log, and work that grows linearly with the
game.

Linear behaviour is asserted on work done (Python function calls while rendering, counted with
sys.setprofile), never on time: rendering costs about the same per event in a long game as in a
short one, and a range of ten battles costs a few battles' worth whatever the game's length.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from clikit import error_lines
from pipeline.cli import app, main
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import run as run_query
from pipeline.jobs.journey import follow
from pipeline.jobs.replay import as_json, render_text, replay_game
from pipeline.model.rules import build_rules
from pipeline.storage.dataset import MANIFEST, Dataset
from pipeline.storage.files import sha256_file


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("replay") / "classic"
    generate(out, [Plan(build_rules("classic"), 60)], seed=42, shard_size=30)
    return out


def games(root: Path) -> list[dict]:
    return run_query(root, sql="select game_id, battles, war_battles, outcome, winner from games "
                               "order by battles, game_id").to_pylist()


@pytest.fixture(scope="module")
def long_game(dataset) -> dict:
    return games(dataset)[-1]


@pytest.fixture(scope="module")
def short_game(dataset) -> dict:
    return next(g for g in games(dataset) if g["battles"] >= 40)


def war(*args) -> tuple[int, str, str]:
    """`war ARGS` through CliRunner: exit code, stdout, stderr."""
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def war_error(monkeypatch, capsys, *args) -> str:
    """`war ARGS` through the real error boundary: must fail with one `error:` line, exit 2."""
    monkeypatch.setattr(sys, "argv", ["war", *map(str, args)])
    with pytest.raises(SystemExit) as exc:
        main()
    out, err = capsys.readouterr()
    assert exc.value.code == 2, (out, err)
    lines = error_lines(err)
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    return err


def shown_battles(text: str) -> list[int]:
    return [int(line.split()[1]) for line in text.splitlines() if line.startswith("Battle ")]


# ---------------------------------------------------------------- ranges


def test_battles_range_in_text_and_json(dataset, long_game):
    gid = long_game["game_id"]
    code, out, _ = war("replay", dataset, gid, "--battles", "20-29")
    assert code == 0
    assert shown_battles(out) == list(range(20, 30))
    assert "Deal:" not in out and "End after" not in out
    code, out, _ = war("replay", dataset, gid, "--battles", "20-29", "--format", "json")
    data = json.loads(out)
    assert [b["battle"] for b in data["battles"]] == list(range(20, 30))
    whole = as_json(replay_game(dataset, gid))
    assert data["battles"] == whole["battles"][19:29]


def test_open_range_runs_to_the_end(dataset, long_game):
    gid, n = long_game["game_id"], long_game["battles"]
    code, out, _ = war("replay", dataset, gid, "--battles", f"{n - 2}-")
    assert code == 0
    assert shown_battles(out) == [n - 2, n - 1, n]
    assert out.rstrip().splitlines()[-1].startswith(f"End after {n} battles")
    code, out, _ = war("replay", dataset, gid, "--battles", f"{n - 1}-{n + 50}")
    assert shown_battles(out) == [n - 1, n]


@pytest.mark.parametrize("bad, says", [("30-20", "1 <= A <= B"), ("0-5", "1 <= A <= B"),
                                       ("ten-20", "such as 100-200"), ("99999-", "starts at 99999")])
def test_bad_ranges_are_one_line_errors(dataset, long_game, monkeypatch, capsys, bad, says):
    err = war_error(monkeypatch, capsys, "replay", dataset, long_game["game_id"], "--battles", bad)
    assert says in err and "--battles" in err


def test_battle_and_battles_together_refused(dataset, long_game, monkeypatch, capsys):
    err = war_error(monkeypatch, capsys, "replay", dataset, long_game["game_id"], "--battle", 3,
                    "--battles", "1-5")
    assert "--battle" in err and "--battles" in err


# ---------------------------------------------------------------- wars


def test_wars_shows_exactly_the_war_battles(dataset, long_game):
    gid = long_game["game_id"]
    expected = [r["battle"] for r in run_query(
        dataset, sql=f"select distinct battle from events where game_id = {gid} and kind = 'war' "
                     "order by battle").to_pylist()]
    assert len(expected) == long_game["war_battles"] > 0
    code, out, _ = war("replay", dataset, gid, "--wars")
    assert code == 0 and shown_battles(out) == expected
    data = json.loads(war("replay", dataset, gid, "--wars", "--format", "json")[1])
    assert [b["battle"] for b in data["battles"]] == expected
    assert all(b["war_depth"] > 0 for b in data["battles"])
    # with a range: the wars inside it, and a line saying so when there are none
    lo, hi = expected[0], expected[min(2, len(expected) - 1)]
    assert shown_battles(war("replay", dataset, gid, "--wars", "--battles", f"{lo}-{hi}")[1]) == \
        [b for b in expected if lo <= b <= hi]
    quiet = next(b for b in range(1, long_game["battles"]) if b not in expected)
    out = war("replay", dataset, gid, "--wars", "--battles", f"{quiet}-{quiet}")[1]
    assert shown_battles(out) == [] and "No battle with a war in this range." in out


# ---------------------------------------------------------------- follow


def moving_battles(root: Path, gid: int, card: int) -> list[int]:
    """The battles whose events move `card`, from the SQL decoding of the log (independent of replay)."""
    rows = run_query(root, sql=f"select distinct battle from events where game_id = {gid} and battle > 0 "
                               f"and list_contains(cards, {card}) and kind not in ('decision', 'war') "
                               "order by battle").to_pylist()
    return [r["battle"] for r in rows]


@pytest.mark.parametrize("spelling", ["10♥", "10H", "10h", "TH", "34"])
def test_follow_accepts_labels_ascii_and_codes(dataset, short_game, spelling):
    data = json.loads(war("replay", dataset, short_game["game_id"], "--follow", spelling, "--format", "json")[1])
    assert data["follow"]["card"] == 34 and data["follow"]["label"] == "10♥"


def test_follow_bad_card_lists_the_forms(dataset, short_game, monkeypatch, capsys):
    err = war_error(monkeypatch, capsys, "replay", dataset, short_game["game_id"], "--follow", "11H")
    assert "--follow" in err and "'11H'" in err and "10♥" in err and "10H" in err and "QS" in err


def test_follow_is_the_cards_journey(dataset, long_game):
    gid = long_game["game_id"]
    rp = replay_game(dataset, gid)
    for card in (0, 34, 51):
        journey = follow(rp, card)
        assert [m["battle"] for m in journey["moves"]] == moving_battles(dataset, gid, card)
        for move in journey["moves"]:
            after = rp.battles[move["battle"] - 1]
            area = {"pile": after.piles_after, "won": after.won_after, "hand": after.hands_after}[move["place"]]
            assert area[move["seat"]][move["position"] - 1] == card
            assert move["of"] == len(area[move["seat"]])
        dealt = journey["dealt"]
        assert rp.deal[dealt["seat"]].cards[dealt["position"] - 1] == card


def test_follow_text_and_with_a_range_and_wars(dataset, long_game):
    gid = long_game["game_id"]
    every = moving_battles(dataset, gid, 34)
    out = war("replay", dataset, gid, "--follow", "10H")[1]
    lines = [line for line in out.splitlines() if line.startswith("Battle ")]
    assert [int(line.split()[1].rstrip(":")) for line in lines] == every
    assert all("→ seat " in line for line in lines)
    assert out.rstrip().endswith(f"10♥ moved in {len(every)} battles.")
    lo, hi = every[1], every[-2]
    data = json.loads(war("replay", dataset, gid, "--follow", "10H", "--battles", f"{lo}-{hi}",
                          "--format", "json")[1])["follow"]
    assert [m["battle"] for m in data["moves"]] == [b for b in every if lo <= b <= hi]
    assert data["before"]["battle"] == lo
    wars = json.loads(war("replay", dataset, gid, "--follow", "10H", "--wars", "--format", "json")[1])["follow"]
    assert all(m["war_depth"] > 0 for m in wars["moves"])
    assert {m["battle"] for m in wars["moves"]} <= set(every)


# ---------------------------------------------------------------- the games row against the log


def resign(root: Path, rel: str) -> None:
    """Make the manifest list a file as it is now, as a careful forger would."""
    path = root / MANIFEST
    data = json.loads(path.read_text())
    for f in data["files"]:
        if f["path"] == rel:
            f["sha256"] = sha256_file(root / rel)
            f["rows"] = pq.ParquetFile(root / rel).metadata.num_rows
    path.write_text(json.dumps(data, indent=2))


def test_a_games_row_that_disagrees_is_reported_on_one_line(dataset, tmp_path, short_game):
    gid = short_game["game_id"]
    assert short_game["outcome"] == "win"
    root = tmp_path / "forged"
    shutil.copytree(dataset, root)
    _, games_file, _ = Dataset.open(root).locate(gid)
    table = pq.read_table(root / games_file.path)
    rows = [{**r, "winner": 1 - r["winner"]} if r["game_id"] == gid else r for r in table.to_pylist()]
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), root / games_file.path)
    resign(root, games_file.path)

    code, out, err = war("replay", root, gid)
    assert code == 0
    assert len(error_lines(err)) == 1 and error_lines(err)[0].startswith("warning:"), err
    assert f"game {gid}" in err and f"winner: the row says {1 - short_game['winner']}, " \
                                    f"the log says {short_game['winner']}" in err
    assert f"End after {short_game['battles']} battles: seat {short_game['winner']} wins" in out
    data = json.loads(war("replay", root, gid, "--format", "json")[1])
    assert len(data["disagreements"]) == 1 and data["disagreements"][0].startswith("winner:")
    # the same game untouched: silent
    assert war("replay", dataset, gid)[2] == ""
    assert war("replay", root, gid, "--battle", 2)[2].startswith("warning:")


# ---------------------------------------------------------------- reading one game


def rewrite_events(root: Path, gid: int, order, row_group_size: int) -> str:
    """Write the events file holding game `gid` again, its rows in `order` (a function of the
    row count giving the new order), in row groups of `row_group_size`; the manifest re-signed."""
    _, _, events_file = Dataset.open(root).locate(gid)
    table = pq.read_table(root / events_file.path)
    pq.write_table(table.take(order(table.num_rows)), root / events_file.path, row_group_size=row_group_size)
    resign(root, events_file.path)
    return events_file.path


def test_a_game_is_read_from_the_row_groups_that_hold_it(dataset, tmp_path, long_game, monkeypatch):
    gid = long_game["game_id"]
    root = tmp_path / "groups"
    shutil.copytree(dataset, root)
    rewrite_events(root, gid, lambda n: list(range(n)), row_group_size=200)
    groups = pq.ParquetFile(root / Dataset.open(root).locate(gid)[2].path).metadata.num_row_groups
    expected = render_text(replay_game(dataset, gid))
    read = []
    real = pq.ParquetFile.read_row_groups
    monkeypatch.setattr(pq.ParquetFile, "read_row_groups",
                        lambda self, row_groups, **kw: read.extend(row_groups) or real(self, row_groups, **kw))
    assert render_text(replay_game(root, gid)) == expected
    events_read = len(read) - 1  # the games file has one row group
    assert groups > 10 and 0 < events_read <= (long_game["battles"] + 2) // 200 + 2  # a row a battle


def test_a_game_whose_rows_are_shuffled_replays_the_same(dataset, tmp_path, long_game, short_game):
    """The writer keeps a game's rows together in seq order; a file written otherwise (by another
    tool) still replays, its rows gathered and put in seq order."""
    root = tmp_path / "shuffled"
    shutil.copytree(dataset, root)
    rewrite_events(root, long_game["game_id"], lambda n: list(reversed(range(n))), row_group_size=300)
    for gid in (long_game["game_id"], short_game["game_id"]):
        assert render_text(replay_game(root, gid)) == render_text(replay_game(dataset, gid))


def test_an_events_file_without_a_game_id_column_is_one_line(dataset, tmp_path, short_game, monkeypatch,
                                                            capsys):
    gid = short_game["game_id"]
    root = tmp_path / "no_ids"
    shutil.copytree(dataset, root)
    _, _, events_file = Dataset.open(root).locate(gid)
    table = pq.read_table(root / events_file.path)
    pq.write_table(table.rename_columns(["id" if c == "game_id" else c for c in table.column_names]),
                   root / events_file.path)
    resign(root, events_file.path)
    err = war_error(monkeypatch, capsys, "replay", root, gid)
    assert events_file.path in err and "no column 'game_id'" in err


# ---------------------------------------------------------------- linear work


def calls_while(fn) -> int:
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        count += event in ("call", "c_call")

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def test_rendering_work_grows_linearly(dataset, long_game, short_game):
    long_rp, short_rp = replay_game(dataset, long_game["game_id"]), replay_game(dataset, short_game["game_id"])
    assert len(long_rp.battles) >= 10 * len(short_rp.battles)

    def per_event(rp) -> float:
        events = sum(len(b.events) for b in rp.battles)
        return calls_while(lambda: render_text(rp)) / events

    assert per_event(long_rp) < 1.5 * per_event(short_rp)
    json_long = calls_while(lambda: as_json(long_rp)) / len(long_rp.battles)
    json_short = calls_while(lambda: as_json(short_rp)) / len(short_rp.battles)
    assert json_long < 1.5 * json_short
    # a range costs its battles, not the game's
    middle = len(long_rp.battles) // 2
    ten = calls_while(lambda: render_text(long_rp, battles=(middle, middle + 9)))
    assert ten < calls_while(lambda: render_text(long_rp)) / 20
    assert len(shown_battles(render_text(long_rp, battles=(middle, middle + 9)))) == 10


# ---------------------------------------------------------------- output


def test_output_file_is_written_whole_and_never_replaced_silently(dataset, short_game, tmp_path,
                                                                  monkeypatch, capsys):
    gid = short_game["game_id"]
    target = tmp_path / "replay.txt"
    assert war("replay", dataset, gid, "--battles", "1-3", "--output", target)[1] == ""
    assert shown_battles(target.read_text()) == [1, 2, 3]
    err = war_error(monkeypatch, capsys, "replay", dataset, gid, "--output", target)
    assert "--overwrite" in err
    assert shown_battles(target.read_text()) == [1, 2, 3]
    war("replay", dataset, gid, "--battles", "4-4", "--output", target, "--overwrite")
    assert shown_battles(target.read_text()) == [4]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["replay.txt"]


@pytest.mark.parametrize("extra", [("--battle", 3), ("--wars",), ("--follow", "AS"), ("--battles", "1-2")])
def test_html_is_the_whole_game(dataset, short_game, monkeypatch, capsys, extra):
    err = war_error(monkeypatch, capsys, "replay", dataset, short_game["game_id"], "--format", "html", *extra)
    assert "#battle=N" in err


def test_a_one_battle_game_is_said_in_the_singular(tmp_path):
    """Two cards of one rank: one battle, one war nobody can add to, a draw."""
    out = tmp_path / "two_cards"
    generate(out, [Plan(build_rules("classic", {"ranks": "1", "suits": "2"}), 1)], seed=1)
    text = render_text(replay_game(out, 0))
    assert "after 1 battle (1 war, deepest 1)" in text.splitlines()[1], text
    assert text.splitlines()[-1] == "End after 1 battle: draw"
