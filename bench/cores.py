"""What this machine itself gives two processes over one: a pure-Python loop (no memory, no
files, nothing shared) run alone, then two copies side by side, and the ratio of the work done
per second, `python bench/cores.py [PAIRS]`.

This is the ceiling of row 2 (two workers against one): two processes that share nothing and
never wait for each other. On a machine whose two cores are truly its own it reads 2.00x; on a
shared host it reads less whenever the hypervisor slows a core that both processes keep busy.
`bench/run.py` measures it beside each of row 2's pairs, in the same minutes."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import in_turn, side_by_side  # noqa: E402

LOOP = "x = 0\nfor i in range(30_000_000):\n    x += i & 7\n"   # a few seconds alone


def two_cores(i: int = 0) -> float:
    """One pair (its order alternating with `i`): the loop alone, then two copies side by side,
    each timed the same way; 2 x the alone time over the side-by-side time."""
    cmd = [sys.executable, "-c", LOOP]
    walls = {copies: side_by_side(cmd, copies) for copies in in_turn(i, [1, 2])}
    return 2 * walls[1] / walls[2]


if __name__ == "__main__":
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    ratios = [two_cores(i) for i in range(pairs)]
    print(f"two copies of a pure-Python loop against one: {statistics.median(ratios):.2f}x "
          f"(pairs {', '.join(f'{r:.2f}x' for r in ratios)})")
