"""Where a `war generate` parent's CPU goes before it forks its workers, part by part, in two
checkouts alternated: the median of each part over the runs, and of the CPU at the fork.

    python bench/startup_phases.py --source BEFORE [--after DIR] --runs 12 [-- ARGS]

Each run is bench/timeline.py on `war generate -o DIR ARGS` (by default `--games 4000 --seed 9
--workers 2 -q`) with `PYTHONPATH` set to the checkout; a part is the CPU between two of its
markers (the imports, the request, numba's cache check, the engine's and the encoder's load,
generate's set-up). The load average is printed before and after. Why: the parts are 2 to 150 ms
each, and on a loaded machine one run's CPU moves by 0.2 s, so a part's change shows only in
medians of alternated runs; two workers wait for all of it as long as one does (issue 51).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import in_turn  # noqa: E402

HERE = Path(__file__).resolve().parent
PARTS = [("timeline ready", "the interpreter (and the timeline's imports)"),
         ("import pyarrow end", "pipeline, pyarrow and numpy"),
         ("import typer end", "typer"),
         ("import pipeline.jobs.request start", "the command's module, the quick parse"),
         ("import pipeline.model.schema end", "pydantic and the schema"),
         ("import numba start", "jobs.generate's imports before numba"),
         ("import numba end", "numba"),
         ("import pipeline.jobs.request end", "jobs.generate's other imports"),
         ("prepare_engine start", "the request (and the engine's modules)"),
         ("cache check end", "numba's cache checked"),
         ("encoder start", "the engine loaded (a tiny game)"),
         ("prepare_engine end", "the encoder loaded"),
         ("warm (before fork) end", "generate's set-up (output, journal, plan)")]


def parts(source: Path, args: list[str], out: Path) -> list[float]:
    """The CPU of each part of PARTS in one run of `source`, in seconds."""
    trace = Path(tempfile.mkstemp(prefix="war-phases-", suffix=".jsonl")[1])
    try:
        subprocess.run([sys.executable, str(HERE / "timeline.py"), "--trace", str(trace), "--", "generate",
                        "-o", str(out), *args], env=dict(os.environ, PYTHONPATH=str(source)),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        rows = [json.loads(line) for line in trace.read_text().splitlines()]
    finally:
        trace.unlink(missing_ok=True)
        shutil.rmtree(out, ignore_errors=True)
    got, before = [], 0.0
    for what, _ in PARTS:
        cpu = next(r["cpu"] for r in rows if r["what"] == what)
        got.append(cpu - before)
        before = cpu
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, required=True, help="the checkout to compare with (before)")
    parser.add_argument("--after", type=Path, default=HERE.parent, help="the other checkout (default: this one)")
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("args", nargs=argparse.REMAINDER, help="-- and war generate's arguments, without -o")
    opts = parser.parse_args()
    args = (opts.args[1:] if opts.args[:1] == ["--"] else opts.args) or ["--games", "4000", "--seed", "9",
                                                                         "--workers", "2", "-q"]
    sources = {"before": opts.source.resolve(), "after": opts.after.resolve()}
    runs: dict[str, list[list[float]]] = {name: [] for name in sources}
    out = Path(tempfile.mkdtemp(prefix="war-phases-")) / "out"
    load = os.getloadavg()[0]
    for run in range(opts.runs):
        for name in in_turn(run, list(sources)):
            runs[name].append(parts(sources[name], args, out))
    shutil.rmtree(out.parent, ignore_errors=True)
    print(f"war generate {' '.join(args)}: CPU, median of {opts.runs} alternated runs, "
          f"load average {load:.1f} - {os.getloadavg()[0]:.1f}")
    print(f"{'':48s} {'before':>9s} {'after':>9s}")
    for i, (_, label) in enumerate(PARTS):
        print(f"{label:48s} " + " ".join(f"{1000 * statistics.median(r[i] for r in runs[name]):6.1f} ms"
                                         for name in sources))
    print(f"{'at the fork':48s} " + " ".join(f"{1000 * statistics.median(sum(r) for r in runs[name]):6.1f} ms"
                                             for name in sources))


if __name__ == "__main__":
    main()
