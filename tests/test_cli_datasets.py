"""The `war` commands that read a dataset, from the command line (pipeline/cli/replay.py,
validate.py and query.py; README.md): replay as text, one battle and JSON, validate, named and SQL
queries in every format with parameters; a missing or unfinished dataset, an unknown game, bad
SQL, an unknown query, an output that needs --output, exists or is a folder, an unknown URI
scheme and a bad --workers refused in one line, leaving everything as it was; a file:// URI is a
path."""

from __future__ import annotations

import json

import pytest

from clikit import GAMES, SEED, assert_one_line_error, ok, query_json, run_main, tree_digest
from clikit import game_with_a_war, tiny_dataset, victim_copy  # noqa: F401 (fixtures)


# ---------------------------------------------------------------- replay


def test_replay_text(dataset, game_id):
    out = ok("replay", dataset, game_id).stdout
    assert f"Game {game_id}" in out
    assert "Battle 1 " in out
    assert "Outcome:" in out
    record = query_json(dataset, f"select outcome, battles from games where game_id = {game_id}")[0]
    assert f"Outcome: {record['outcome']}" in out
    assert f"End after {record['battles']} battles" in out


def test_replay_one_battle(dataset, game_id):
    out = ok("replay", dataset, game_id, "--battle", 3).stdout
    assert "Battle 3 " in out
    assert "Battle 1 " not in out and "Battle 2 " not in out and "Battle 4 " not in out
    assert "pile (top first):" in out
    assert "pile after:" in out


def test_replay_json(dataset, game_id):
    data = json.loads(ok("replay", dataset, game_id, "--format", "json").stdout)
    assert data["game"]["game_id"] == game_id
    assert len(data["battles"]) == data["game"]["battles"]
    assert data["battles"][0]["battle"] == 1
    one = json.loads(ok("replay", dataset, game_id, "--format", "json", "--battle", 3).stdout)
    assert [b["battle"] for b in one["battles"]] == [3]


# ---------------------------------------------------------------- validate


def test_validate_ok(dataset):
    out = ok("validate", dataset, "-q").stdout
    assert f"games checked: {GAMES}, good: {GAMES}, bad: 0" in out


# ---------------------------------------------------------------- query


def test_query_named(dataset):
    out = ok("query", dataset, "outcomes").stdout
    assert "classic" in out and "games" in out


def test_query_sql_csv(dataset):
    out = ok("query", dataset, "--sql", "select count(*) as n from games", "--format", "csv").stdout
    lines = out.strip().splitlines()
    assert lines[0].strip('"') == "n"
    assert int(lines[1]) == GAMES


def test_query_sql_json(dataset):
    rows = json.loads(ok("query", dataset, "--sql", "select count(*) as n from games", "--format", "json").stdout)
    assert rows == [{"n": GAMES}]


def test_query_parquet_output(dataset, tmp_path):
    import pyarrow.parquet as pq

    target = tmp_path / "f.parquet"
    result = ok("query", dataset, "--sql", "select game_id from games order by game_id",
                "--format", "parquet", "--output", target)
    assert result.stdout == ""
    table = pq.read_table(target)
    assert table.column("game_id").to_pylist() == list(range(GAMES))


def test_query_list_needs_no_dataset():
    out = ok("query", "--list").stdout
    for name in ("outcomes", "longest_games", "game_length"):
        assert name in out
    assert "--param limit=" in out


def test_query_param(dataset):
    rows = json.loads(ok("query", dataset, "longest_games", "--param", "limit=3", "--format", "json").stdout)
    assert len(rows) == 3
    battles = [r["battles"] for r in rows]
    assert battles == sorted(battles, reverse=True)
    default = json.loads(ok("query", dataset, "longest_games", "--format", "json").stdout)
    assert len(default) == min(20, GAMES)


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("command", [
    ["replay", "{ds}", "0"],
    ["validate", "{ds}", "-q"],
    ["query", "{ds}", "outcomes"],
])
def test_missing_dataset(tmp_path, monkeypatch, capsys, command):
    missing = tmp_path / "nothere"
    args = [a.format(ds=missing) for a in command]
    code, out, err = run_main(monkeypatch, capsys, *args)
    assert_one_line_error(code, out, err)
    assert not missing.exists()


