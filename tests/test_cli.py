"""Tests of the `war` command line (README.md).

Normal runs go through `typer.testing.CliRunner` on `pipeline.cli.app`. Error handling is tested
through `pipeline.cli.main`, because the one-line error boundary (WarError -> "error: ..." on
stderr, exit 2) lives there and not in `app`.

Datasets are tiny (30 games in shards of 10) so the whole file runs in seconds.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli import app, main

GAMES = 30
SHARD = 10
SEED = 42

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("C", "D", "H", "S")


# ---------------------------------------------------------------- helpers


def invoke(*args: str):
    """Run `war ARGS` through CliRunner; returns the click Result."""
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def ok(*args: str):
    result = invoke(*args)
    assert result.exit_code == 0, f"war {' '.join(map(str, args))} -> {result.exit_code}\n" \
                                  f"stdout: {result.stdout}\nstderr: {result.stderr}"
    return result


def run_main(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    """Run `war ARGS` through `pipeline.cli.main` (the real console script): exit code, stdout, stderr."""
    monkeypatch.setattr(sys, "argv", ["war", *map(str, args)])
    capsys.readouterr()  # drop anything printed before
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, out: str, err: str, *, exit_code: int = 2, mentions: str | None = None):
    assert code == exit_code, f"exit code {code}, wanted {exit_code}\nstdout: {out}\nstderr: {err}"
    assert "Traceback" not in err and "Traceback" not in out, err
    lines = err.strip("\n").splitlines()
    assert len(lines) == 1, f"wanted one line on stderr, got {len(lines)}:\n{err}"
    assert lines[0].startswith("error:"), lines[0]
    if mentions is not None:
        assert mentions.lower() in lines[0].lower(), lines[0]


def tree_digest(root: Path) -> dict[str, str]:
    """sha256 of every file under root, by relative path."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def data_digest(root: Path) -> dict[str, str]:
    """sha256 of manifest.json and every file under games/ and events/."""
    digest = {k: v for k, v in tree_digest(root).items()
              if k == "manifest.json" or k.startswith(("games/", "events/"))}
    assert "manifest.json" in digest
    assert any(k.startswith("games/") for k in digest) and any(k.startswith("events/") for k in digest)
    return digest


def label(code: int) -> str:
    return RANKS[code // 4] + SUITS[code % 4]


def write_jsonl(path: Path, deals: list) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in deals), encoding="utf-8")
    return path


def full_deal(seed: int) -> list[list[int]]:
    cards = list(range(52))
    random.Random(seed).shuffle(cards)
    return [cards[:26], cards[26:]]


def query_json(dataset: Path, sql: str) -> list[dict]:
    return json.loads(ok("query", dataset, "--sql", sql, "--format", "json").stdout)


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def dataset(tmp_path_factory) -> Path:
    """A tiny classic dataset shared by the read-only tests (never written to)."""
    out = tmp_path_factory.mktemp("ds") / "classic"
    ok("generate", "--variant", "classic", "--games", GAMES, "--seed", SEED, "--out", out,
       "--shard-size", SHARD, "-q")
    return out


@pytest.fixture
def victim(dataset, tmp_path) -> Path:
    """A private copy of the dataset, for tests that must show it is left alone."""
    copy = tmp_path / "victim"
    shutil.copytree(dataset, copy)
    return copy


@pytest.fixture(scope="session")
def game_id(dataset) -> int:
    """A game with at least 3 battles and a war."""
    rows = query_json(dataset, "select game_id from games where battles >= 3 and wars > 0 "
                               "order by game_id limit 1")
    return rows[0]["game_id"]


# ---------------------------------------------------------------- variants


def test_variants_lists_classic_with_defaults():
    out = ok("variants").stdout
    assert "classic" in out
    assert "war_down=3" in out and "players=2" in out and "pickup=shuffled" in out


def test_variants_json():
    data = json.loads(ok("variants", "--json").stdout)
    by_name = {v["variant"]: v for v in data}
    assert "classic" in by_name
    defaults = by_name["classic"]["defaults"]
    assert defaults["players"] == 2
    assert defaults["war_down"] == 3
    assert defaults["pickup"] == "shuffled"


# ---------------------------------------------------------------- generate


