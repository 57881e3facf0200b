"""Every --output and --out treats a missing folder the same way (issue 46, item 10): each command
makes the missing folders of what it writes, as `mkdir -p` does, and refuses, in one line before
any work, a path one of whose folders is a file; and a resumed run's speed counts only the games
it played, the games of the shards done before said apart."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from clikit import GAMES, SEED, SHARD, assert_one_line_error, run_main
from clikit import tiny_dataset  # noqa: F401 (fixture)
from pipeline.jobs.generate import generate, make_plans
from pipeline.model.rules import build_rules


def commands(dataset, target):
    """Each command that writes, with `target` (a path, its folders perhaps missing) as what it writes."""
    return {
        "query": ["query", dataset, "outcomes", "--output", target / "outcomes.csv"],
        "replay": ["replay", dataset, "0", "--output", target / "game.txt"],
        "report": ["report", dataset, "--output", target / "report.html", "-q"],
        "charts": ["report", dataset, "--format", "svg", "--output", target / "charts", "-q"],
        "generate": ["generate", "--games", "4", "--seed", "1", "--out", target / "ds", "-q"],
    }


WRITTEN = {"query": "outcomes.csv", "replay": "game.txt", "report": "report.html", "charts": "charts",
           "generate": "ds/manifest.json"}


@pytest.mark.parametrize("command", list(WRITTEN))
def test_a_missing_folder_is_made(command, dataset, tmp_path, monkeypatch, capsys):
    target = tmp_path / "new" / "deeper"
    code, out, err = run_main(monkeypatch, capsys, *commands(dataset, target)[command])
    assert code == 0, err
    assert (target / WRITTEN[command]).exists()
    if command == "report":
        assert (target / "report-games").is_dir()  # its replay pages beside it


@pytest.mark.parametrize("command", list(WRITTEN))
def test_a_file_in_the_way_is_refused_in_one_line_before_any_work(command, dataset, tmp_path, monkeypatch,
                                                                   capsys):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine\n")
    code, out, err = run_main(monkeypatch, capsys, *commands(dataset, blocker / "under")[command])
    assert_one_line_error(code, out, err, mentions=f"{str(blocker)!r} is a file, not a folder")
    assert blocker.read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_a_resumed_run_counts_only_the_games_it_played(tmp_path, monkeypatch, capsys):
    """Three shards of ten are done when the run stops; the resumed run plays the other nine and
    its speed is theirs: 90 games over the 2 s it took (a clock that says so), not 120."""
    out = tmp_path / "ds"
    plans = make_plans([build_rules("classic")], games=120)
    ticks = []

    def stop(n):
        ticks.append(n)
        if len(ticks) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        generate(out, plans, seed=SEED, shard_size=SHARD, progress=stop)
    import pipeline.cli.generate as cli_generate

    clock = iter([100.0, 102.0])
    monkeypatch.setattr(cli_generate, "time", SimpleNamespace(perf_counter=lambda: next(clock)))
    code, stdout, err = run_main(monkeypatch, capsys, "generate", "--games", 120, "--seed", SEED,
                                 "--shard-size", SHARD, "--out", out, "--resume", "-q")
    assert code == 0, err
    done = re.search(r"; ([\d,]+) games done before; ([\d,]+) games played in 2\.0 s, ([\d,]+) games/s$",
                     stdout.strip())
    assert done, stdout
    before, played, speed = (int(g.replace(",", "")) for g in done.groups())
    assert before % SHARD == 0 and before >= 20 and before + played == 120
    assert speed == played // 2
    assert GAMES  # the shared dataset's size is not what this test counts
