"""How the bench scripts run and time a command: one process, timed from outside.

`measure` runs a command to its end and gives its wall seconds, the CPU seconds (user and
system) and peak resident memory of that process and the children it waited for alone
(os.wait4, so earlier commands never mix in), its output, and the host's steal meanwhile: the
share of this machine's CPU time the hypervisor gave to other guests (Linux's /proc/stat), which
is what slows a run on a shared host and says which of a noisy run's figures to doubt.
`timed` and `timed_cpu` are the two views of it that most scripts want.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

# The idiomatic simulator's games per CPU second, pinned, when issue 52 was filed: the yardstick
# rate a share of it is scaled by (`--yardstick` of plain_inproc.py and plain_python.py).
SIMULATOR_AT_FILING = 10_800


class Measured(NamedTuple):
    wall: float      # seconds, start to exit
    cpu: float       # user + system seconds
    user: float      # user seconds
    peak_mb: float   # peak resident memory of the largest process waited for
    stdout: bytes
    steal: float     # the host's steal while it ran: a share of all CPUs' time (0 where unknown)


def _steal_ticks() -> int | None:
    """CPU time stolen from this machine's CPUs so far, in clock ticks (None off Linux)."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        return int(fields[8]) if fields[0] == "cpu" and len(fields) > 8 else None
    except (OSError, ValueError):
        return None


def war(*args) -> list[str]:
    return [sys.executable, "-m", "pipeline.cli", *map(str, args)]


def fresh(out: Path) -> Path:
    """`out`, removed first (before any timing starts): a timed `war generate` then writes a new
    dataset, as the commands the rows measure do. With `--overwrite` instead, each timed run
    would also delete the run before's dataset after writing its own (0.43 s for 500,000
    games), a cost none of those commands pays."""
    shutil.rmtree(out, ignore_errors=True)
    return out


def one_core() -> int:
    """The core a pinned measurement runs on: the last this process may use."""
    return max(os.sched_getaffinity(0))


def measure(cmd: list[str], env: dict | None = None, cwd: Path | None = None, core: int | None = None) -> Measured:
    """Run `cmd` to its end (SystemExit with its error output when it fails), on `core` alone
    when given (it and its children). Output goes to temporary files, not pipes, so that a
    command that prints a great deal never waits on us."""
    pin = (lambda: os.sched_setaffinity(0, {core})) if core is not None else None
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        stolen = _steal_ticks()
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd, preexec_fn=pin)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        after = _steal_ticks()
        steal = 0.0 if stolen is None or after is None else \
            (after - stolen) / os.sysconf("SC_CLK_TCK") / (wall * (os.cpu_count() or 1))
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"failed: {' '.join(map(str, cmd))}\n{err.read().decode(errors='replace')}")
        out.seek(0)
        stdout = out.read()
    return Measured(wall, usage.ru_utime + usage.ru_stime, usage.ru_utime, usage.ru_maxrss / 1024, stdout, steal)


def side_by_side(cmd: list[str], copies: int = 2) -> float:
    """Wall seconds from starting `copies` copies of `cmd` at once to the last one's end (one
    copy: the same command alone, timed the same way)."""
    start = time.perf_counter()
    procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(copies)]
    codes = [proc.wait() for proc in procs]
    wall = time.perf_counter() - start
    if any(codes):
        raise SystemExit(f"failed: {' '.join(map(str, cmd))} (exit {max(codes)})")
    return wall


def in_turn(i: int, pair: list) -> list:
    """The two sides of pair `i` in the order they run: it alternates from one pair to the next,
    so that a machine speeding up or slowing down over a run favours neither side."""
    return pair[::-1] if i % 2 else pair


def timed(cmd: list[str]) -> tuple[float, str]:
    """Wall seconds and output (text)."""
    run = measure(cmd)
    return run.wall, run.stdout.decode()


def timed_cpu(cmd: list[str], cwd: Path | None = None) -> tuple[float, float, bytes]:
    """Wall seconds, CPU seconds (user + system, of the command alone) and its output."""
    run = measure(cmd, cwd=cwd)
    return run.wall, run.cpu, run.stdout


def print_table(header: list[str], rows) -> None:
    """A Markdown table, as bench/README.md holds them."""
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


def big_dataset(description: str, runs: int):
    """The arguments of a script timed on a large dataset (DATASET, --generate, --runs), with the
    dataset written first when --generate asks: 1,000,000 games of Classic War, master seed 42,
    2 workers. (arguments, the dataset's path)."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("dataset")
    parser.add_argument("--generate", action="store_true", help="generate 1,000,000 Classic War games first")
    parser.add_argument("--runs", type=int, default=runs)
    args = parser.parse_args()
    root = Path(args.dataset)
    if not root.exists():
        if not args.generate:
            raise SystemExit(f"{root} does not exist (--generate writes 1,000,000 games there)")
        took, _, _ = timed_cpu(war("generate", "--variant", "classic", "--games", "1000000", "--seed", "42",
                               "--workers", "2", "--out", str(root), "-q"))
        print(f"generated {root} in {took:.0f} s")
    return args, root
