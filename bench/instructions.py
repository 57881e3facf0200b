"""Instructions a game on the plain-Python path, counted by valgrind's callgrind: each variant's
games played by its reference engine into the arrays and encoded (`log.batches.reference_shard`,
as bench/plain_inproc.py times them), the count taken around that call alone (the imports,
the registry and a warm-up of 20 games left out). Why: on a shared host a CPU second moves by
10 - 20 % from minute to minute, and two variants' times a game, taken a minute apart, move with
it; an instruction count is the same from run to run (PYTHONHASHSEED fixed), so a change of a
few per cent, or one variant's cost against another's, reads at once. It is not a time: a
variant whose games touch more memory spends more time an instruction (Slap War's games are
about 1.05x dearer in CPU time than in instructions, against Classic War's).

    python bench/instructions.py [VARIANT ...] [--games N] [--source DIR]

VARIANTs default to classic and slap (the example plugins installed as tests/conftest.py
installs them); `--games` [200] each, seeds 100 on; `--source DIR` counts another checkout
(its `pipeline` and examples), for a before/after. Needs valgrind (Debian's `valgrind`); about
a minute, most of it the imports under valgrind.
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

# run inside valgrind: instrumentation off until the games start, on for them, then dumped
CHILD = r"""
import os, subprocess, sys
from pathlib import Path
from pipeline import testing
for example in sys.argv[3:]:
    testing.install(Path(example))
from pipeline.frontend import pyarrow_without_pandas
from pipeline.jobs.parallel import reuse_freed_memory
from pipeline.log.batches import reference_shard
from pipeline.model.rules import build_rules
pyarrow_without_pandas()
reuse_freed_memory()
variants, games = sys.argv[1].split(","), int(sys.argv[2])
rules = {v: build_rules(v, {}) for v in variants}
for v in variants:
    reference_shard(rules[v], 0, 1, 0, 20)
for v in variants:
    subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], capture_output=True, check=True)
    reference_shard(rules[v], 0, 1, 100, 100 + games)
    subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], capture_output=True, check=True)
    subprocess.run(["callgrind_control", "-d", v, str(os.getpid())], capture_output=True, check=True)
"""


def count(variants: list[str], games: int, source: Path) -> dict[str, int]:
    """Instructions of each variant's `games` games, in one valgrind run of this interpreter."""
    examples = [str(p) for p in sorted((source / "examples").glob("war-*"))]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg"
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(source)}
        # the real interpreter (not a shim script, whose exec valgrind would not follow)
        subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}.%p",
                        os.path.realpath(sys.executable), "-c", CHILD, ",".join(variants), str(games), *examples],
                       env=env, cwd=tmp, check=True, capture_output=True)
        counted = {}
        for dump in Path(tmp).glob("cg.*"):
            text = dump.read_text(encoding="utf-8", errors="replace")
            trigger = re.search(r"^desc: Trigger: dump (\S+)", text, re.M)
            total = re.search(r"^totals: (\d+)", text, re.M)
            if trigger and total:
                counted[trigger.group(1)] = int(total.group(1))
    return counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", default=["classic", "slap"])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--source", type=Path, default=ROOT)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    counted = count(args.variants, args.games, args.source.resolve())
    first = counted[args.variants[0]]
    for variant in args.variants:
        per_game = counted[variant] / args.games
        against = f"; {counted[variant] / first:.2f}x {args.variants[0]}'s" if variant != args.variants[0] else ""
        print(f"{variant}: {per_game / 1e6:,.2f} million instructions a game ({args.games} games){against}")


if __name__ == "__main__":
    main()
