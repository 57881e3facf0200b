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
