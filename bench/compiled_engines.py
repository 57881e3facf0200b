"""The compiled engines (pipeline/engines/<family>/compiled.py, built on pipeline/engines/compiled)
against the reference engines, and what compiling them costs.

    python bench/compiled_engines.py sweep [RULE_SETS] [GAMES]   # random table rule sets: the two engines' tables must be equal
    python bench/compiled_engines.py speed [GAMES] [--quick]     # games/s: reference (--quick: 2,000 games), compiled engine, and with Arrow
    python bench/compiled_engines.py deals [GAMES]               # games/s: explicit deals against seeded games, same rules
    python bench/compiled_engines.py compile                     # CPU seconds compiling each entry point, cold cache, one process
    python bench/compiled_engines.py warm                        # wall seconds of a first run's compile (log.warm), per build
    python bench/compiled_engines.py session [alone]             # a first session's builds, one after another (alone: no helper)
    python bench/compiled_engines.py phases [ENGINE] [positions] # where one build's cold compile goes (default: table)

sweep, speed and deals play the table family (Classic War and its variants). Speeds are CPU time
of this process (time.process_time), so other work on the machine disturbs them less; the
compiled engine is warmed up (compiled, or loaded from numba's cache) before timing.
"""

from __future__ import annotations

import random
import sys
import time

from pipeline.engines.table.compiled import play_arrays
from pipeline.errors import RulesError
from pipeline.log.compiled import build_tables
from pipeline.log.shard import play_range, play_range_fast
from pipeline.log.tables import events_table, games_table
from pipeline.model.rules import build_rules
from pipeline.model.variants import VARIANTS

TABLE_VARIANTS = [name for name, spec in VARIANTS.items() if spec.family == "table"]


def random_rules(r: random.Random):
    while True:
        name = r.choice(TABLE_VARIANTS)
        spec = VARIANTS[name]
        choices = {
            "players": lambda: str(r.choice([2, 2, 3, 4, 5, 8])),
            "jokers": lambda: r.choice(["0", "2"]),
            "war_down": lambda: r.choice(["0", "1", "2", "3", "5", "by_rank"]),
            "ace_value": lambda: r.choice(["1", "11", "14"]),
            "war_tiebreak": lambda: r.choice(["repeat", "single_up"]),
            "shortfall": lambda: r.choice(["last_card_up", "lose"]),
            "pickup": lambda: r.choice(["shuffled", "table_order", "winner_first", "pooled"]),
            "ranks": lambda: str(r.choice([1, 2, 3, 5, 8, 13])),
            "suits": lambda: str(r.choice([1, 2, 4, 6, 9])),
            "win": lambda: r.choice(["all_cards", "all_cards", "wars:1", "wars:3"]),
            "max_battles": lambda: r.choice(["30", "500", "10000"]),
        }
        options = {k: f() for k, f in choices.items() if k in spec.options and r.random() < 0.4}
        try:
            return build_rules(name, options)
        except RulesError:
            continue


def sweep(rule_sets: int, games: int) -> int:
    r = random.Random(2024)
    bad = 0
    t0 = time.perf_counter()
    for i in range(rule_sets):
        rules = random_rules(r)
        seed, start = r.randrange(2**64), r.randrange(10**6)
        ids, logs, records = play_range(rules, i % 4, seed, start, start + games)
        ev, gm = play_range_fast(rules, i % 4, seed, start, start + games)
        if not (ev.equals(events_table(ids, logs)) and gm.equals(games_table(records))):
            bad += 1
            print(f"DIFFERENT: {rules.model_dump_json()} seed={seed} start={start}")
    print(f"{rule_sets} rule sets x {games} games: {bad} different, {time.perf_counter() - t0:.1f} s")
    return bad


def speed(games: int) -> None:
    for label, options in (("classic (pickup=shuffled)", {}), ("classic pickup=winner_first",
                                                               {"pickup": "winner_first"})):
        rules = build_rules("classic", options)
        play_range_fast(rules, 0, 42, 0, 10)  # compile / load the cache
        ref_games = games if "--quick" not in sys.argv else min(games, 2000)
        t = time.process_time()
        play_range(rules, 0, 42, 0, ref_games)
        ref = ref_games / (time.process_time() - t)
        engine_time = arrow_time = 0.0
        for start in range(0, games, 2000):  # shards of 2,000 games, as generate does
            stop = min(start + 2000, games)
            t = time.process_time()
            arrays = play_arrays(rules, 42, start, stop)
            engine_time += time.process_time() - t
            t = time.process_time()
            build_tables(rules, 0, start, stop, arrays)
            arrow_time += time.process_time() - t
        print(f"{label}: reference {ref:,.0f} games/s ({ref_games} games); compiled engine "
              f"{games / engine_time:,.0f} games/s; with the encoder and Arrow tables "
              f"{games / (engine_time + arrow_time):,.0f} games/s ({games} games)")


