"""`war report` shows its progress on stderr when stderr is a terminal, counting the queries
run, the charts drawn and the replay pages written; nothing with -q, nor when stderr is a file
or a pipe. The library hears of every step, the total growing as the work becomes known."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.jobs.generate import Plan, generate
from pipeline.model.rules import build_rules
from pipeline.present.report_page import write_report

from clikit import run_on_a_terminal


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("progress") / "ds"
    generate(out, [Plan(build_rules("classic"), 60), Plan(build_rules("jokers"), 60)], seed=4)
    return out


def test_the_library_counts_every_step(root, tmp_path):
    calls = []
    written = write_report(root, tmp_path / "r.html", progress=lambda n, total: calls.append((n, total)))
    done = sum(n for n, _ in calls)
    assert done == calls[-1][1]  # every step reported, and the total reached
    totals = [t for _, t in calls]
    assert totals == sorted(totals) and totals[0] > 0
    pages = len(written) - 1
    assert pages > 0 and done > pages + 10  # queries, charts and the replay pages


def test_progress_on_a_terminal_and_silence_otherwise(root, tmp_path):
    code, err = run_on_a_terminal(["report", str(root), "--output", str(tmp_path / "a.html")], tmp_path)
    assert code == 0 and "report" in err and "━" in err, err
    code, err = run_on_a_terminal(["report", str(root), "--output", str(tmp_path / "b.html"), "-q"], tmp_path)
    assert code == 0 and err == "", err
    piped = subprocess.run([sys.executable, "-m", "pipeline.cli", "report", str(root), "--output",
                            str(tmp_path / "c.html")], capture_output=True, text=True, cwd=tmp_path)
    assert piped.returncode == 0 and piped.stderr == ""
    assert piped.stdout.startswith("wrote ")
    code, err = run_on_a_terminal(["report", str(root), "--format", "svg", "--output", str(tmp_path / "svg")],
                                   tmp_path)
    assert code == 0 and "charts" in err and "━" in err, err