def test_generate_writes_dataset(tmp_path):
    out = tmp_path / "ds"
    result = ok("generate", "--variant", "classic", "--games", GAMES, "--seed", SEED, "--out", out,
                "--shard-size", SHARD, "-q")
    assert result.stdout.startswith(f"wrote {GAMES} games (1 rule set) to ")
    assert "games/s" in result.stdout
    assert (out / "manifest.json").is_file()
    games = list((out / "games").rglob("*.parquet"))
    events = list((out / "events").rglob("*.parquet"))
    assert len(games) == GAMES // SHARD and len(events) == GAMES // SHARD
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["master_seed"] == SEED
    assert [e["games"] for e in manifest["rule_sets"]] == [GAMES]
    assert manifest["rule_sets"][0]["rules"]["variant"] == "classic"
    listed = {f["path"] for f in manifest["files"]}
    assert listed == {str(p.relative_to(out)) for p in games + events}


def test_generate_set_changes_rules(tmp_path, dataset):
    out = tmp_path / "ds"
    ok("generate", "--variant", "classic", "--games", 10, "--seed", SEED, "--out", out,
       "--set", "pickup=table_order", "--set", "war_down=1", "-q")
    entry = json.loads((out / "manifest.json").read_text())["rule_sets"][0]
    assert entry["rules"]["pickup"] == "table_order"
    assert entry["rules"]["war_down"] == 1
    default = json.loads((dataset / "manifest.json").read_text())["rule_sets"][0]
    assert default["rules"]["pickup"] == "shuffled" and default["rules"]["war_down"] == 3
    assert entry["rules_id"] != default["rules_id"]


@pytest.mark.parametrize("suffix, text, expected", [
    (".toml", 'variant = "classic"\npickup = "table_order"\nwar_down = 1\n',
     {"pickup": "table_order", "war_down": 1}),
    (".json", json.dumps({"variant": "classic", "pickup": "winner_first", "war_down": 2}),
     {"pickup": "winner_first", "war_down": 2}),
])
def test_generate_rules_file(tmp_path, suffix, text, expected):
    rules = tmp_path / f"rules{suffix}"
    rules.write_text(text, encoding="utf-8")
    out = tmp_path / "ds"
    ok("generate", "--rules", rules, "--games", 10, "--seed", SEED, "--out", out, "-q")
    entry = json.loads((out / "manifest.json").read_text())["rule_sets"][0]
    assert entry["rules"]["variant"] == "classic"
    for key, value in expected.items():
        assert entry["rules"][key] == value


def test_generate_explicit_deals(tmp_path):
    first, second = full_deal(1), full_deal(2)
    deals = write_jsonl(tmp_path / "deals.jsonl", [
        {"piles": [[label(c) for c in p] for p in first]},   # labels like "10H"
        {"piles": second},                                    # codes
    ])
    out = tmp_path / "ds"
    ok("generate", "--variant", "classic", "--deals", deals, "--seed", SEED, "--out", out, "-q")
    games = query_json(out, "select game_id, game_index, deal from games order by game_index")
    assert [g["game_index"] for g in games] == [0, 1]
    assert all(g["deal"] == "explicit" for g in games)
    for game, piles in zip(games, (first, second)):
        rows = query_json(out, f"select seat, cards from events where game_id = {game['game_id']} "
                               "and kind = 'deal' order by seq")
        assert [r["seat"] for r in rows] == [0, 1]
        assert [r["cards"] for r in rows] == piles
        first_events = query_json(out, f"select kind from events where game_id = {game['game_id']} "
                                       "order by seq limit 2")
        assert [e["kind"] for e in first_events] == ["deal", "deal"]


def test_generate_workers_byte_identical(tmp_path):
    digests = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        ok("generate", "--variant", "classic", "--games", GAMES, "--seed", SEED, "--out", out,
           "--shard-size", SHARD, "--workers", workers, "-q")
        digests.append(data_digest(out))
    assert digests[0] == digests[1]


def test_generate_overwrite(tmp_path, monkeypatch, capsys):
    out = tmp_path / "ds"
    ok("generate", "--variant", "classic", "--games", 10, "--seed", 1, "--out", out, "-q")
    before = tree_digest(out)
    code, stdout, err = run_main(monkeypatch, capsys, "generate", "--variant", "classic", "--games", 10,
                                 "--seed", 2, "--out", out, "-q")
    assert_one_line_error(code, stdout, err, mentions="already holds data")
    assert tree_digest(out) == before
    ok("generate", "--variant", "classic", "--games", 10, "--seed", 2, "--out", out, "--overwrite", "-q")
    assert json.loads((out / "manifest.json").read_text())["master_seed"] == 2
    assert tree_digest(out) != before
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "ds"]
    assert leftovers == []


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


def test_main_success_exit_zero(monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "variants")
    assert code == 0 and "classic" in out and err == ""


