"""`war query DATASET --sql SQL [--format FORMAT]` parsed without typer (cli.app.quick_query): the
command is called with exactly the arguments typer's parse gives it, and anything else is left
to typer, so that every other form (an option more, a value click reads otherwise, a format of
another command) says what it always said."""

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
])
def test_the_quick_parse_gives_the_command_what_typer_gives_it(args):
    command, given = APP.quick_query(args)
    assert command.__name__ == "query"
    assert given == _typer_params(args)
    assert {k: type(v) for k, v in given.items()} == {k: type(v) for k, v in _typer_params(args).items()}


@pytest.mark.parametrize("args", [
    ["query", "x", "--sql"],
    ["query", "x", "--sql", "SELECT 1", "-o", "out.csv"],
    ["query", "x", "--sql", "SELECT 1", "--format", "xml"],
    ["query", "x", "--sql", "SELECT 1", "--format"],
    ["query", "--sql", "SELECT 1", "x"],
    ["query", "x", "--sql", "-1"],
    ["query", "-x", "--sql", "SELECT 1"],
    ["query", "", "--sql", "SELECT 1"],
    ["query", "x", "--sql", "--help"],
    ["query", "x", "--sql", "SELECT 1", "-f", "-h"],
    ["replay", "x", "--sql", "SELECT 1"],
    ["query", "x", "outcomes", "--sql"],
])
def test_anything_else_is_typer_s(args):
    assert APP.quick_query(args) is None


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
    assert APP.quick_query(args) is not None

    def war(argv):
        done = subprocess.run([sys.executable, "-m", "pipeline.cli", *argv], capture_output=True, text=True)
        return done.returncode, done.stdout, done.stderr

    assert war(args) == war(args + ["--quiet"])