def deals(games: int) -> None:
    """Explicit deals (the same deals the seeds shuffle, read from JSON Lines as `--deals` reads
    them) against seeded games: shard_tables, 2,000-game shards, CPU time."""
    import json
    import tempfile
    from pathlib import Path

    from pipeline.log.shard import shard_tables
    from pipeline.model.deal import deal_line, read_deals, shuffled_deal
    from pipeline.model.rng import Xoshiro256, game_seed

    for options in ({}, {"pickup": "winner_first"}):
        rules = build_rules("classic", options)
        shard_tables(rules, 0, 42, 0, 10)  # compile / load the cache
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "deals.jsonl"
            path.write_text("".join(deal_line(shuffled_deal(rules, Xoshiro256(game_seed(42, i)))) + "\n"
                                    for i in range(games)))
            t = time.process_time()
            dealt = read_deals(path, rules)
            read = time.process_time() - t
        figures = {}
        for label, given in (("seeded", None), ("explicit deals", dealt)):
            t = time.process_time()
            for start in range(0, games, 2000):
                stop = min(start + 2000, games)
                shard_tables(rules, 0, 42, start, stop, given[start:stop] if given else None)
            figures[label] = time.process_time() - t
        print(f"classic {json.dumps(options)}: seeded {games / figures['seeded']:,.0f} games/s; explicit deals "
              f"{games / figures['explicit deals']:,.0f} games/s, {games / (figures['explicit deals'] + read):,.0f} "
              f"with reading the file ({games} games)")


def in_empty_cache(code: str, *args: str) -> None:
    """Run `code` (with `args`) in a fresh Python process whose numba cache starts empty."""
    import os
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        subprocess.run([sys.executable, "-c", code, *args], check=True, env={**os.environ, "NUMBA_CACHE_DIR": cache})


def compile_times() -> None:
    """Cold compile of each entry point of the compiled engine, encoder and checks, in a fresh
    process with an empty numba cache: CPU seconds, each including the functions it calls."""
    code = """
import time
from numba.core import event
from pipeline.log.batches import compiled_shard
from pipeline.model.rules import build_rules
top = {}
depth = []
class Listener(event.Listener):
    def on_start(self, e):
        depth.append(time.process_time())
    def on_end(self, e):
        took = time.process_time() - depth.pop()
        if not depth:
            name = e.data["dispatcher"].py_func.__name__
            top[name] = top.get(name, 0) + took
event.register("numba:compile", Listener())
start = time.process_time()
compiled_shard(build_rules("classic"), 0, 42, 0, 10, check_balance=True)
for name, took in top.items():
    print(f"{name}: {took:.1f} s")
print(f"all: {time.process_time() - start:.1f} s CPU")
"""
    in_empty_cache(code)


def warm_times() -> None:
    """Wall seconds of a first run's compile (log.warm, with its helper process), build by
    build (one a family), each in a fresh process with an empty numba cache: what
    log.warm.compile_estimate announces (each family's Warm.seconds)."""
    from pipeline.engines.compiled.jit.warm import all_builds

    code = """
import sys, time
from pipeline.log.warm import warm
build = (sys.argv[1], sys.argv[2] == "True")
start = time.perf_counter()
warm(validation=True, engines=(build,))
print(f"{build}: {time.perf_counter() - start:.1f} s wall")
"""
    for name, positions in all_builds():
        in_empty_cache(code, name, str(positions))


