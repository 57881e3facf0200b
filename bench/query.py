"""How fast `war query` streams a large result, and in how much memory.

    python bench/query.py [--events DIR] [--games DIR]

`--events`: a dataset whose `select * from events` is written to CSV and to Parquet (default:
200,000 Classic War games, generated into a temporary folder when not given). `--games`: a
dataset whose `select * from games` is shown as a table (default: 1,000,000 games, generated
when not given). Each figure is one `war query` process: its wall time from start to exit, and
its own peak resident memory (os.wait4), with the rows and bytes it wrote.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

from measure import print_table, timed, war


def measured(cmd: list[str]) -> tuple[float, float, bytes]:
    """Seconds, peak RSS in MB of this process alone, and what it printed."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        took = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode()}")
        out.seek(0)
        return took, usage.ru_maxrss / 1024, out.read()


def dataset(given: str | None, games: int, tmp: str, name: str) -> Path:
    if given:
        return Path(given)
    out = Path(tmp) / name
    timed(war("generate", "--games", str(games), "--workers", "2", "--out", str(out), "-q"))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", help="dataset for the events figures (default: 200,000 games, generated)")
    ap.add_argument("--games", help="dataset for the table figure (default: 1,000,000 games, generated)")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        events_ds = dataset(args.events, 200_000, tmp, "events")
        count = int(timed(war("query", str(events_ds), "--sql", "select count(*) from events",
                              "--format", "csv"))[1].splitlines()[1])
        for fmt in ("csv", "parquet"):
            target = Path(tmp) / f"events.{fmt}"
            took, rss, _ = measured(war("query", str(events_ds), "--sql", "select * from events",
                                        "--format", fmt, "--output", str(target)))
            size = target.stat().st_size
            rows.append((f"`select * from events` to {fmt}, {count:,} rows",
                         f"{took:,.1f} s, {count / took:,.0f} rows/s, {size / took / 1e6:,.1f} MB/s "
                         f"({size / 1e6:,.0f} MB)", f"{rss:,.0f} MB",
                         f"war query DIR --sql \"select * from events\" --format {fmt} --output FILE"))
            target.unlink()
        took, rss, _ = measured(war("query", str(events_ds), "--sql", "select * from events"))
        rows.append((f"`select * from events` as a table ({count:,} rows counted)", f"{took:,.2f} s",
                     f"{rss:,.0f} MB", "war query DIR --sql \"select * from events\""))
        games_ds = dataset(args.games, 1_000_000, tmp, "games")
        took, rss, out = measured(war("query", str(games_ds), "--sql", "select * from games"))
        footer = [line for line in out.decode().splitlines() if " rows" in line][-1]
        rows.append((f"`select * from games` as a table ({footer.split(' (')[0]})", f"{took:,.2f} s", f"{rss:,.0f} MB",
                     "war query DIR --sql \"select * from games\""))
    print_table(["figure", "time, throughput", "peak RSS", "command"], rows)


if __name__ == "__main__":
    main()
