"""Generation against validation for every built-in variant, and two workers against one:
`python bench/variants.py` (also part of `make bench`).

Each figure is a separate `war` process, start-up included, timed from outside: wall seconds, and
the CPU seconds (user + system) of that process and its workers alone (os.wait4). Generate and
validate of a variant run in turn, `--runs` times, both on one pinned core, and the medians are
printed, the CPU ratio as the median of the pairs' own; on a shared machine the CPU column is the
steadier one. Validation of a shard the compiled engine plays
regenerates it and compares the tables; a variant played by the reference engine is validated
game by game.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from measure import fresh, in_turn, measure, one_core, print_table, war  # noqa: E402

# (what, arguments of war generate, games at scale 1): each run takes a few seconds here.
CASES = [
    ("Classic War", ["-v", "classic"], 40_000),
    ("Classic War, winner_first", ["-v", "classic", "--set", "pickup=winner_first"], 40_000),
    ("Classic War, pooled", ["-v", "classic", "--set", "pickup=pooled"], 20_000),
    ("Multiplayer War, 3 players", ["-v", "multiplayer"], 20_000),
    ("Multiplayer War, 4 players", ["-v", "multiplayer", "--set", "players=4"], 20_000),
    ("War with Jokers", ["-v", "jokers"], 40_000),
    ("Război", ["-v", "razboi"], 40_000),
    ("single-card tie-break", ["-v", "classic", "--set", "war_tiebreak=single_up"], 40_000),
    ("first to three wars", ["-v", "classic", "--set", "win=wars:3"], 40_000),
    ("Steal War", ["-v", "steal"], 20_000),
    ("Arneson's War", ["-v", "arneson"], 8_000),
]


def run_timed(cmd: list[str], core: int | None = None) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of `cmd` and the children it waited for, on
    `core` alone when given."""
    run = measure(cmd, core=core)
    return run.wall, run.cpu


def generate_cmd(args: list[str], games: int, out: Path, workers: int = 1) -> list[str]:
    return war("generate", *args, "--games", games, "--seed", 1, "--out", fresh(out), "-q",
               "--workers", workers)


def validate_cmd(out: Path, workers: int = 1) -> list[str]:
    return war("validate", out, "-q", "--workers", workers)