GENERATE_ERRORS = [
    pytest.param(["--variant", "nosuch"], "nosuch", id="unknown-variant"),
    pytest.param(["--variant", "classic", "--set", "nosuch=1"], "nosuch", id="unknown-option"),
    pytest.param(["--variant", "classic", "--set", "pickup=sideways"], "pickup", id="bad-pickup"),
    pytest.param(["--variant", "classic", "--set", "war_down=x"], "war_down", id="bad-war-down"),
    pytest.param(["--variant", "classic", "--set", "players=9"], "players", id="too-many-players"),
]


@pytest.mark.parametrize("args, mentions", GENERATE_ERRORS)
def test_generate_bad_rules_new_folder(tmp_path, monkeypatch, capsys, args, mentions):
    out = tmp_path / "new"
    code, stdout, err = run_main(monkeypatch, capsys, "generate", *args, "--games", 5, "--out", out, "-q")
    assert_one_line_error(code, stdout, err, mentions=mentions)
    assert not out.exists()


@pytest.mark.parametrize("args, mentions", GENERATE_ERRORS)
def test_generate_bad_rules_keeps_existing_dataset(victim, monkeypatch, capsys, args, mentions):
    """Even with --overwrite, bad input must fail before the existing dataset is touched."""
    before = tree_digest(victim)
    code, stdout, err = run_main(monkeypatch, capsys, "generate", *args, "--games", 5, "--out", victim,
                                 "--overwrite", "-q")
    assert_one_line_error(code, stdout, err, mentions=mentions)
    assert tree_digest(victim) == before


def _bad_deals() -> dict[str, list]:
    """Deals that are not a classic deck, each as the `piles` of one JSON line."""
    piles = full_deal(7)
    dup = [list(piles[0]), list(piles[1])]
    dup[1][-1] = dup[0][0]
    return {
        "duplicated-card": dup,
        "missing-card": [list(piles[0]), list(piles[1][:-1])],
        "unknown-label": [[label(c) for c in piles[0]], [label(c) for c in piles[1][:-1]] + ["ZZ"]],
        "wrong-number-of-piles": [list(piles[0]), list(piles[1][:13]), list(piles[1][13:])],
    }


BAD_DEALS = _bad_deals()
BAD_DEAL_MENTIONS = {"duplicated-card": "twice", "missing-card": "missing", "unknown-label": "ZZ",
                     "wrong-number-of-piles": "3 piles"}


@pytest.mark.parametrize("piles, mentions", [pytest.param(BAD_DEALS[k], m, id=k)
                                             for k, m in BAD_DEAL_MENTIONS.items()])
def test_generate_bad_deal(tmp_path, victim, monkeypatch, capsys, piles, mentions):
    deals = write_jsonl(tmp_path / "deals.jsonl", [{"piles": full_deal(3)}, {"piles": piles}])
    out = tmp_path / "new"
    code, stdout, err = run_main(monkeypatch, capsys, "generate", "--variant", "classic", "--deals", deals,
                                 "--out", out, "-q")
    assert_one_line_error(code, stdout, err, mentions=mentions)
    assert not out.exists()
    before = tree_digest(victim)
    code, stdout, err = run_main(monkeypatch, capsys, "generate", "--variant", "classic", "--deals", deals,
                                 "--out", victim, "--overwrite", "-q")
    assert_one_line_error(code, stdout, err, mentions=mentions)
    assert tree_digest(victim) == before


@pytest.mark.parametrize("piles", [
    pytest.param(BAD_DEALS["duplicated-card"], id="duplicated-card"),
    pytest.param(BAD_DEALS["missing-card"], id="missing-card"),
    pytest.param(BAD_DEALS["wrong-number-of-piles"], id="wrong-number-of-piles"),
    pytest.param(BAD_DEALS["unknown-label"], id="unknown-label"),
])
def test_bad_deal_error_names_file_and_line(tmp_path, monkeypatch, capsys, piles):
    deals = write_jsonl(tmp_path / "deals.jsonl", [{"piles": full_deal(3)}, {"piles": piles}])
    code, stdout, err = run_main(monkeypatch, capsys, "generate", "--variant", "classic", "--deals", deals,
                                 "--out", tmp_path / "new", "-q")
    assert_one_line_error(code, stdout, err)
    assert "deals.jsonl line 2" in err


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


