"""`war solve` says how far it is on stderr when stderr is a terminal (reaching the positions,
each 50 sweeps, the exact fractions); nothing with -q, nor when stderr is a pipe, where stdout
holds the same figures either way."""

from __future__ import annotations

import subprocess
import sys

from clikit import run_on_a_terminal

SMALL = ["solve", "--set", "ranks=2", "--set", "suits=3"]  # 90 sweeps, then the fractions


def _figures(text: str) -> list[str]:
    """The answer's lines without the CPU seconds, which differ run to run."""
    return [line for line in text.splitlines() if "CPU seconds" not in line]


def test_a_terminal_hears_the_sweeps_and_the_fractions(tmp_path):
    code, err = run_on_a_terminal(SMALL, tmp_path)
    assert code == 0, err
    # the status is drawn some 12 times a second, so a sweep's line may be replaced before it is drawn
    assert "30 positions: sweep" in err and "finding the exact fractions" in err, err
    code, err = run_on_a_terminal([*SMALL, "-q"], tmp_path)
    assert code == 0 and err == "", err


def test_a_pipe_hears_nothing_and_the_answer_is_the_same(tmp_path):
    runs = [subprocess.run([sys.executable, "-m", "pipeline.cli", *SMALL, *quiet], capture_output=True, text=True,
                           cwd=tmp_path) for quiet in ([], ["-q"])]
    assert all(r.returncode == 0 and r.stderr == "" for r in runs), [r.stderr for r in runs]
    assert _figures(runs[0].stdout) == _figures(runs[1].stdout)
    assert "P(seat 0 wins)" in runs[0].stdout
