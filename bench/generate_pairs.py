"""Whole `war generate` commands of two checkouts, alternated, in wall time and CPU (the process
and its workers, user + system), and the ratio of one worker's wall to more workers'.

    python bench/generate_pairs.py --source BEFORE [--after DIR] --runs 5 -- --games 1 -q
    python bench/generate_pairs.py --source BEFORE --workers 1,2 --runs 3 -- --games 100000 --seed 9 -q

Each run plays every checkout (BEFORE, given with --source, and this one or --after), in an
order that alternates from run to run, each into a new folder (removed before and after, so
that no run pays for an --overwrite), with `PYTHONPATH` set to the checkout, the way the `war`
console script runs (its `command()`), without pyenv's shim. With `--workers 1,2` each checkout
runs each worker count, and a run's line says two workers' speed-up over one (wall). The load
average is printed before and after: a loaded machine's wall says little (use the CPU then).
Why: two workers' ratio to one is set by what runs one after the other (start-up, the tail), a
few tens of ms each, which only alternated pairs of whole commands can compare.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import fresh, in_turn, measure  # noqa: E402

HERE = Path(__file__).resolve().parents[1]
RUN = "import sys; from pipeline.cli import command; sys.argv = ['war', *sys.argv[1:]]; sys.exit(command())"


def run_once(source: Path, args: list[str], out: Path) -> tuple[float, float, float]:
    """(wall, user, system) of one `war generate ARGS -o OUT` from `source`, into a new folder."""
    try:
        run = measure([sys.executable, "-c", RUN, "generate", *args, "-o", str(fresh(out))],
                      env=dict(os.environ, PYTHONPATH=str(source)))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return run.wall, run.user, run.cpu - run.user


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, required=True, help="the checkout to compare with (before)")
    parser.add_argument("--after", type=Path, default=HERE, help="the other checkout (default: this one)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", default=None, help="worker counts to run each, e.g. 1,2 (default: as ARGS say)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="-- and war generate's arguments, without -o")
    opts = parser.parse_args()
    args = opts.args[1:] if opts.args[:1] == ["--"] else opts.args
    counts = [int(w) for w in opts.workers.split(",")] if opts.workers else [None]
    sources = {"before": opts.source.resolve(), "after": opts.after.resolve()}
    folder = Path(tempfile.mkdtemp(prefix="war-pairs-"))
    print(f"load average {os.getloadavg()[0]:.2f}; war generate {' '.join(args)}")
    figures: dict[tuple[str, int | None], list[tuple[float, float, float]]] = {}
    try:
        for run in range(opts.runs):
            for name in in_turn(run, list(sources)):
                line = []
                for workers in counts:
                    extra = [] if workers is None else ["--workers", str(workers)]
                    wall, user, system = run_once(sources[name], args + extra, folder / "out")
                    figures.setdefault((name, workers), []).append((wall, user, system))
                    line.append(f"{'' if workers is None else f'{workers} workers: '}"
                                f"{wall:.3f} s wall, {user + system:.3f} s cpu ({system:.3f} sys)")
                if len(counts) > 1:
                    walls = [figures[(name, w)][-1][0] for w in counts]
                    line.append(f"{walls[0] / walls[-1]:.2f}x")
                print(f"run {run + 1} {name:6s} " + "; ".join(line), flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.2f}; medians:")
    for name in sources:
        parts = []
        for workers in counts:
            rows = figures.get((name, workers), [])
            if rows:
                parts.append(f"{'' if workers is None else f'{workers} workers: '}"
                             f"{statistics.median(r[0] for r in rows):.3f} s wall, "
                             f"{statistics.median(r[1] + r[2] for r in rows):.3f} s cpu")
        if len(counts) > 1:
            ratios = [a[0] / b[0] for a, b in zip(figures[(name, counts[0])], figures[(name, counts[-1])])]
            parts.append(f"ratio {statistics.median(ratios):.2f}x (runs {', '.join(f'{r:.2f}' for r in ratios)})")
        print(f"  {name:6s} " + "; ".join(parts))


if __name__ == "__main__":
    main()
