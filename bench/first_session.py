"""A newcomer's first session, as compile time: what issue 46 asks to halve.

    python bench/first_session.py [COMMIT ...]       # each commit's session (default: HEAD)

For each commit, a fresh clone of this repository at it (so numba's cache, in the clone's
__pycache__, starts empty) runs the four commands of a first session in turn: `war demo`, a
fixed pickup with wars of one card down, Steal War and Arneson's War (200 games each), then the
same four again with the cache now full. A command's compile time is its first run's wall time
less its second's (the second does the same work and compiles nothing). Wall seconds of
whole processes: run it on a quiet machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SESSION = {
    "demo": ["demo"],
    "fixed pickup": ["generate", "--set", "pickup=winner_first", "--set", "war_down=1", "--games", "200", "--out", "f"],
    "Steal War": ["generate", "-v", "steal", "--games", "200", "--out", "s"],
    "Arneson's War": ["generate", "-v", "arneson", "--games", "200", "--out", "a"],
}

WAR = 'import sys; sys.argv[0] = "war"; from pipeline.cli import main; main()'


def timed(clone: Path, folder: Path, args: list[str]) -> float:
    """Wall seconds of one `war ARGS` of the clone's code, run in `folder`."""
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(clone)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", WAR, *args], cwd=folder, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def session(commit: str) -> dict[str, tuple[float, float]]:
    """Each command's (first, second) wall seconds in a fresh clone at `commit`."""
    with tempfile.TemporaryDirectory(prefix="war-first-session-") as place:
        clone = Path(place) / "war"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "-q", commit], check=True)
        runs: dict[str, list[float]] = {name: [] for name in SESSION}
        for attempt in ("first", "second"):
            folder = Path(place) / attempt
            folder.mkdir()
            for name, args in SESSION.items():
                runs[name].append(timed(clone, folder, args))
        return {name: (first, second) for name, (first, second) in runs.items()}


def main(commits: list[str]) -> None:
    for commit in commits or ["HEAD"]:
        runs = session(subprocess.run(["git", "-C", str(ROOT), "rev-parse", commit], check=True,
                                      capture_output=True, text=True).stdout.strip())
        print(f"{commit}:")
        for name, (first, second) in runs.items():
            print(f"  {name:14s} first {first:5.2f} s, again {second:5.2f} s: compile {first - second:5.2f} s")
        compile_ = sum(first - second for first, second in runs.values())
        print(f"  {'all':14s} first {sum(f for f, _ in runs.values()):5.2f} s: compile {compile_:5.2f} s wall")


if __name__ == "__main__":
    main(sys.argv[1:])
