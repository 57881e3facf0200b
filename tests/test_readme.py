"""README.md's Python examples ("Use from Python", "In a notebook") run as written, and print
what their comments say; its shell commands run too."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def example(heading: str = "## Use from Python") -> str:
    text = README.read_text(encoding="utf-8")
    found = re.search(rf"^{heading}\n.*?^```python\n(.*?)^```", text, re.S | re.M)
    assert found, f"README.md has no {heading} section with a python block"
    return found.group(1)


def run_example(heading: str, tmp_path, monkeypatch, capsys) -> dict:
    """Run the section's python block in a fresh folder; every print's comment is what it
    prints. Its names, after it ran."""
    code = example(heading)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "readme_example"}
    exec(compile(code, str(README), "exec"), namespace)
    printed = capsys.readouterr().out.splitlines()
    promised = [line.split("#", 1)[1].strip() for line in code.splitlines()
                if line.lstrip().startswith("print(") and "#" in line]
    assert printed == promised
    return namespace


def test_use_from_python_example_runs(tmp_path, monkeypatch, capsys):
    namespace = run_example("## Use from Python", tmp_path, monkeypatch, capsys)

    manifest, report = namespace["manifest"], namespace["report"]
    assert [(e.rules.variant, e.games) for e in manifest.rule_sets] == [("classic", 200), ("steal", 200),
                                                                        ("steal", 200)]
    assert [tuple(e.policies) for e in manifest.rule_sets[1:]] == [
        ("steal:always,top:highest", "steal:never,top:protect"),
        ("steal:never,top:protect", "steal:always,top:highest")]
    assert report.ok and report.games_checked == report.good == 600
    [matchup] = namespace["matchup"]  # one pair of policies, both seatings pooled
    assert matchup["games"] == 400 and matchup["games_a_seat0"] == matchup["games_b_seat0"] == 200
    assert matchup["wins_a"] + matchup["wins_b"] == matchup["decided_games"]
    longest, game = namespace["longest"], namespace["game"]
    assert game.record["game_id"] == longest["game_id"]
    assert game.record["battles"] == longest["battles"] == len(game.battles)
    assert not any(tmp_path.iterdir())  # it wrote only into its temporary folder, now gone


# ---------------------------------------------------------------- the shell commands

SMALL = 40  # games: enough for every command below, small enough to keep the test quick

# Commands that need what a test machine has not: a Dask cluster, a bucket, an interrupted run;
# and the server, which runs until stopped (tests/test_serve.py starts it).
NEEDS_MORE = ("--executor dask", "://", "--resume", "war serve")


def blocks(lang: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.S | re.M)


def shell_commands() -> list[list[str]]:
    """Every `war ...` command in the README's plain code blocks, as arguments after `war`,
    sizes made small: `--games N` at most SMALL, SMALL games where a generate gives none."""
    import shlex

    commands = []
    text = README.read_text(encoding="utf-8")
    indented = "\n".join(line for line in text.splitlines() if line.startswith("    ") and "war " in line)
    for block in [indented] + blocks(""):
        for line in block.splitlines():
            line = line.split("&& ", 1)[-1].strip()
            if not line.startswith("war ") or any(mark in line for mark in NEEDS_MORE):
                continue
            args = shlex.split(line, comments=True)[1:]
            if "--games" in args:
                i = args.index("--games") + 1
                args[i] = str(min(int(args[i]), SMALL))
            elif args[0] in ("generate", "demo") and "--deals" not in args:
                args += ["--games", str(SMALL)]
            commands.append(args)
    return commands


def test_the_readme_has_commands_to_run():
    commands = shell_commands()
    assert len(commands) >= 18
    assert ["demo", "--games", str(SMALL)] in commands
    assert any(c[:1] == ["generate"] and "--deals" in c for c in commands)
    assert not any("..." in a for c in commands for a in c)


def test_every_readme_command_runs(tmp_path, monkeypatch, capsys):
    """Each `war` command in the README, pasted into a fresh folder in order, exits 0: the
    rule file and deals file are the README's own examples."""
    import sys

    from pipeline.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "my-rules.toml").write_text(blocks("toml")[0], encoding="utf-8")
    (tmp_path / "deals.jsonl").write_text(blocks("json")[0], encoding="utf-8")
    for args in shell_commands():
        monkeypatch.setattr(sys, "argv", ["war", *args])
        try:
            main()
            code = 0
        except SystemExit as done:
            code = done.code
        out, err = capsys.readouterr()
        assert code == 0, f"war {' '.join(args)} -> exit {code}\n{err}"
    assert (tmp_path / "outcomes.parquet").exists() and (tmp_path / "data" / "dealt" / "manifest.json").exists()


def test_the_notebook_example_runs_with_pandas_and_polars(tmp_path, monkeypatch, capsys):
    """The DataFrames are the query's rows: pandas' from the answer's Table, Polars' too."""
    import pytest

    pandas = pytest.importorskip("pandas")
    polars = pytest.importorskip("polars")
    namespace = run_example("### In a notebook", tmp_path, monkeypatch, capsys)
    lengths, games = namespace["lengths"], namespace["games"]
    assert isinstance(lengths, pandas.DataFrame) and isinstance(games, polars.DataFrame)
    assert list(lengths.columns)[0] == "rule_set" and games.columns == ["outcome", "winner", "battles"]
    assert games.height == 300


def test_the_notebook_extras_the_readme_names_are_the_package_s():
    """`pip install -e '.[pandas]'` and `'.[polars]'` install what the example imports, and the
    test extra has both, so CI runs the example."""
    import tomllib

    extras = tomllib.loads((README.parent / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### In a notebook"):text.index("## The dataset")]
    for name in ("pandas", "polars"):
        assert f"'.[{name}]'" in section and any(d.startswith(name) for d in extras[name])
        assert any(d.startswith(name) for d in extras["test"])
