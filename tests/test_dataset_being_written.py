"""A dataset that a `war generate` is still writing (its journal's lock names a live process) is
refused by every command that reads it in one line: it is being written by that pid, try again
when it finishes; not advice to `--resume` it (that is for a run that died, and stays so) and
not a raw "No such file" (`war serve` read the manifest first)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from clikit import assert_one_line_error
from clikit import run_main as war
from pipeline.jobs.generate import Plan, generate
from pipeline.model.rules import build_rules

COMMANDS = [("query", "{ds}", "--sql", "SELECT 1"), ("report", "{ds}", "-o", "{tmp}/report.html", "-q"),
            ("replay", "{ds}", "1"), ("serve", "{ds}", "--port", "0", "-q"), ("validate", "{ds}")]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("written") / "ds"
    generate(out, [Plan(build_rules("classic"), 10)], seed=3)
    return out


def being_written(pristine: Path, tmp_path: Path, pid: int) -> Path:
    """A copy of the dataset as a `war generate` that `pid` runs leaves it while it writes: its
    data, no manifest yet, and its journal's lock naming the process."""
    ds = tmp_path / "ds"
    shutil.copytree(pristine, ds)
    (ds / "manifest.json").unlink()
    (ds / ".war").mkdir()
    (ds / ".war" / "plan.json").write_text("{}", encoding="utf-8")
    (ds / ".war" / "lock").write_text(json.dumps({"pid": pid, "host": socket.gethostname(), "token": "0" * 16}))
    return ds


def gone_pid() -> int:
    """The pid of a process that ran and was reaped."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.parametrize("command", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_a_dataset_being_written_says_by_whom(pristine, tmp_path, monkeypatch, capsys, command):
    ds = being_written(pristine, tmp_path, os.getpid())
    args = [a.format(ds=ds, tmp=tmp_path) for a in command]
    code, out, err = war(monkeypatch, capsys, *args)
    assert_one_line_error(code, out, err, mentions=f"is being written by pid {os.getpid()} (war generate); "
                                                   "try again when it finishes")
    assert "resume" not in err and "No such file" not in err


@pytest.mark.parametrize("command", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_a_dataset_whose_writer_died_is_to_be_resumed(pristine, tmp_path, monkeypatch, capsys, command):
    ds = being_written(pristine, tmp_path, gone_pid())
    args = [a.format(ds=ds, tmp=tmp_path) for a in command]
    code, out, err = war(monkeypatch, capsys, *args)
    assert_one_line_error(code, out, err, mentions="--resume")
    assert "being written" not in err
