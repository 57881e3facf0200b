"""How long `war report` takes on a large dataset: `python bench/report.py DATASET`.

With `--generate` it first writes 1,000,000 games of Classic War into DATASET (2 workers, a few
minutes) when DATASET does not exist. It then times the whole command as a user runs it (a new
process, replay pages of the linked games included, and without them), and, in this process,
each named query the report runs and the drawing of the page, so the figure can be read. The
machine's load average is printed with it: other work on the cores slows every figure.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from measure import big_dataset, timed_cpu, war


def main() -> None:
    args, root = big_dataset(__doc__.splitlines()[0], runs=2)

    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, extra in (("war report (replay pages of the linked games included)", []),
                             ("war report --no-game-pages", ["--no-game-pages"])):
            best = None
            for i in range(args.runs):
                out = Path(tmp) / f"r{i}{len(extra)}.html"
                took, cpu, _ = timed_cpu(war("report", str(root), "--output", str(out), *extra))
                best = min(best or (took, cpu), (took, cpu))
            rows.append((label, *best, out.stat().st_size))

    # where the time goes, in this process
    from pipeline.jobs.query import run
    from pipeline.present.report import report_queries, rule_sets
    from pipeline.present.report_page import default_game_href, render_report
    from pipeline.storage.dataset import Dataset

    infos = rule_sets(Dataset.open(root))
    parts = []
    for q in report_queries():
        if q.wanted(infos):
            start = time.perf_counter()
            run(root, name=q.name, params=q.params)
            parts.append((q.name, time.perf_counter() - start))
    from pipeline.present.report import build_report_data

    data = build_report_data(root)
    start = time.perf_counter()
    render_report(data, str(root), default_game_href("report"))
    parts.append(("charts and page (Altair, vl-convert)", time.perf_counter() - start))

    games = sum(r.games for r in infos)
    print(f"\n{games:,} games, {len(infos)} rule sets; best of {args.runs}\n")
    print("| command | wall | CPU (user + system) | page |")
    print("|---|---|---|---|")
    for label, took, cpu, size in rows:
        print(f"| {label} | {took:.1f} s | {cpu:.1f} s | {size / 1e6:.2f} MB |")
    print("\n| part | seconds |")
    print("|---|---|")
    for name, took in parts:
        print(f"| {name} | {took:.2f} |")
    print(f"\nload average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
