"""README.md's "Use from Python" example runs as written, and prints what its comments say."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def example() -> str:
    text = README.read_text(encoding="utf-8")
    found = re.search(r"^## Use from Python\n.*?^```python\n(.*?)^```", text, re.S | re.M)
    assert found, "README.md has no Use from Python section with a python block"
    return found.group(1)


def test_use_from_python_example_runs(tmp_path, monkeypatch, capsys):
    code = example()
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "readme_example"}
    exec(compile(code, str(README), "exec"), namespace)
    printed = capsys.readouterr().out.splitlines()

    # every print's comment is what it prints
    promised = [line.split("#", 1)[1].strip() for line in code.splitlines()
                if line.lstrip().startswith("print(") and "#" in line]
    assert printed == promised

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
