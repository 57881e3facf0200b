"""Instructions a game on the plain-Python path, counted by valgrind's callgrind: each variant's
games played by its reference engine into the arrays and encoded (`log.batches.reference_shard`,
as bench/plain_inproc.py times them), the count taken around that call alone (the imports,
the registry and a warm-up of 20 games left out). Why: on a shared host a CPU second moves by
10 - 20 % from minute to minute, and two variants' times a game, taken a minute apart, move with
it; an instruction count is the same from run to run (PYTHONHASHSEED fixed, and events
collected only inside the counted call, under operator.call: switching instrumentation on and
off from outside, as before, let a count move by up to 1 % with what ran meanwhile; it now stays
on, and the imports take longer), so a change of a tenth of a per cent reads at once, the same
games counted before and after. Needs a Python whose symbols valgrind can read (pyenv's builds;
not a stripped one). One variant's cost against another's is only as good as the two samples: a game's length varies about 0.8 of its mean, so
200 games' mean is off the long run's by 6 % or so, and a ratio by as much (200 games gave
Slap War 1.90x Classic War's, 3,000 gave 2.11x). Each count says its sample's mean battles
beside the long run's; for a ratio, count 3,000 games (about 20 minutes). It is not a time: a
variant whose games touch more memory spends more time an instruction (Slap War's games are
about 1.05x dearer in CPU time than in instructions, against Classic War's).

    python bench/instructions.py [VARIANT ...] [--games N] [--source DIR] [--commands]

VARIANTs default to classic and slap (the example plugins installed as tests/conftest.py
installs them); `--games` [200] each, seeds 100 on; `--source DIR` counts another checkout
(its `pipeline` and examples), for a before/after. Needs valgrind (Debian's `valgrind`); about
a minute, most of it the imports under valgrind. `--commands` counts the whole of
`war.generate` and of `war.validate` of N games instead (one worker, WAR_ENGINE=reference,
master seed 100, games 0 .. N-1: other games than the default's; each after a warm-up of 20
games, and each figure a game holding the command's fixed costs too, a share that only a few
hundred games and more make small): the shard's play, its encoding and Parquet files, the
manifest, and validate's reading and comparing, the figures issue 52 sets, less start-up only.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# mean battles a game, from samples far larger than a count's: `war generate -v classic --games
# 1000000 --seed 7 --log games` (compiled engine, the same games) gives 270.4 (standard error
# 0.2); Slap War, WAR_ENGINE=reference, `--games 30000 --seed 7`, 740.4 (3.5). A count's sample
# of a few hundred games differs from these by several per cent (a game's length varies about
# 0.8 of its mean), which moves a ratio of two variants' counts by as much: each count says its
# sample's mean beside these.
LONG_RUN_BATTLES = {"classic": 270.4, "slap": 740.4}

TOGGLE = "_operator_call"  # the C function of operator.call, inside which alone events are collected

# run inside valgrind, both ways: the examples installed, the rule sets made, and `counted`: a
# call's events, collected only inside operator.call (`--toggle-collect`), then dumped under its
# name. Instrumentation stays on throughout (switching it on from outside, at callgrind_control's
# own pace, lets a count move with what ran meanwhile): two runs give the same count.
PROLOGUE = r"""
import operator, os, subprocess, sys
from pathlib import Path
from pipeline import testing
for example in sys.argv[3:]:
    testing.install(Path(example))
from pipeline.frontend import pyarrow_without_pandas
from pipeline.jobs.parallel import reuse_freed_memory
from pipeline.model.rules import build_rules
pyarrow_without_pandas()
reuse_freed_memory()
variants, games = sys.argv[1].split(","), int(sys.argv[2])
rules = {v: build_rules(v, {}) for v in variants}

def counted(name, call):
    done = operator.call(call)  # collected inside this call alone (--toggle-collect)
    subprocess.run(["callgrind_control", "-d", name, str(os.getpid())], capture_output=True, check=True)
    return done
"""

# the play alone: reference_shard of each variant's games
CHILD = PROLOGUE + r"""
from pipeline.log.batches import reference_shard
for v in variants:
    reference_shard(rules[v], 0, 1, 0, 20)
