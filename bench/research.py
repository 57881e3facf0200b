"""The research figures (issue 43): every deal of the 16-card open game against the field's C++
engine, per core; the same on two workers, wall; 52-card random open games with cycle detection,
per core; and the size of `--log counts`.

    python bench/research.py --cpp /path/to/explore [--pairs 3]

`--cpp` is the C++ program of legrosbuffle/bataille_cpp built on this machine (`make explore`
in a temporary folder; it has no licence, so none of its code is in this project). Each pair
runs, on one pinned core, `./explore exhaustive natural 4 4` (the first half of the ordered
deals in lexicographic order: 31,531,501 games) and `war generate ... --all-deals --log counts
--workers 1` (every ordered deal, 63,063,000, from one deal of each of the 31,532,760 classes it
plays), in alternating order; each one's games a second of CPU is the games it played over its
process's CPU, start-up included. Without `--cpp` the C++ rows are left out.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import fresh, measure, one_core, war  # noqa: E402

FOUR_BY_FOUR = ["--set", "ranks=4", "--set", "suits=4", "--set", "pickup=natural", "--set", "war_down=0"]
CPP_GAMES = 31_531_501     # what `explore exhaustive natural 4 4` plays (its own count)
WAR_GAMES = 31_532_760     # the classes of the 16-card deck: the deals war plays for 63,063,000
RANDOM_GAMES = 2_000_000


def per_core(cpp: Path | None, pairs: int, tmp: Path) -> None:
    core = one_core()
    rows = []
    for i in range(pairs):
        order = ("war", "cpp") if i % 2 == 0 else ("cpp", "war")
        got = {}
        for who in order:
            if who == "war":
                out = fresh(tmp / "w44")
                m = measure(war("generate", *FOUR_BY_FOUR, "--all-deals", "--log", "counts", "--workers", "1",
                                "--out", out, "-q"), core=core)
                got[who] = WAR_GAMES / m.cpu
            elif cpp is not None:
                m = measure([str(cpp), "exhaustive", "natural", "4", "4"], cwd=tmp, core=core)
                got[who] = CPP_GAMES / m.cpu
        rows.append(got)
        said = ", ".join(f"{k} {v / 1e6:.2f} M games/s of CPU" for k, v in got.items())
        print(f"pair {i + 1}: {said}" + (f"; war / C++ {got['war'] / got['cpp']:.2f}x" if "cpp" in got else ""))
    war_rate = statistics.median(r["war"] for r in rows)
    print(f"4x4 natural open play, every deal, one pinned core: war {war_rate / 1e6:.2f} M games/s of CPU")
    if cpp is not None:
        ratio = statistics.median(r["war"] / r["cpp"] for r in rows)
        print(f"  C++ {statistics.median(r['cpp'] for r in rows) / 1e6:.2f} M games/s of CPU; war / C++ {ratio:.2f}x")


def two_workers(tmp: Path) -> None:
    out = fresh(tmp / "w44x2")
    m = measure(war("generate", *FOUR_BY_FOUR, "--all-deals", "--log", "counts", "--workers", "2", "--out", out, "-q"))
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"4x4 every deal, exact answers, 2 workers: {m.wall:.1f} s wall ({m.cpu:.1f} s CPU), "
          f"the dataset {size / 1e3:.0f} KB")


def random_open_games(tmp: Path) -> None:
    out = fresh(tmp / "r52")
    m = measure(war("generate", "--set", "pickup=natural", "--set", "war_down=0", "--games", RANDOM_GAMES,
                    "--log", "games", "--workers", "1", "--seed", "1", "--out", out, "-q"), core=one_core())
    print(f"52-card open game, natural, random deals with cycle detection, games table: "
          f"{RANDOM_GAMES / m.cpu:,.0f} games/s of CPU on one core, start-up included ({m.wall:.1f} s wall)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpp", type=Path, help="the C++ explore program, built")
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        per_core(args.cpp.resolve() if args.cpp else None, args.pairs, tmp)
        two_workers(tmp)
        random_open_games(tmp)


if __name__ == "__main__":
    main()