# ---------------------------------------------------------------- issue 12: interrupts, help, one line


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_exits_130_with_the_resume_command_and_resume_finishes(tmp_path, workers):
    """Ctrl-C (SIGINT to the process group, as a terminal sends it) while shards are being
    played, with one worker (inside the compiled engine) or several: exit 130, one line with
    the command that finishes the run, no half-written file under a visible name; that command
    gives the bytes of an uninterrupted run."""
    import os
    import shlex
    import signal
    import subprocess
    import time

    import pyarrow.parquet as pq

    out = tmp_path / "big"
    args = ["generate", "--games", "6000", "--shard-size", "200", "--seed", "9", "--out", str(out),
            "--workers", str(workers), "-q"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    records = out / ".war" / "shards"
    deadline = time.monotonic() + 120
    while not (records.is_dir() and any(records.iterdir())) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    err = err.decode()
    if proc.returncode == 0:
        pytest.skip("the run finished before Ctrl-C landed")
    assert proc.returncode == 130, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("error: interrupted; finish with: war generate "), err
    assert not (out / "manifest.json").exists()
    for path in out.rglob("*.parquet"):
        if not path.name.startswith("."):
            pq.read_metadata(path)  # whole
    command = shlex.split(err.split("finish with: ", 1)[1])
    assert command[:2] == ["war", "generate"] and command[-1] == "--resume"
    ok(*command[1:])
    ok("generate", "--games", "6000", "--shard-size", "200", "--seed", "9", "--out", tmp_path / "whole", "-q")
    assert tree_digest(out) == tree_digest(tmp_path / "whole")


def test_a_system_error_caused_by_ctrl_c_is_an_interrupt(tmp_path, monkeypatch, capsys):
    """Ctrl-C that lands inside numba's machine code surfaces as a SystemError caused by the
    KeyboardInterrupt; it is reported as an interrupt, not as an internal error."""
    import pipeline.jobs.generate as jobs

    def stopped(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as err:
            raise SystemError("CPUDispatcher(<function play_games>) returned a result with an exception set") from err

    monkeypatch.setattr(jobs, "shard_tables", stopped)
    code, out, err = run_main(monkeypatch, capsys, "generate", "--games", 5, "--out", tmp_path / "d", "-q")
    assert_one_line_error(code, out, err, exit_code=130, mentions="interrupted; finish with: war generate")
    assert "--resume" in err


def test_version(monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "--version")
    assert code == 0 and out.startswith("war ") and len(out.strip().split()) == 2


@pytest.mark.parametrize("args, mentions", [
    (("generate", "--bogus"), "no such option: --bogus"),
    (("frob",), "no such command 'frob'"),
    (("replay",), "missing argument"),
    (("generate", "--games", "many"), "invalid value for --games: 'many'"),
])
def test_usage_errors_are_one_line(monkeypatch, capsys, args, mentions):
    code, out, err = run_main(monkeypatch, capsys, *args)
    assert_one_line_error(code, out, err, mentions=mentions)
    assert "╭" not in err and "Usage:" not in err


@pytest.mark.parametrize("command", ["generate", "demo", "validate", "variants"])
def test_help_is_plain_and_shows_defaults(command):
    text = ok(command, "--help").stdout
    assert "<bool>" not in text and "╭" not in text
    assert " ." not in text.replace("..", "")  # no "Games per rule set ."
    if command == "generate":
        flat = " ".join(text.split())
        for default in ("[default: 1000, or one per deal]", "[default: 0, or the dataset's with --append]",
                        "[default: data/VARIANT-", "[default: 2000]", "[default: 1]"):
            assert default in flat, default


def test_one_game_is_one_game(tmp_path):
    out = ok("generate", "--games", 1, "--out", tmp_path / "one", "-q").stdout
    assert out.startswith("wrote 1 game (1 rule set) to ")


def test_variants_says_multiplayer_takes_up_to_8_players(tmp_path):
    """What `war variants` says is what the rules accept (docs/rules.md 1.4, 3.1)."""
    line = next(line for line in ok("variants").stdout.splitlines() if line.startswith("multiplayer"))
    assert "up to 8" in line and "3 or 4" not in line
    ok("generate", "-v", "multiplayer", "--set", "players=8", "--games", 1, "--out", tmp_path / "eight", "-q")


def test_validate_workers_must_be_at_least_one(dataset, monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "validate", dataset, "--workers", 0)
    assert_one_line_error(code, out, err, mentions="--workers")


def test_war_alone_prints_the_help(monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys)
    assert code == 0 and out.startswith("Usage: war ") and "generate" in out and err == ""


def test_the_war_process_keeps_numba_from_importing_scipy():
    """numba looks for scipy's linear algebra when it starts (0.2 s or more where scipy is
    installed); the `war` process, which has none, blocks that import. A library caller keeps
    its scipy."""
    import subprocess
    import sys

    code = ("import sys, pipeline.cli; from pipeline.log.warm import warm; warm(); "
            "print(sys.modules.get('scipy.linalg', 'absent'))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split() in (["None"], ["absent"])
    code = "import sys, pipeline.log.shard; print('scipy.linalg' in sys.modules and sys.modules['scipy.linalg'] is None)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split() == ["False"]
