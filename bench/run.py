"""Measure the rows of bench/README.md's table in one run: `python bench/run.py` (or `make bench`).

Rules for the speed comparisons: Classic War, 3 down, last_card_up, pickup=winner_first.
Prints Markdown tables: the rows, then every variant's validation against its generation and two
workers against one (bench/variants.py), then where generate's time goes (bench/stages.py).
`--big` also builds a 1,000,000-game dataset for the replay and memory rows (about as long as
generating a million games takes on this machine).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cores import two_cores  # noqa: E402
from measure import fresh, in_turn, measure, one_core, print_table, timed, timed_cpu, war  # noqa: E402

FAST_RULES = ["--variant", "classic", "--set", "pickup=winner_first"]


def write_deals(path: Path, games: int) -> None:
    """`games` explicit deals in JSON Lines: the deals the seeds of master seed 1 shuffle."""
    from pipeline.model.deal import deal_line, shuffled_deal
    from pipeline.model.rng import Xoshiro256, game_seed
    from pipeline.model.rules import build_rules

    rules = build_rules("classic")
    path.write_text("".join(deal_line(shuffled_deal(rules, Xoshiro256(game_seed(1, i)))) + "\n"
                            for i in range(games)))


def first_run_row(tmp: str) -> tuple[str, str, str]:
    """Row 9: the first `war demo` with an empty compile cache, and the next one."""
    with tempfile.TemporaryDirectory() as cache:
        cold = measure(war("demo", "--out", str(Path(tmp) / "demo")), {**os.environ, "NUMBA_CACHE_DIR": cache})
        warm = measure(war("demo", "--out", str(Path(tmp) / "demo")), {**os.environ, "NUMBA_CACHE_DIR": cache})
    return ("9. first war demo after installing (empty compile cache) / the next one",
            f"{cold.wall:.1f} s ({cold.user:.1f} s CPU) / {warm.wall:.1f} s ({warm.user:.1f} s CPU)",
            "NUMBA_CACHE_DIR=$(mktemp -d) war demo")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=500_000,
                    help="games for the speed figures; large enough that start-up (about 1 s: "
                         "imports and loading the compiled engine) weighs little")
    ap.add_argument("--baseline-games", type=int, default=200_000,
                    help="games for the baseline, whose rate has no start-up to amortise")
    ap.add_argument("--big", action="store_true", help="also a 1,000,000-game dataset")
    ap.add_argument("--variant-scale", type=float, default=1.0,
                    help="multiplies each variant's games in the generate / validate table (bench/variants.py; "
                         "0 leaves the table out)")
    ap.add_argument("--workers-games", type=int, default=500_000,
                    help="Classic War games for the table of two workers against one, as many as --games: about "
                         "1 s of start-up (Python, pyarrow, numba) is paid by both (0 leaves it out)")
    ap.add_argument("--stage-games", type=int, default=100_000,
                    help="games for the table of where generate's time goes (bench/stages.py; 0 leaves it out)")
    ap.add_argument("--runs", type=int, default=3,
                    help="runs in turn of the simulator and one worker (pinned to one core) and of one worker and two, "
                         "for rows 1 and 2, and pairs for the workers table (medians)")
    ap.add_argument("--variant-runs", type=int, default=5,
                    help="generate / validate pairs per variant in the table of row 5 (medians): each pair "
                         "lasts a few seconds, about a third of it start-up, and one pair's ratio moves by a "
                         "tenth or more on this machine")
    ap.add_argument("--no-first-run", action="store_true",
                    help="leave out row 9 (war demo with an empty compile cache: about a minute of compiling)")
    args = ap.parse_args()
    n = args.games
    rows = []

    from baseline import run as baseline_run

    nb = min(args.baseline_games, n)
    start = time.perf_counter()
    baseline_run(nb)
    base = nb / (time.perf_counter() - start)
    rows.append(("cycle-detecting baseline: pure-Python deque simulator with cycle detection, records nothing",
                 f"{base:,.0f} games/s",
                 f"python bench/baseline.py {nb}"))

    _, project_cpu, _ = timed_cpu([sys.executable, str(HERE / "idiomatic.py"), str(nb)])
    simulator = [sys.executable, str(HERE / "idiomatic.py"), str(n), "--deck", "splitmix"]

    with tempfile.TemporaryDirectory() as tmp:
        one, two = Path(tmp) / "one", Path(tmp) / "two"
        # Rows 1 and 2, `--runs` pairs taken in turn. Row 1: the idiomatic simulator (its
        # yardstick) and one worker, both on one pinned core, each pair's ratio taken from its own
        # two runs, minutes apart at most: the machine's speed moves by a third from one quarter
        # of an hour to the next. Row 2: one worker and two, unpinned, in wall time, each pair's
        # order alternating; the median of the pairs' own ratios, so a pair whose one side a
        # neighbour slowed counts as one pair; each run's host steal is printed. Beside each
        # pair, the machine's own two cores (bench/cores.py): the ceiling of row 2.
        generate = [*FAST_RULES, "--games", str(n), "--seed", "1", "-q"]
        core = one_core()
        sims, pinned, ones, twos, machine = [], [], [], [], []
        for i in range(args.runs):
            sims.append(measure(simulator, core=core).cpu)
            pinned.append(measure(war("generate", *generate, "--out", fresh(one), "--workers", "1"), core=core).cpu)
            for count, out, runs_of in in_turn(i, [("1", one, ones), ("2", two, twos)]):
                runs_of.append(measure(war("generate", *generate, "--out", fresh(out), "--workers", count)))
            machine.append(two_cores(i))
        idiomatic = n / statistics.median(sims)
        rows.append(("idiomatic simulator: deques, no cycle detection, records nothing (SplitMix64 deals / the "
                     "project's deals)", f"{idiomatic:,.0f} / {nb / project_cpu:,.0f} games/s of CPU",
                     f"python bench/idiomatic.py {n} --deck splitmix; python bench/idiomatic.py {nb}"))
        took1, cpu1 = statistics.median(r.wall for r in ones), statistics.median(pinned)
        took2 = statistics.median(r.wall for r in twos)
        runs = f", medians of {args.runs} in turn" if args.runs > 1 else ""
        against = [s / c for s, c in zip(sims, pinned)]
        pairs = f"; pairs {', '.join(f'{r:.2f}x' for r in against)}" if args.runs > 1 else ""
        g1 = n / took1
        rows.append(("1. war generate, full event log, 1 worker (target: 2.5x the idiomatic simulator in CPU)",
                     f"{g1:,.0f} games/s, {n / cpu1:,.0f} of CPU ({statistics.median(against):.2f}x the idiomatic "
                     f"simulator, each pair in turn on one pinned core{pairs}; {g1 / base:.2f}x the cycle-detecting "
                     f"baseline{runs})",
                     f"war generate {' '.join(FAST_RULES)} --games {n} --seed 1 --workers 1 -q"))
        games_only = Path(tmp) / "games_only"
        only = statistics.median(measure(war("generate", *generate, "--log", "games", "--out", fresh(games_only),
                                             "--workers", "1"), core=core).cpu for _ in range(args.runs))
        rows.append(("1b. war generate, the games table alone (--log games), 1 worker (target: 100,000 games/s "
                     "of CPU)", f"{n / only:,.0f} games/s of CPU, start-up included{runs}",
                     f"war generate {' '.join(FAST_RULES)} --games {n} --seed 1 --log games --workers 1 -q"))
        speedups = [w.wall / t.wall for w, t in zip(ones, twos)]
        each = ", ".join(f"{r:.2f}x (host steal {max(w.steal, t.steal):.0%}, the machine {m:.2f}x)"
                         for r, w, t, m in zip(speedups, ones, twos, machine))
        rows.append(("2. two workers (target: 1.85x one worker, wall)",
                     f"{n / took2:,.0f} games/s ({statistics.median(speedups):.2f}x one worker"
                     + (f", the median of {args.runs} pairs in turn; pairs {each}" if args.runs > 1 else "")
                     + ")", "... --workers 2"))
        rows.append(("2, its ceiling: this machine's two cores, two copies of a pure-Python loop against one",
                     f"{statistics.median(machine):.2f}x (pairs {', '.join(f'{m:.2f}x' for m in machine)})",
                     "python bench/cores.py"))
        default = Path(tmp) / "default"
        timed(war("generate", "--games", str(n), "--seed", "1", "--out", str(default), "-q", "--workers", "2"))
        size = sum(p.stat().st_size for p in default.rglob("*") if p.is_file())
        rows.append(("3. bytes a game on disk, default Classic War, all tables", f"{size / n:,.0f} bytes",
                     f"war generate --games {n} --seed 1; du -b"))
        took_help, _ = timed(war("--help"))
        rows.append(("4b. war --help", f"{took_help:.2f} s", "war --help"))
        tookv, _ = timed(war("validate", str(one), "-q"))
        rows.append(("5. war validate, 1 worker (each shard regenerated and compared)",
                     f"{n / tookv:,.0f} games/s ({took1 / tookv:.2f}x generate)", "war validate DIR -q"))
        for variant, games, extra in (("steal", min(max(n // 10, 200), 5_000),
                                       ["--tournament", "always", "--tournament", "never"]),
                                      ("arneson", min(max(n // 40, 100), 1_000), [])):
            out = Path(tmp) / variant
            took, _ = timed(war("generate", "--variant", variant, "--games", str(games), "--seed", "1",
                                "--out", str(out), "-q", *extra))
            total = games * (2 if extra else 1)
            size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
            tookv, _ = timed(war("validate", str(out), "-q"))
            rows.append((f"7. {variant} (decisions): generate / validate / bytes a game",
                         f"{total / took:,.0f} / {total / tookv:,.0f} games/s, {size / total:,.0f} bytes",
                         f"war generate --variant {variant} --games {games} {' '.join(extra)}"))
        # Steal War and Arneson's War on the compiled engine against the reference, in the same run.
        for row, variant, fast_games, reference_games in (
                ("7b", "steal", min(max(n // 5, 2_000), 100_000), min(max(n // 100, 500), 5_000)),
                ("7c", "arneson", min(max(n // 25, 1_000), 20_000), min(max(n // 500, 200), 1_000))):
            took_fast, _ = timed(war("generate", "--variant", variant, "--games", str(fast_games), "--seed", "1",
                                     "--out", str(Path(tmp) / f"{variant}_fast"), "-q"))
            took_ref, _ = timed(["env", "WAR_ENGINE=reference", *war("generate", "--variant", variant, "--games",
                                                                     str(reference_games), "--seed", "1", "--out",
                                                                     str(Path(tmp) / f"{variant}_ref"), "-q")])
            fast, ref = fast_games / took_fast, reference_games / took_ref
            rows.append((f"{row}. {variant}, compiled engine against the reference engine, 1 worker",
                         f"{fast:,.0f} against {ref:,.0f} games/s ({fast / ref:.1f}x)",
                         f"war generate --variant {variant} --games {fast_games} "
                         f"(WAR_ENGINE=reference: {reference_games})"))
        nd = min(n, 50_000)
        deals = Path(tmp) / "deals.jsonl"
        write_deals(deals, nd)
        took_seeded, _ = timed(war("generate", *FAST_RULES, "--games", str(nd), "--seed", "1", "--out",
                                   str(Path(tmp) / "seeded"), "-q"))
        took_dealt, _ = timed(war("generate", *FAST_RULES, "--deals", str(deals), "--seed", "1", "--out",
                                  str(Path(tmp) / "dealt"), "-q"))
        rows.append(("8. explicit deals (--deals), 1 worker", f"{nd / took_dealt:,.0f} games/s "
                     f"({took_seeded / took_dealt:.2f}x seeded games of the same rules)",
                     f"war generate {' '.join(FAST_RULES)} --deals deals.jsonl -q"))
        if not args.no_first_run:
            rows.append(first_run_row(tmp))
        if args.big:
            big = Path(tmp) / "big"
            big_run = measure(war("generate", "--games", "1000000", "--seed", "1", "--out", str(big), "-q",
                                  "--workers", "2"))
            tookb, rss = big_run.wall, big_run.peak_mb
            rows.append(("6. generate 1,000,000 games, peak RSS of a process", f"{rss:,.0f} MB ({tookb:,.0f} s)",
                         "war generate --games 1000000 --workers 2"))
            tookr, _ = timed(war("replay", str(big), "765432"))
            rows.append(("4a. war replay of one game of 1,000,000, process start to output", f"{tookr:.2f} s",
                         "war replay DIR 765432"))
        else:
            tookr, _ = timed(war("replay", str(one), str(n // 2)))
            rows.append((f"4a. war replay of one game of {n:,}, process start to output", f"{tookr:.2f} s",
                         f"war replay DIR {n // 2}"))

    print_table(["figure", f"measured ({os.cpu_count()} cores)", "command"],
                [(what, value, f"`{cmd}`") for what, value, cmd in rows])
    if args.variant_scale > 0 or args.workers_games:
        from variants import variant_rows, variant_table, worker_rows, worker_table

        with tempfile.TemporaryDirectory() as tmp:
            if args.variant_scale > 0:
                print()
                print_table(*variant_table(variant_rows(Path(tmp), args.variant_scale, args.variant_runs)))
            if args.workers_games:
                print()
                print_table(*worker_table(worker_rows(Path(tmp), args.workers_games, args.runs)))
    if args.stage_games:
        print()
        print(subprocess.run([sys.executable, str(HERE / "stages.py"), str(args.stage_games)], capture_output=True,
                             text=True, check=True).stdout, end="")
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
