"""Shared by the fault corpus (tests/test_fault_corpus_*.py, issue 35): running `war` in this
process through its one-line error boundary, checking that a fault ended in one line, re-signing
a tampered manifest, and finding (and reaping) every process a test started, by a tag in its
environment that its children inherit.

WAR_FAULT_TRIES sets how many random kill points each kill -9 test tries (default 2, so that the
suite stays quick; the issue's check is WAR_FAULT_TRIES=20).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from clikit import error_lines
from clikit import run_main as war  # noqa: F401  `war ARGS` in this process: code, stdout, stderr
from rulekit import digests as tree  # noqa: F401  every file under a folder: its SHA-256

TRIES = int(os.environ.get("WAR_FAULT_TRIES", "2"))
ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


def one_line(code: int, out: str, err: str, want: int, *culprits: str) -> str:
    """The fault ended in exit `want` and one line `error: ...` naming each of `culprits`."""
    said = out + err
    assert "Traceback" not in said and "internal error" not in said, said
    assert code == want, f"exit {code}, wanted {want}\nstdout: {out}\nstderr: {err}"
    lines = [line for line in error_lines(err) if not line.startswith(("warning:", "waiting for"))]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for culprit in culprits:
        assert culprit.lower() in lines[0].lower(), lines[0]
    return lines[0]


def sign(root: Path, edit=None) -> None:
    """Apply `edit(manifest)` to the dataset's manifest, then recompute every listed file's
    checksum and row count, as a tamperer who knows the format would."""
    path = root / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    if edit is not None:
        edit(manifest)
    for f in manifest["files"]:
        p = root / f["path"]
        if p.is_file():
            f["sha256"] = hashlib.sha256(p.read_bytes()).hexdigest()
            if p.suffix == ".parquet":
                f["rows"] = pq.ParquetFile(p).metadata.num_rows
    path.write_text(json.dumps(manifest, indent=1), encoding="utf-8")


class Tagged:
    """Processes started with a tag in their environment, which their children (workers, the
    resource tracker, a compile helper) inherit: after a kill -9 of the first, `alive()` finds
    the ones left, and `reap()` kills them so that no test leaves a process behind."""

    def __init__(self) -> None:
        self.tag = uuid.uuid4().hex
        self.started: list[subprocess.Popen] = []

    def env(self, **extra) -> dict[str, str]:
        return {**os.environ, "WAR_TEST_TAG": self.tag, **extra}

    def war(self, *args, **kw) -> subprocess.Popen:
        """`war ARGS` in a new process, its output as text; SIGINT as a terminal's Ctrl-C."""
        proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", *map(str, args)], env=self.env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **kw)
        self.started.append(proc)
        return proc

    def alive(self) -> list[int]:
        found = []
        marker = f"WAR_TEST_TAG={self.tag}".encode()
        for pid in os.listdir("/proc"):
            if pid.isdigit() and int(pid) != os.getpid():
                try:
                    with open(f"/proc/{pid}/environ", "rb") as f:
                        if marker in f.read().split(b"\0"):
                            state = Path(f"/proc/{pid}/stat").read_text()
                            if state[state.rindex(")") + 2] not in "ZX":
                                found.append(int(pid))
                except OSError:
                    pass
        return found

    def gone(self, within: float = 15.0) -> list[int]:
        """The tagged processes still alive after up to `within` seconds (a worker still
        importing notices its parent's death when it starts)."""
        deadline = time.time() + within
        while (left := self.alive()) and time.time() < deadline:
            time.sleep(0.1)
        return left

    def reap(self) -> None:
        for pid in self.alive():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for proc in self.started:
            if proc.poll() is None:
                proc.kill()
            proc.communicate()


@pytest.fixture
def procs():
    """A Tagged for the test's processes: every one of them, and their children, reaped at its
    end (a test module gets it by importing it)."""
    tagged = Tagged()
    yield tagged
    tagged.reap()


def catches_ctrl_c(proc: subprocess.Popen, timeout: float = 60.0) -> None:
    """Wait until `proc`, a `python -m pipeline.cli`, handles SIGINT itself: it runs war (its
    command line says so: before the exec it is a copy of the test, which catches SIGINT too) and
    its SigCgt has the bit. Before that, between the fork and Python's start-up, a SIGINT ends the
    child silently, a race of the test's own making (the child's SIGINT is SIG_DFL there) that a
    user's Ctrl-C in a shell never meets."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            ran = b"pipeline.cli" in Path(f"/proc/{proc.pid}/cmdline").read_bytes()  # exec'd: not the fork
            status = Path(f"/proc/{proc.pid}/status").read_text()
        except OSError:
            return
        caught = next((int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigCgt:")), 0)
        if ran and caught & (1 << (signal.SIGINT - 1)):
            return
        time.sleep(0.01)


def can_see_processes() -> bool:
    return sys.platform == "linux" and os.path.isdir("/proc/self")


def wait_for(path: Path, proc: subprocess.Popen, timeout: float = 120.0, count: int = 1) -> None:
    """Wait until the folder `path` holds `count` entries (or the file exists), while `proc` runs."""
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        if path.is_dir() and len(os.listdir(path)) >= count or (count == 1 and path.is_file()):
            return
        time.sleep(0.02)
