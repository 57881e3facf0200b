"""The plain-Python path in one process, no start-up: `log.batches.reference_shard` of each
variant's games (the engine, the arrays, the encoder), CPU seconds (time.process_time), the
examples installed as tests/conftest.py installs them (issue 52, item 4).

    python bench/plain_inproc.py VARIANT [VARIANT ...] [--games N] [--runs R] [--set K=V]
           [--yardstick G] [--profile FILE] [--digest]

Each run plays every VARIANT in turn (`--set` applies to all of them) and prints games per CPU
second. `--yardstick G` also plays G games of the idiomatic simulator (bench/idiomatic.py,
SplitMix64 deals, nothing recorded) at the start of each run, and prints each variant's rate as
a share of the simulator's: figures taken side by side within seconds on the same core, so
they hold on a machine whose core speed moves from minute to minute, where a rate alone does
not. The summary gives the medians over the runs, each variant's rate at the simulator's speed
when issue 52 was filed (SIMULATOR_AT_FILING) and each variant's time a game against the first
variant's. `--profile FILE` writes cProfile's stats of the last run's first variant; `--digest`
prints the SHA-256 of the last variant's tables' Arrow IPC bytes (the same games, the same
digest). Run it pinned (`taskset -c 1`), and alternate with another checkout (`PYTHONPATH=DIR`)
for a before/after."""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time
from pathlib import Path

import idiomatic
from measure import SIMULATOR_AT_FILING

ROOT = Path(__file__).resolve().parent.parent


def simulator_rate(games: int) -> float:
    """Games per CPU second of bench/idiomatic.py's simulator on SplitMix64 deals."""
    began = time.process_time()
    idiomatic.run(games, 1, "splitmix")
    return games / (time.process_time() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--set", action="append", default=[])
    parser.add_argument("--yardstick", type=int, default=0, metavar="G")
    parser.add_argument("--profile", type=Path)
    parser.add_argument("--digest", action="store_true")
    args = parser.parse_args()

    import pipeline
    from pipeline import testing

    root = Path(pipeline.__file__).resolve().parent.parent
    print(f"war from {root}", flush=True)
    for name in ("war-slap", "war-trump"):
        if (root / "examples" / name).exists():
            testing.install(root / "examples" / name)
    from pipeline.frontend import pyarrow_without_pandas
    from pipeline.jobs.parallel import reuse_freed_memory
    from pipeline.log.batches import reference_shard
    from pipeline.model.rules import build_rules

    pyarrow_without_pandas()  # as a war command does
    reuse_freed_memory()
    options = dict(s.split("=", 1) for s in args.set)
    rule_sets = {variant: build_rules(variant, options) for variant in args.variants}
    for rules in rule_sets.values():
        reference_shard(rules, 0, 1, 0, 20)  # warm: the encoder's machine code, the tables
    if args.yardstick:
        simulator_rate(min(args.yardstick, 200))
    rates: dict[str, list[float]] = {name: [] for name in ["simulator", *args.variants]}
    for run in range(args.runs):
        if args.yardstick:
            rates["simulator"].append(simulator_rate(args.yardstick))
        for variant, rules in rule_sets.items():
            profiler = None
            if args.profile and run == args.runs - 1 and variant == args.variants[0]:
                import cProfile
                profiler = cProfile.Profile()
                profiler.enable()
            began = time.process_time()
            events, games, _ = reference_shard(rules, 0, 1, 0, args.games)
            spent = time.process_time() - began
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(args.profile)
            rates[variant].append(args.games / spent)
        print(f"run {run + 1}: " + ", ".join(f"{name} {r[-1]:,.0f}" for name, r in rates.items() if r)
              + " games/s of CPU" + (" (" + ", ".join(
                  f"{v} {rates[v][-1] / rates['simulator'][-1]:.3f}" for v in args.variants) + " of the simulator)"
                  if args.yardstick else ""), flush=True)
    first = args.variants[0]
    print(f"median of {args.runs} runs, {args.games} games, {' '.join(args.set) or 'default options'}:")
    for variant in args.variants:
        line = f"  {variant}: {statistics.median(rates[variant]):,.0f} games/s of CPU"
        if args.yardstick:
            share = statistics.median(r / s for r, s in zip(rates[variant], rates["simulator"]))
            line += f", {share:.3f} of the simulator = {share * SIMULATOR_AT_FILING:,.0f} at its filing speed"
        if variant != first:
            line += f"; {statistics.median(f / r for f, r in zip(rates[first], rates[variant])):.2f}x {first}'s time a game"
        print(line)
    if args.yardstick:
        print(f"  simulator: {statistics.median(rates['simulator']):,.0f} games/s of CPU "
              f"({SIMULATOR_AT_FILING:,} when issue 52 was filed)")
    if args.digest:
        import pyarrow as pa
        for name, table in (("events", events), ("games", games)):
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, table.schema) as writer:
                writer.write_table(table)
            print(name, hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest())


if __name__ == "__main__":
    main()