for v in variants:
    played = counted(v, lambda: reference_shard(rules[v], 0, 1, 100, 100 + games))
    battles = played[1].column("battles").to_pylist()
    print(f"BATTLES {v} {sum(battles) / len(battles)}", file=sys.stderr)
"""

# --commands: `war generate` and `war validate` as the library runs them (one worker), each
# counted around its own call after a warm-up of both; what a command costs less its start-up
COMMANDS_CHILD = PROLOGUE + r"""
import atexit, shutil, tempfile
import pipeline as war
os.environ["WAR_ENGINE"] = "reference"
work = Path(tempfile.mkdtemp(prefix="war-instructions-"))
atexit.register(shutil.rmtree, work, ignore_errors=True)
for v in variants:
    war.generate(work / f"warm-{v}", [war.Plan(rules[v], 20)], seed=1)
    assert war.validate(work / f"warm-{v}").ok
for v in variants:
    out = work / v
    counted(f"{v}.generate", lambda: war.generate(out, [war.Plan(rules[v], games)], seed=100))
    report = counted(f"{v}.validate", lambda: war.validate(out))
    assert report.ok and report.games_checked == games, report.summary()
    mean = war.query(out, "select avg(battles) from games").column(0)[0].as_py()
    print(f"BATTLES {v} {mean}", file=sys.stderr)
"""


def count(variants: list[str], games: int, source: Path, child: str = CHILD) -> tuple[dict[str, int], dict[str, float]]:
    """Instructions of each variant's `games` games, in one valgrind run of this interpreter
    (`child`: what it runs, each count dumped under its own name), and each variant's mean
    battles a game in them."""
    examples = [str(p) for p in sorted((source / "examples").glob("war-*"))]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg"
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(source)}
        # the real interpreter (not a shim script, whose exec valgrind would not follow)
        ran = subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                              f"--toggle-collect={TOGGLE}", f"--callgrind-out-file={out}.%p",
                        os.path.realpath(sys.executable), "-c", child, ",".join(variants), str(games), *examples],
                       env=env, cwd=tmp, check=True, capture_output=True)
        counted = {}
        for dump in Path(tmp).glob("cg.*"):
            text = dump.read_text(encoding="utf-8", errors="replace")
            trigger = re.search(r"^desc: Trigger: dump (\S+)", text, re.M)
            total = re.search(r"^totals: (\d+)", text, re.M)
            if trigger and total:
                counted[trigger.group(1)] = int(total.group(1))
        if not counted or not all(counted.values()):
            raise SystemExit(f"callgrind counted nothing inside {TOGGLE}: this Python's symbols are not "
                             f"there (a stripped build); count with a Python built with them (pyenv's are)")
        battles = {m.group(1): float(m.group(2))
                   for m in re.finditer(r"^BATTLES (\S+) (\S+)$", ran.stderr.decode(errors="replace"), re.M)}
    return counted, battles


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", default=["classic", "slap"])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--source", type=Path, default=ROOT)
    parser.add_argument("--commands", action="store_true",
                        help="count war.generate and war.validate of the games, each whole, not the play alone")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    if args.commands:
        counted, battles = count(args.variants, args.games, args.source.resolve(), COMMANDS_CHILD)
        steps = ["generate", "validate"]
    else:
        played, battles = count(args.variants, args.games, args.source.resolve())
        counted = {f"{v}.play": n for v, n in played.items()}
        steps = ["play"]
    print("mean battles a game in the sample: " + ", ".join(f"{v} {battles[v]:,.1f}" for v in args.variants)
          + "; the long run's (LONG_RUN_BATTLES): " + ", ".join(
              f"{v} {LONG_RUN_BATTLES[v]:,.1f}" for v in args.variants if v in LONG_RUN_BATTLES))
    for step in steps:
        first = counted[f"{args.variants[0]}.{step}"]
        for variant in args.variants:
            n = counted[f"{variant}.{step}"]
            against = f"; {n / first:.2f}x {args.variants[0]}'s" if variant != args.variants[0] else ""
            what = "" if step == "play" else f" {step}"
            print(f"{variant}{what}: {n / args.games / 1e6:,.3f} million instructions a game "
                  f"({args.games} games){against}")


if __name__ == "__main__":
    main()
