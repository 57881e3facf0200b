"""`war query DATASET --sql SQL` and `war generate --games N ... -q` parsed without typer
(cli.app.quick_call): the command is called with exactly the arguments typer's parse gives it,
and anything else is left to typer, so that every other form (an option it does not know, a
value click reads otherwise, a choice of another command) says what it always said."""

from __future__ import annotations

import subprocess
import sys

import pytest
import typer

from pipeline.cli import _load

APP = _load()


def _typer_params(args: list[str]) -> dict:
    command = typer.main.get_command(APP.app)
    ctx = command.make_context("war", list(args))
    sub = command.get_command(ctx, args[0])
    return sub.make_context(args[0], list(args[1:]), parent=ctx).params


@pytest.mark.parametrize("args", [
    ["query", "/data/x", "--sql", "SELECT * FROM events WHERE game_id = 654321"],
    ["query", "data x", "--sql", "SELECT 1", "-f", "csv"],
    ["query", "x", "--sql", "SELECT 1", "--format", "json"],
    ["query", "x", "--sql", "SELECT 1", "--format", "parquet"],
    ["query", "x", "outcomes", "--limit", "0", "--all", "-c", "a,b"],
    ["query", "x", "--sql", "SELECT 1", "--overwrite", "-q", "-f", "csv"],
    ["query", "--sql", "SELECT 1", "x"],
    ["generate", "--games", "100000", "--seed", "9", "--workers", "2", "-q", "--out", "/tmp/x"],
    ["generate", "-n", "5", "-s", "18446744073709551615", "-o", "x", "-w", "1", "--shard-size", "7"],
    ["generate", "--games", "007", "--log", "games", "--overwrite", "--executor", "local", "--from", "d", "--where", "battles > 5"],
    ["generate"],
])
def test_the_quick_parse_gives_the_command_what_typer_gives_it(args):
    command, given = APP.quick_call(args)
    assert command.__name__ == args[0]
    assert given == _typer_params(args)
    assert {k: type(v) for k, v in given.items()} == {k: type(v) for k, v in _typer_params(args).items()}


@pytest.mark.parametrize("args", [
    ["generate", "--games", "1_000"],
    ["generate", "--games", "+5"],
    ["generate", "--games", "5", "--games", "6"],
    ["generate", "-n", "5", "--games", "6"],
    ["generate", "--games=5"],
    ["generate", "--variant", "jokers"],
    ["generate", "--set", "pickup=natural"],
    ["generate", "--rules", "r.toml"],
    ["generate", "--wait", "5"],
    ["generate", "--log", "Games"],
    ["generate", "-qv", "jokers"],
    ["generate", "--", "-q"],
    ["generate", "stray"],
    ["generate", "--help"],
    ["query", "x", "--sql", "SELECT 1", "--limit", "-1"],
    ["query", "x", "--sql", "SELECT 1", "--limit", "٣"],
    ["query", "x", "outcomes", "--param", "limit=5"],
    ["query", "x", "outcomes", "extra"],
    ["query", "x", "--sql"],
    ["query", "x", "--sql", "SELECT 1", "--format", "xml"],
    ["query", "x", "--sql", "SELECT 1", "--format"],
    ["query", "x", "--sql", "SELECT 1", "--output", "o.csv"],
    ["query", "x", "--sql", "-1"],
    ["query", "-x", "--sql", "SELECT 1"],
    ["query", "", "--sql", "SELECT 1"],
    ["query", "x", "--sql", "--help"],
    ["query", "x", "--sql", "SELECT 1", "-f", "-h"],
    ["replay", "x", "--sql", "SELECT 1"],
    ["query", "x", "outcomes", "--sql"],
    ["--version"],
    [],
])
def test_anything_else_is_typer_s(args):
    assert APP.quick_call(args) is None


@pytest.mark.parametrize("args", [
    ["query", "{root}", "--sql", "SELECT count(*) AS n FROM games"],
    ["query", "{root}", "--sql", "SELECT nosuch FROM games", "-f", "csv"],
    ["query", "{root}/missing", "--sql", "SELECT 1"],
    ["query", "{root}", "--sql", "DELETE FROM games"],
])
def test_the_quick_path_prints_and_exits_as_typer_s(args, tmp_path):
    """The same command line through the quick parse and through typer (a `--quiet` that changes
    nothing without --output sends it to typer): the same output, errors and exit code."""
    from pipeline.jobs.generate import Plan, generate
    from pipeline.model.rules import build_rules

    root = tmp_path / "ds"
    generate(root, [Plan(build_rules("classic"), 6)], seed=1)
    args = [a.replace("{root}", str(root)) for a in args]
    assert APP.quick_call(args) is not None

    def war(argv):
        done = subprocess.run([sys.executable, "-m", "pipeline.cli", *argv], capture_output=True, text=True)
        return done.returncode, done.stdout, done.stderr

    assert war(args) == war(args + ["--quiet"])


def test_a_quick_generate_writes_what_typer_s_writes(tmp_path):
    """The same run through the quick parse and through typer (a `--wait` of its default, a float,
    sends it to typer): the same files, byte for byte, and the same exit."""
    import hashlib

    def war(out, *more):
        argv = ["generate", "--games", "30", "--seed", "3", "--workers", "2", "--shard-size", "7", "-q", "--out", str(out)]
        assert (APP.quick_call(argv + list(more)) is None) == bool(more)
        done = subprocess.run([sys.executable, "-m", "pipeline.cli", *argv, *more], capture_output=True, text=True)
        return done.returncode, {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                                 for p in sorted(out.rglob("*")) if p.is_file()}

    assert war(tmp_path / "quick") == war(tmp_path / "typer", "--wait", "600")