@pytest.mark.parametrize("command", [
    ["replay", "{ds}", "0"],
    ["validate", "{ds}", "-q"],
    ["query", "{ds}", "outcomes"],
])
def test_unfinished_dataset(victim, monkeypatch, capsys, command):
    (victim / "manifest.json").unlink()
    before = tree_digest(victim)
    args = [a.format(ds=victim) for a in command]
    code, out, err = run_main(monkeypatch, capsys, *args)
    assert_one_line_error(code, out, err)
    assert tree_digest(victim) == before


def test_unknown_game(victim, monkeypatch, capsys):
    before = tree_digest(victim)
    code, out, err = run_main(monkeypatch, capsys, "replay", victim, 99999)
    assert_one_line_error(code, out, err, mentions="99999")
    assert tree_digest(victim) == before


def test_bad_sql(victim, monkeypatch, capsys):
    before = tree_digest(victim)
    code, out, err = run_main(monkeypatch, capsys, "query", victim, "--sql", "selec nothing frm games")
    assert_one_line_error(code, out, err, mentions="SQL")
    code, out, err = run_main(monkeypatch, capsys, "query", victim, "--sql", "select nosuchcolumn from games")
    assert_one_line_error(code, out, err, mentions="SQL")
    assert tree_digest(victim) == before


def test_unknown_named_query(victim, monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "query", victim, "nosuch")
    assert_one_line_error(code, out, err, mentions="nosuch")


def test_parquet_needs_output(victim, monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "query", victim, "outcomes", "--format", "parquet")
    assert_one_line_error(code, out, err, mentions="--output")
    assert out == ""


def test_output_exists_without_overwrite(victim, tmp_path, monkeypatch, capsys):
    target = tmp_path / "result.csv"
    target.write_bytes(b"precious\n")
    code, out, err = run_main(monkeypatch, capsys, "query", victim, "outcomes", "--format", "csv",
                              "--output", target)
    assert_one_line_error(code, out, err, mentions="exists")
    assert target.read_bytes() == b"precious\n"
    ok("query", victim, "--sql", "select count(*) as n from games", "--format", "csv",
       "--output", target, "--overwrite")
    assert target.read_text().strip().splitlines()[-1] == str(GAMES)


def test_output_is_a_folder(victim, tmp_path, monkeypatch, capsys):
    target = tmp_path / "somefolder"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    code, out, err = run_main(monkeypatch, capsys, "query", victim, "outcomes", "--format", "csv",
                              "--output", target, "--overwrite")
    assert (target / "keep.txt").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["somefolder", "victim"]
    assert_one_line_error(code, out, err)


@pytest.mark.parametrize("command", [
    ["generate", "--games", "3", "--out", "{uri}", "-q"],
    ["replay", "{uri}", "0"],
    ["validate", "{uri}", "-q"],
    ["query", "{uri}", "outcomes"],
])
def test_an_unknown_uri_scheme_is_refused_not_made_a_local_folder(tmp_path, monkeypatch, capsys, command):
    """A URI no pyarrow file system knows is refused in one line; nothing named `nosuch:` appears."""
    monkeypatch.chdir(tmp_path)
    args = [a.format(uri="nosuch://bucket/war") for a in command]
    code, out, err = run_main(monkeypatch, capsys, *args)
    assert_one_line_error(code, out, err, mentions="nosuch://")
    assert list(tmp_path.iterdir()) == []


def test_file_uri_is_a_path(tmp_path):
    uri = (tmp_path / "ds").as_uri()
    ok("generate", "--games", "3", "--seed", str(SEED), "--out", uri, "-q")
    assert (tmp_path / "ds" / "manifest.json").exists()
    ok("validate", uri, "-q")
    assert query_json(uri, "select count(*) as n from games") == [{"n": 3}]


def test_validate_workers_must_be_at_least_one(dataset, monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "validate", dataset, "--workers", 0)
    assert_one_line_error(code, out, err, mentions="--workers")
