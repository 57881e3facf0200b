"""What a `war generate` run's start leaves out, which two workers wait for as long as one
(issue 51): the counts machinery (jobs.counts) unless a rule set is counted, the other commands'
modules when the quick parse takes the command line, pydantic's search for plugins. Each is
still there when asked for."""

import subprocess
import sys

RUN = ("import os, sys; from pipeline.cli import main\n"
       "try: main({args!r})\n"
       "except SystemExit as e: assert not e.code, e.code\n"
       "print(*sorted(m for m in sys.modules if m in ('pipeline.jobs.counts', 'pipeline.cli.query',"
       " 'pipeline.cli.validate')), os.environ.get('PYDANTIC_DISABLE_PLUGINS'))")


def _loaded(args: list[str]) -> list[str]:
    done = subprocess.run([sys.executable, "-c", RUN.format(args=args)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[-1].split()  # after the line the command says


def test_a_run_of_played_games_imports_neither_counts_nor_the_other_commands(tmp_path):
    assert _loaded(["generate", "-o", str(tmp_path / "d"), "--games", "3", "-q"]) == ["__all__"]


def test_a_counted_run_and_a_line_typer_parses_still_have_what_they_need(tmp_path):
    counted = ["generate", "--all-deals", "--set", "ranks=3", "--set", "suits=2", "--log", "counts", "-q",
               "-o", str(tmp_path / "c")]
    assert "pipeline.jobs.counts" in _loaded(counted)
    assert (tmp_path / "c" / "manifest.json").exists()
    typed = ["generate", "--games=2", "-q", "-o", str(tmp_path / "t")]  # --x=v: typer's parse, every command
    assert _loaded(typed) == ["pipeline.cli.query", "pipeline.cli.validate", "__all__"]
    assert (tmp_path / "t" / "manifest.json").exists()
