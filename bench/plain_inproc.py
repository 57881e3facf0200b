"""The plain-Python path in one process, no start-up: `log.batches.reference_shard` of a
variant's games (the engine, the arrays, the encoder), CPU seconds (time.process_time), the
examples installed as tests/conftest.py installs them (issue 52, item 4).

    python bench/plain_inproc.py VARIANT [--games N] [--runs R] [--set K=V] [--profile FILE]
           [--digest]

Prints games per CPU second of each run; `--profile FILE` writes cProfile's stats of the last
run; `--digest` prints the SHA-256 of the tables' Arrow IPC bytes (the same games, the same
digest). Run it pinned (`taskset -c 1`) and alternate with another checkout (`PYTHONPATH=DIR`)
for a before/after."""

from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--set", action="append", default=[])
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
    rules = build_rules(args.variant, dict(s.split("=", 1) for s in args.set))
    reference_shard(rules, 0, 1, 0, 20)  # warm: the encoder's machine code, the tables
    for run in range(args.runs):
        profiler = None
        if args.profile and run == args.runs - 1:
            import cProfile
            profiler = cProfile.Profile()
            profiler.enable()
        began = time.process_time()
        events, games, _ = reference_shard(rules, 0, 1, 0, args.games)
        spent = time.process_time() - began
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        print(f"{args.variant} {' '.join(args.set)}: {args.games / spent:,.0f} games/s of CPU ({spent:.3f} s)",
              flush=True)
    if args.digest:
        import pyarrow as pa
        for name, table in (("events", events), ("games", games)):
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, table.schema) as writer:
                writer.write_table(table)
            print(name, hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest())


if __name__ == "__main__":
    main()
