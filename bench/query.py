"""How fast `war query` streams a large result, and in how much memory.

    python bench/query.py [--events DIR] [--games DIR]
    python bench/query.py --one-game DIR [--game 654321] [--source BEFORE] [--runs 10]

`--events`: a dataset whose `select * from events` is written to CSV and to Parquet (default:
200,000 Classic War games, generated into a temporary folder when not given). `--games`: a
dataset whose `select * from games` is shown as a table (default: 1,000,000 games, generated
when not given). Each figure is one `war query` process: its wall time from start to exit, and
its own peak resident memory (os.wait4), with the rows and bytes it wrote.

`--one-game`: the start-up of a query of one game's events of the dataset DIR (`war query DIR
--sql "SELECT * FROM events WHERE game_id = GAME"`), its wall and CPU each run; with `--source`,
the same command of another checkout (a `git archive` of the code before, run with PYTHONPATH),
the two sides alternating run by run (`--after`: another checkout as the side after, rather than
this one), their table, CSV and JSON compared byte for byte first.
Each side runs once before it is timed (its event copies and its session's plan kept).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

from measure import in_turn, measure, print_table, timed, war


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


def one_game(root: str, game: int, source: str | None, runs: int, after: str | None = None) -> None:
    """The one-game query's wall and CPU, run by run, this checkout (or `after`) against `source`
    alternating."""
    sql = f"SELECT * FROM events WHERE game_id = {game}"
    sides = [("after", after)] + ([("before", source)] if source else [])

    def env(src):
        return None if src is None else {**os.environ, "PYTHONPATH": src}

    outputs = {}
    for name, src in sides:
        for fmt in ("table", "csv", "json"):
            outputs.setdefault(fmt, set()).add(measure(war("query", root, "--sql", sql, "--format", fmt), env=env(src)).stdout)
    same = all(len(v) == 1 for v in outputs.values())
    print(f"outputs (table, csv, json) the same on every side: {same}")
    times: dict[str, list] = {name: [] for name, _ in sides}
    load = os.getloadavg()
    for i in range(runs):
        for name, src in in_turn(i, sides):
            run = measure(war("query", root, "--sql", sql), env=env(src))
            times[name].append((run.wall, run.cpu))
            print(f"  run {i + 1} {name}: {run.wall:.3f} s wall, {run.cpu:.3f} s cpu", flush=True)
    for name, got in times.items():
        walls, cpus = sorted(w for w, _ in got), sorted(c for _, c in got)
        print(f"{name}: wall median {walls[len(walls) // 2]:.3f} s ({walls[0]:.3f} - {walls[-1]:.3f}), "
              f"cpu median {cpus[len(cpus) // 2]:.3f} s ({cpus[0]:.3f} - {cpus[-1]:.3f})")
    print(f"load average before {load[0]:.2f} {load[1]:.2f}, after {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", help="dataset for the events figures (default: 200,000 games, generated)")
    ap.add_argument("--games", help="dataset for the table figure (default: 1,000,000 games, generated)")
    ap.add_argument("--one-game", metavar="DIR", help="time one game's events query of DIR instead")
    ap.add_argument("--game", type=int, default=654321, help="the game of --one-game (default 654321)")
    ap.add_argument("--source", metavar="DIR", help="with --one-game: another checkout's code to time against")
    ap.add_argument("--after", metavar="DIR", help="with --one-game: the code timed as `after` (default: this checkout)")
    ap.add_argument("--runs", type=int, default=10, help="with --one-game: timed runs a side")
    args = ap.parse_args()
    if args.one_game:
        one_game(args.one_game, args.game, args.source, args.runs, args.after)
        return
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