def session_times(alone: bool = False) -> None:
    """Wall seconds of a newcomer's first session's compiles, without its commands' work: the
    builds of `war demo` (with the checks validation runs), a fixed pickup, Steal War and
    Arneson's War, each warmed (log.warm) in a fresh process, one after another, on one numba
    cache that starts empty (a build an earlier one compiled loads). `alone`: without the helper
    process, so one process compiles all (what the helper saves)."""
    import os
    import subprocess
    import tempfile

    code = """
import sys, time
import pipeline.log.warm as warm
from pipeline.engines.compiled.jit.warm import engines_for
from pipeline.model.rules import build_rules
if sys.argv[1] == "alone":
    def no_helper(*args, **kwargs):
        raise OSError
    warm.Helper = no_helper
rules = build_rules(sys.argv[2], dict(option.split("=") for option in sys.argv[4:]))
start = time.perf_counter()
warm.warm(validation=sys.argv[3] == "True", engines=engines_for([rules]))
print(f"{time.perf_counter() - start:.2f}")
"""
    session = [("war demo", "classic", True, []), ("a fixed pickup", "classic", False, ["pickup=winner_first"]),
               ("Steal War", "steal", False, []), ("Arneson's War", "arneson", False, [])]
    total = 0.0
    with tempfile.TemporaryDirectory() as cache:
        for name, variant, validation, options in session:
            out = subprocess.run([sys.executable, "-c", code, "alone" if alone else "shared", variant, str(validation),
                                  *options], check=True, capture_output=True, text=True,
                                 env={**os.environ, "NUMBA_CACHE_DIR": cache}).stdout
            total += float(out)
            print(f"{name}: {float(out):.2f} s wall")
    print(f"all: {total:.2f} s wall" + (" (one process)" if alone else ""))


def phase_times(engine: str, positions: bool | None = None) -> None:
    """Where a cold compile of one build of a compiled engine (table, steal or arneson; with
    positions, or by default without them when the engine has that build) goes, in a fresh
    process with an empty numba cache, CPU seconds: its called steps (what a first run's two
    processes share, here in one process), then its games; for each function that took 0.1 s or more,
    numba's costliest passes (its own timers) and LLVM's three stages (function passes as each
    function's IR is added, module passes once the functions it calls are linked in, machine
    code). A function's numba passes include the compile of what it calls that was not compiled
    yet (play_games' type inference holds play_game's whole compile); LLVM's stages are its
    own. They are timed by wrapping numba's CPUCodeLibrary methods, which are not a public
    API: a numba upgrade may move them."""
    code = """
import collections, sys, time
import numba.core.codegen as codegen
llvm = collections.defaultdict(float)
def timed(name, stage):
    original = getattr(codegen.CPUCodeLibrary, name)
    def wrapper(self, *args, **kwargs):
        start = time.process_time()
        try:
            return original(self, *args, **kwargs)
        finally:
            llvm[self.name.rsplit(".", 1)[-1], stage] += time.process_time() - start
    setattr(codegen.CPUCodeLibrary, name, wrapper)
for name, stage in (("add_llvm_module", "function passes"), ("_optimize_final_module", "module passes"),
                    ("_finalize_final_module", "machine code")):
    timed(name, stage)
from pipeline.engines.choice import ENGINES
from pipeline.engines.compiled.jit.warm import compile_steps_of, warm_rules
from pipeline.model.rules import build_rules
build = (sys.argv[1], sys.argv[2] == "True")
start = time.process_time()
compile_steps_of([build])
steps = time.process_time()
ENGINES[build[0]].play_arrays(warm_rules(build), 0, 0, 1)
games = time.process_time()
print(f"{build}: steps {steps - start:.2f} s, games {games - steps:.2f} s CPU")
module = ENGINES[build[0]]
for d in [*module.STEPS, module.play_game, module.play_games]:
    for sig in d.signatures:
        passes = d.get_metadata(sig)["pipeline_times"]["nopython"]
        total = sum(p.run for p in passes.values())
        if total < 0.1:
            continue
        top = sorted(((p.run, name.split("_", 1)[1]) for name, p in passes.items()), reverse=True)[:4]
        name = d.py_func.__name__
        stages = ", ".join(f"{stage} {llvm[name, stage]:.2f}" for stage in
                           ("function passes", "module passes", "machine code"))
        print(f"  {name}: numba's passes {total:.2f} s (" + ", ".join(f"{n} {t:.2f}" for t, n in top)
              + f"); LLVM {stages}")
"""
    from pipeline.engines.compiled.jit.warm import all_builds

    if positions is None:
        positions = (engine, False) not in all_builds()
    in_empty_cache(code, engine, str(positions))


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "speed"
    if what == "sweep":
        n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
        g = int(sys.argv[3]) if len(sys.argv) > 3 else 20
        sys.exit(1 if sweep(n, g) else 0)
    counts = [a for a in sys.argv[2:] if a.isdigit()]
    if what == "compile":
        compile_times()
    elif what == "warm":
        warm_times()
    elif what == "session":
        session_times("alone" in sys.argv[2:])
    elif what == "phases":
        phase_times(sys.argv[2] if len(sys.argv) > 2 else "table", True if "positions" in sys.argv[3:] else None)
    elif what == "deals":
        deals(int(counts[0]) if counts else 20_000)
    else:
        speed(int(counts[0]) if counts else 20_000)
