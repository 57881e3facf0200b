"""SIGTERM stops a command as Ctrl-C does. `kill PID`, `timeout` and a cluster's scheduler end a
job with SIGTERM, and war ended at once, silent, exit 143: no word of what was left or how to
finish it, where Ctrl-C says "interrupted; finish with: ... --resume". Now SIGTERM is heard as
Ctrl-C is (the same line, and exit 143, as a shell reports a process SIGTERM ended), and what it
left is finished by that command.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
from faultkit import can_see_processes, catches_ctrl_c, wait_for
from faultkit import procs  # noqa: F401  the fixture

pytestmark = pytest.mark.skipif(not can_see_processes(), reason="needs Linux's /proc to find processes")


@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_stops_generate_with_its_line_and_what_it_left_finishes(tmp_path, procs, workers):
    out = tmp_path / "d"
    # 24 shards: one is written in a fraction of a second, the rest take seconds more
    args = ["generate", "-o", out, "--games", 60_000, "--seed", 5, "--shard-size", 2_500, "--workers", workers, "-q"]
    proc = procs.war(*args)
    catches_ctrl_c(proc)
    wait_for(out / "games", proc, count=1)  # a shard written: the run is under way
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)  # the command's process only, as `kill PID` does
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM, (proc.returncode, err)
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and lines[0].startswith("error: interrupted; finish with: war generate"), err
    assert lines[0].endswith("--resume") and "Traceback" not in err, err
    assert not procs.gone(), "a worker outlived its command"
    assert not (out / "manifest.json").exists()
    resumed = procs.war(*args, "--resume")
    _, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, err
    checked = procs.war("validate", out, "--workers", 2)
    said, err = checked.communicate(timeout=600)
    assert checked.returncode == 0 and "bad: 0" in said, said + err


def test_sigterm_stops_a_solve_within_seconds_while_it_builds_the_chain(tmp_path, procs):
    """`war solve` builds its chain in machine code, which Python's signal handlers wait for:
    a SIGTERM (or Ctrl-C) during 2x5's search of positions (a card down: about a minute) was
    heard only at its end (hostile-l 2). The search and the chain now run in slices of about a
    second. A small solve first, so that the code is compiled and cached and the signal lands
    in the search, not in the compiler."""
    from test_fault_corpus_stops import computing, ended

    warm = procs.war("solve", "--set", "ranks=2", "--set", "suits=2", "--float", "-q")
    _, err = warm.communicate(timeout=300)
    assert warm.returncode == 0, err
    proc = procs.war("solve", "--set", "ranks=5", "--set", "suits=2", "--float", "-q", "--out", tmp_path / "s")
    catches_ctrl_c(proc)
    assert computing(proc, cpu_seconds=4.0), "the solve ended before it was signalled"
    proc.send_signal(signal.SIGTERM)
    took, err = ended(proc, 10.0)
    assert proc.returncode == 128 + signal.SIGTERM, (proc.returncode, err)
    assert [line for line in err.splitlines() if line.startswith("error:")] == ["error: interrupted"], err
    assert took < 10.0 and "Traceback" not in err, (took, err)
    assert not (tmp_path / "s").exists()


def test_sigterm_stops_a_background_job_whose_ctrl_c_is_ignored(tmp_path, procs):
    """A shell starts a background job (`nohup war search ... &`) with SIGINT ignored, and the
    latch, which took SIGTERM only beside Ctrl-C, took neither: the job's SIGTERM killed it
    silently, no line, and a search left its lock behind. SIGTERM is now taken whatever SIGINT's
    state."""
    out = tmp_path / "d"
    args = ["generate", "-o", out, "--games", 60_000, "--seed", 5, "--shard-size", 2_500, "-q"]
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", *map(str, args)], env=procs.env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    procs.started.append(proc)
    wait_for(out / "games", proc, count=1)
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM, (proc.returncode, err)
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and lines[0].startswith("error: interrupted; finish with: war generate"), err
    assert not (out / "manifest.json").exists()
