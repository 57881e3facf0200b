"""`war replay` of long games: `python bench/replay.py` (bench/README.md, "Replay").

Builds a dataset whose longest games run to the 10,000-battle cap (Classic War with a deck of
40 ranks, 160 cards: a standard deck's games rarely pass 3,000 battles), plus a default Classic
War dataset, and times `war replay` as separate processes, start-up included: the longest game
as text, as JSON, a range of 100 battles, only the wars, one card's journey, and the HTML page.
It also times text replay of games of different lengths, to show the time grows linearly.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from measure import timed_cpu, war

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
NEWLINE = b"\n"


def run(cmd: list[str]) -> tuple[float, float, bytes]:
    return timed_cpu(cmd, cwd=ROOT)


def best(cmd: list[str], repeat: int) -> tuple[float, float, bytes]:
    """The best wall time and the best CPU time of `repeat` runs: on a shared machine the wall
    time also measures the neighbours."""
    runs = [run(cmd) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), runs[0][2]


def games_by_length(root: Path) -> list[tuple[int, int]]:
    _, _, out = run(war("query", root, "--sql", "select game_id, battles from games order by battles desc, game_id",
                     "--format", "csv"))
    rows = out.decode().split("\n")[1:]
    return [(int(g), int(b)) for g, b in (r.split(",") for r in rows if r)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each command; the best is shown")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "big"
        run(war("generate", "--variant", "classic", "--set", "ranks=40", "--games", 40, "--seed", 7,
                "--out", big, "-q"))
        gid, battles = games_by_length(big)[0]
        print(f"dataset: classic, ranks=40 (160 cards), 40 games, seed 7; longest game {gid}: {battles} battles\n")
        print("| what | command | wall s | CPU s | output |")
        print("|---|---|---|---|---|")
        for what, extra in [("text, whole game", ()), ("json, whole game", ("--format", "json")),
                            ("text, 100 battles", ("--battles", "5000-5099")),
                            ("text, only the wars", ("--wars",)),
                            ("text, one card's journey", ("--follow", "20H")),
                            ("html page", ("--format", "html"))]:
            took, cpu, out = best(war("replay", big, gid, *extra), args.repeat)
            lines = out.count(NEWLINE)
            size = f"{lines:,} lines" if extra[-1:] != ("html",) else f"{len(out) / 1e6:.2f} MB"
            if extra[-1:] == ("json",):
                size = f"{len(out) / 1e6:.1f} MB"
            command = f"war replay DIR {gid} {' '.join(extra)}".rstrip()
            print(f"| {what} | `{command}` | {took:.2f} | {cpu:.2f} | {size} |")

        classic = Path(tmp) / "classic"
        run(war("generate", "--variant", "classic", "--games", 2000, "--seed", 42, "--out", classic, "-q"))
        lengths = [(root, g, b) for root in (classic, big) for g, b in games_by_length(root)]
        print("\nText replay against game length (best of runs, process start-up included):\n")
        print("| battles | wall s | CPU s | lines |")
        print("|---|---|---|---|")
        shown = set()
        for target in (100, 500, 1000, 2000, 5000, 10000):
            root, game, length = min(lengths, key=lambda g: abs(g[2] - target))
            if (root, game) in shown:
                continue
            shown.add((root, game))
            took, cpu, out = best(war("replay", root, game), args.repeat)
            print(f"| {length:,} | {took:.2f} | {cpu:.2f} | {out.count(NEWLINE):,} |")

if __name__ == "__main__":
    main()
