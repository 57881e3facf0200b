"""Progress on stderr for the commands that can run for seconds (issue 37 item 6): `war serve`'s
start-up (the report is built while it listens), `war validate`, and `war query --output FILE`.
Shown on a terminal (stderr a pseudo-terminal here), silent with -q and when stderr is not a
terminal; stdout never carries it."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.jobs.generate import Plan, generate
from pipeline.model.rules import build_rules

ENV = {**os.environ, "PYTHONUNBUFFERED": "1", "TERM": "xterm", "COLUMNS": "120"}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("progress") / "ds"
    generate(out, [Plan(build_rules("classic"), 400)], seed=2)
    return out


def war(args: list[str], terminal: bool, until: bytes | None = None, timeout: float = 300) -> tuple[bytes, bytes]:
    """Run `war ARGS` with stderr on a pseudo-terminal (or a pipe); (stdout, stderr). With
    `until`, the process is interrupted once stderr shows it."""
    master = slave = None
    if terminal:
        master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", *args], env=ENV, stdout=subprocess.PIPE,
                            stderr=slave if terminal else subprocess.PIPE)
    err_fd = master if terminal else proc.stderr.fileno()
    if slave is not None:
        os.close(slave)
    err = b""
    deadline = time.time() + timeout
    try:
        while time.time() < deadline:
            ready, _, _ = select.select([err_fd], [], [], 1)
            if ready:
                try:
                    chunk = os.read(err_fd, 65536)
                except OSError:  # the terminal's other end closed
                    chunk = b""
                if not chunk:
                    break
                err += chunk
                if until is not None and all(u in err for u in ((until,) if isinstance(until, bytes) else until)):
                    proc.send_signal(signal.SIGINT)
                    until = None
            elif proc.poll() is not None:
                break
        out = proc.stdout.read()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if master is not None:
            os.close(master)
    return out, err


def test_serve_shows_the_report_being_built_on_a_terminal(root):
    """The server listens at once and builds its report meanwhile (its home page says how far
    it is), with the bar on the terminal."""
    _, err = war(["serve", str(root), "--port", "0"], terminal=True, until=(b"Ctrl-C stops", b"building the report"))
    assert b"serving " in err and b"building the report" in err


@pytest.mark.parametrize("args, terminal", [(["-q"], True), ([], False)])
def test_serve_is_quiet_with_q_or_off_a_terminal(root, args, terminal):
    _, err = war(["serve", str(root), "--port", "0", *args], terminal=terminal, until=b"Ctrl-C stops")
    assert err.split(b"serving ")[0].strip() == b""


def test_query_to_a_file_counts_its_rows(root, tmp_path):
    sql = "SELECT * FROM events"
    out, err = war(["query", str(root), "--sql", sql, "--format", "csv", "--output", str(tmp_path / "a.csv")],
                   terminal=True)
    assert b"rows" in err and b"writing" in err and out == b""
    for args, terminal in ((["-q"], True), ([], False)):
        out, err = war(["query", str(root), "--sql", sql, "--format", "csv", "--output", str(tmp_path / "b.csv"),
                        "--overwrite", *args], terminal=terminal)
        assert err == b"" and out == b""
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_validate_shows_progress_on_a_terminal_only(root):
    out, err = war(["validate", str(root)], terminal=True)
    assert b"validating" in err and b"good: 400" in out
    for args, terminal in ((["-q"], True), ([], False)):
        out, err = war(["validate", str(root), *args], terminal=terminal)
        assert b"validating" not in err and b"good: 400" in out
