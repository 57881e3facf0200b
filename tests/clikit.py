"""Shared helpers of the tests of the `war` command line (README.md; test_cli_app.py,
test_cli_generate.py, test_cli_datasets.py).

Normal runs go through `typer.testing.CliRunner` on `pipeline.cli.app`. Error handling is tested
through `pipeline.cli.main`, because the one-line error boundary (WarError -> "error: ..." on
stderr, exit 2) lives there and not in `app`.

Datasets are tiny (30 games in shards of 10) so each file runs in seconds. A test file gets the
fixtures `dataset`, `victim` and `game_id` by importing `tiny_dataset`, `victim_copy` and
`game_with_a_war`.
"""

from __future__ import annotations

import json
import os
import pty
import random
import re
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli import app, main
from rulekit import digests as tree_digest

GAMES = 30
SHARD = 10
SEED = 42


# ---------------------------------------------------------------- helpers


def run_on_a_terminal(args: list[str], cwd: Path) -> tuple[int, str]:
    """Run `war ARGS` with stderr on a pseudo-terminal; its exit code and what it wrote there."""
    leader, follower = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", *args], stdout=subprocess.PIPE,
                            stderr=follower, cwd=cwd, env=env)
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    proc.wait()
    os.close(leader)
    return proc.returncode, seen.decode("utf-8", "replace")


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


# The note a run prints before it compiles the engine (a first run, an empty cache: a clean
# checkout in CI): progress, not part of the error a test looks at.
COMPILING = re.compile(r"compiling .+, about \d+ s, once per machine")


def error_lines(err: str) -> list[str]:
    """stderr's lines, without the note that the engine is being compiled; an SQL error's hints
    (DuckDB's "Candidate bindings", "Did you mean", its caret line: indented lines below an
    `error: SQL error: ...` line) are part of its line, the one exception to one line an error."""
    lines: list[str] = []
    for line in err.strip("\n").splitlines():
        if COMPILING.fullmatch(line):
            continue
        if line.startswith("  ") and lines and lines[-1].startswith("error: SQL error: "):
            continue
        lines.append(line)
    return lines


def assert_one_line_error(code: int, out: str, err: str, *, exit_code: int = 2, mentions: str | None = None):
    assert code == exit_code, f"exit code {code}, wanted {exit_code}\nstdout: {out}\nstderr: {err}"
    assert "Traceback" not in err and "Traceback" not in out, err
    lines = error_lines(err)
    assert len(lines) == 1, f"wanted one line on stderr, got {len(lines)}:\n{err}"
    assert lines[0].startswith("error:"), lines[0]
    if mentions is not None:
        assert mentions.lower() in lines[0].lower(), lines[0]


def data_digest(root: Path) -> dict[str, str]:
    """sha256 of manifest.json and every file under games/ and events/."""
    digest = {k: v for k, v in tree_digest(root).items()
              if k == "manifest.json" or k.startswith(("games/", "events/"))}
    assert "manifest.json" in digest
    assert any(k.startswith("games/") for k in digest) and any(k.startswith("events/") for k in digest)
    return digest


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


@pytest.fixture(scope="session", name="dataset")
def tiny_dataset(tmp_path_factory) -> Path:
    """A tiny classic dataset shared by the read-only tests (never written to)."""
    out = tmp_path_factory.mktemp("ds") / "classic"
    ok("generate", "--variant", "classic", "--games", GAMES, "--seed", SEED, "--out", out,
       "--shard-size", SHARD, "-q")
    return out


@pytest.fixture(name="victim")
def victim_copy(dataset, tmp_path) -> Path:
    """A private copy of the dataset, for tests that must show it is left alone."""
    copy = tmp_path / "victim"
    shutil.copytree(dataset, copy)
    return copy


@pytest.fixture(scope="session", name="game_id")
def game_with_a_war(dataset) -> int:
    """A game with at least 3 battles and a war."""
    rows = query_json(dataset, "select game_id from games where battles >= 3 and wars > 0 "
                               "order by game_id limit 1")
    return rows[0]["game_id"]
