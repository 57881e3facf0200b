"""`war generate` from the command line (pipeline/cli/generate.py, README.md): the dataset it
writes, rule sets from --set and rule files, explicit deals (--deals), workers that write the
same bytes, --overwrite; bad rules and bad deals refused in one line before anything is written
or an existing dataset touched; Ctrl-C's exit 130 with the command that finishes the run, and
the run that command finishes byte for byte."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from clikit import (GAMES, SEED, SHARD, assert_one_line_error, data_digest, error_lines, full_deal, ok, query_json, run_main,
                    tree_digest, write_jsonl)
from clikit import tiny_dataset, victim_copy  # noqa: F401 (fixtures)
from rulekit import label


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


# ---------------------------------------------------------------- errors


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


# ---------------------------------------------------------------- issue 12: interrupts, one line


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
    lines = error_lines(err)
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("error: interrupted; finish with: war generate "), err
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


def test_one_game_is_one_game(tmp_path):
    out = ok("generate", "--games", 1, "--out", tmp_path / "one", "-q").stdout
    assert out.startswith("wrote 1 game (1 rule set) to ")


def test_the_demo_ends_with_the_next_three_commands(tmp_path, monkeypatch, capsys):
    """war demo's last lines: the report, the explorer and the named queries, on its dataset,
    each a command that runs as printed."""
    out = tmp_path / "demo"
    code, stdout, err = run_main(monkeypatch, capsys, "demo", "--games", 20, "--out", out)
    assert code == 0, err
    tail = stdout.rstrip("\n").splitlines()[-4:]
    assert tail[0] == "== next, try:"
    commands = [line.split("   ")[0].split() for line in tail[1:]]
    assert [c[:2] for c in commands] == [["war", "report"], ["war", "serve"], ["war", "query"]]
    assert all(c[2] == str(out) for c in commands)
    code, listed, err = run_main(monkeypatch, capsys, *commands[2][1:])
    assert code == 0 and "outcomes" in listed.split(), err


def test_the_demo_replaces_its_own_dataset_and_refuses_any_other(tmp_path, monkeypatch, capsys):
    """`war demo --out` at a dataset of the user's replaced it with the demo's games."""
    out = tmp_path / "demo"
    assert run_main(monkeypatch, capsys, "demo", "--games", 20, "--out", out)[0] == 0
    code, _, err = run_main(monkeypatch, capsys, "demo", "--games", 30, "--out", out)
    assert code == 0, err  # its own: replaced
    assert json.loads((out / "manifest.json").read_text())["rule_sets"][0]["games"] == 30
    mine = tmp_path / "mine"
    ok("generate", "--games", 12, "--seed", 42, "--set", "ranks=8", "--out", mine, "-q")
    before = data_digest(mine)
    code, out_text, err = run_main(monkeypatch, capsys, "demo", "--games", 20, "--out", mine)
    assert_one_line_error(code, out_text, err, mentions="holds a dataset the demo did not write")
    assert data_digest(mine) == before


def test_the_demo_keeps_an_unfinished_dataset_of_other_games(tmp_path, monkeypatch, capsys):
    """An interrupted run of Jokers War, which `--resume` would finish, was wiped by the demo."""
    from pipeline.jobs.generate import Plan, generate
    from pipeline.model.rules import build_rules

    def stop(done):
        raise KeyboardInterrupt

    unfinished = tmp_path / "jokers"
    with pytest.raises(KeyboardInterrupt):
        generate(unfinished, [Plan(build_rules("jokers"), 5000)], seed=0, shard_size=1000, progress=stop)
    plan = (unfinished / ".war" / "plan.json").read_bytes()
    code, out_text, err = run_main(monkeypatch, capsys, "demo", "--games", 20, "--out", unfinished)
    assert_one_line_error(code, out_text, err, mentions="holds an unfinished dataset")
    assert (unfinished / ".war" / "plan.json").read_bytes() == plan and not (unfinished / "manifest.json").exists()


@pytest.mark.parametrize("quiet", [[], ["-q"]])
def test_every_deal_under_a_pickup_that_draws_warns_that_the_seed_still_decides(tmp_path, monkeypatch, capsys, quiet):
    """`--all-deals` under the default pickup=shuffled plays every deal once, but the game after
    the deal is the seed's: one line on stderr says so (a warning, as the others, -q or not),
    and the run goes on; under a fixed pickup each deal decides its game and nothing is said."""
    small = ["--set", "ranks=3", "--set", "suits=2"]
    code, _, err = run_main(monkeypatch, capsys, "generate", *small, "--all-deals", "--out", tmp_path / "drawn",
                            *quiet)
    assert code == 0 and (tmp_path / "drawn" / "manifest.json").is_file()
    [line] = [line for line in error_lines(err) if line.startswith("warning:")]
    assert line.startswith("warning: --all-deals: in 'classic ranks=3 suits=2', pickup=shuffled draws "), line
    assert "so each game depends on --seed besides its deal: its one game a deal is a sample, not exact" in line, line
    assert "; a fixed pickup (" in line and "natural" in line, line
    code, _, err = run_main(monkeypatch, capsys, "generate", *small, "--set", "pickup=natural", "--all-deals",
                            "--out", tmp_path / "fixed", *quiet)
    assert code == 0 and "warning" not in err