def median_pair(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def variant_rows(tmp: Path, scale: float = 1.0, runs: int = 1, only: list[str] | None = None) -> list[tuple]:
    """For each case: (what, games, generate wall, generate CPU, validate wall, validate CPU,
    each pair's validate / generate in CPU), medians of `runs` generate / validate pairs taken
    in turn, both of a pair on one pinned core (one worker each: their CPU is what compares).
    Validation checks a dataset generated (untimed) before the pairs, the same bytes every
    generate writes, so that a pair can run either side first: the order alternates from pair
    to pair (measure.in_turn), and neither side always reads files the other just wrote."""
    core = one_core()
    rows = []
    for what, args, games in CASES:
        if only and not any(o.lower() in what.lower() for o in only):
            continue
        n = max(int(games * scale), 100)
        checked, out = tmp / "checked", tmp / "variant"
        measure(generate_cmd(args, n, checked))
        gen, val = [], []
        for i in range(runs):
            for side, runs_of in in_turn(i, [(lambda: generate_cmd(args, n, out), gen),
                                             (lambda: validate_cmd(checked), val)]):
                runs_of.append(run_timed(side(), core))
        pairs = [g / v for (_, g), (_, v) in zip(gen, val)]
        rows.append((what, " ".join(args), n, *median_pair(gen), *median_pair(val), pairs))
    return rows


def worker_rows(tmp: Path, games: int, runs: int = 1) -> list[tuple]:
    """Classic War, `games` games: generate and validate with 1 and 2 workers, the two of a pair
    in turn (each pair's order alternating); (what, games, 1-worker wall, its CPU, 2-worker wall,
    its CPU, medians, each pair's 1-worker / 2-worker wall, and the ratio two workers can reach
    at most: ceiling). The start-up s (the same command on one game, run beside each pair) is
    paid one after the other by both sides, so with the 1-worker run's games taking P = its wall
    - s, two workers reach (s + P) / (s + P / 2) at best, 2x only as s goes to 0."""
    out1, out2, tiny = tmp / "one", tmp / "two", tmp / "tiny"
    measure(generate_cmd(["-v", "classic"], 1, tiny))

    def pairs(command, startup) -> tuple[list, list, list]:
        one, two, starts = [], [], []
        for i in range(runs):
            for workers, runs_of in in_turn(i, [(1, one), (2, two)]):
                runs_of.append(run_timed(command(workers)))
            starts.append(run_timed(startup())[0])
        return one, two, starts

    made = {"war generate": pairs(lambda workers: generate_cmd(["-v", "classic"], games,
                                                               out1 if workers == 1 else out2, workers),
                                  lambda: generate_cmd(["-v", "classic"], 1, tmp / "start")),
            "war validate": pairs(lambda workers: validate_cmd(out1, workers), lambda: validate_cmd(tiny))}
    out = []
    for what, (one, two, starts) in made.items():
        w1, c1 = median_pair(one)
        w2, c2 = median_pair(two)
        ceilings = [ceiling(start, wall) for start, (wall, _) in zip(starts, one)]
        out.append((what, games, w1, c1, w2, c2, [a / b for (a, _), (b, _) in zip(one, two)],
                    statistics.median(starts), statistics.median(ceilings)))
    return out


def ceiling(startup: float, one_worker: float) -> float:
    """What two workers can reach against one whose run took `one_worker` seconds, `startup` of
    them before its first game and after its last (paid by both): (s + P) / (s + P / 2)."""
    played = max(one_worker - startup, 0.0)
    return one_worker / (startup + played / 2) if startup + played > 0 else 1.0


def variant_table(rows) -> tuple[list[str], list[tuple]]:
    header = ["variant", "games", "generate games/s (CPU)", "validate games/s (CPU)",
              "validate / generate, CPU (wall); CPU on one pinned core, the median of the pairs", "command"]
    body = []
    for what, args, n, gw, gc, vw, vc, pairs in rows:
        each = f"; pairs {', '.join(f'{r:.2f}x' for r in pairs)}" if len(pairs) > 1 else ""
        body.append((what, f"{n:,}", f"{n / gw:,.0f} ({n / gc:,.0f})", f"{n / vw:,.0f} ({n / vc:,.0f})",
                     f"{statistics.median(pairs):.2f}x ({gw / vw:.2f}x){each}",
                     f"`war generate {args} --games {n} -q`; `war validate DIR -q`"))
    return header, body


def worker_table(rows) -> tuple[list[str], list[tuple]]:
    header = ["command", "games", "1 worker: wall s (CPU s)", "2 workers: wall s (CPU s)",
              "2 workers against 1, wall: the median of the pairs",
              "start-up s (one game), and the most two workers reach with it: (s + P) / (s + P / 2)"]
    body = [(what, f"{n:,}", f"{w1:.1f} ({c1:.1f})", f"{w2:.1f} ({c2:.1f})", f"{statistics.median(pairs):.2f}x"
             + (f" (pairs {', '.join(f'{r:.2f}x' for r in pairs)})" if len(pairs) > 1 else ""),
             f"{start:.2f} s: {most:.2f}x")
            for what, n, w1, c1, w2, c2, pairs, start, most in rows]
    return header, body


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies every variant's game count")
    ap.add_argument("--runs", type=int, default=1, help="generate / validate pairs per variant (medians)")
    ap.add_argument("--workers-games", type=int, default=500_000,
                    help="Classic War games for two workers against one; about 1 s of start-up (Python, "
                         "pyarrow, numba) is paid by both, so fewer games lower the ratio (0: skip)")
    ap.add_argument("--only", action="append", help="only the variants whose name holds this (repeatable)")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} at the start", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        if args.scale > 0:
            print_table(*variant_table(variant_rows(Path(tmp), args.scale, args.runs, args.only)))
        if args.workers_games:
            print()
            print_table(*worker_table(worker_rows(Path(tmp), args.workers_games, args.runs)))
    print(f"load average {os.getloadavg()[0]:.1f} at the end", file=sys.stderr)


if __name__ == "__main__":
    main()
