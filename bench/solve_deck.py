"""`war solve` of one deck with its stages timed and its progress said: for the big decks
(2 suits of 6 ranks), where a run takes many minutes. CPU seconds of this process (all threads)
and wall seconds, and the peak resident memory.

    nice -n 19 python bench/solve_deck.py --ranks 6 --suits 2
"""

from __future__ import annotations

import argparse
import resource
import time

import pipeline as war
from pipeline.solve.figures import lines
from pipeline.solve.solver import build_chain, solve


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--suits", type=int, required=True)
    parser.add_argument("--war-down", type=int, default=0)
    parser.add_argument("--tol", type=float, default=1e-13)
    args = parser.parse_args()
    rules = war.build_rules("classic", {"ranks": args.ranks, "suits": args.suits, "war_down": args.war_down})
    wall, began = time.perf_counter(), cpu()
    chain = build_chain(rules)
    print(f"chain: {chain.rows:,} rows, {chain.succ.shape[0]:,} moves, {cpu() - began:.0f} s CPU, "
          f"{time.perf_counter() - wall:.0f} s wall, peak {rss_gb():.2f} GB", flush=True)

    def progress(t, worst):
        print(f"  sweep {t}: P(N > t) <= {worst:.3g}; {cpu() - began:.0f} s CPU, "
              f"{time.perf_counter() - wall:.0f} s wall, peak {rss_gb():.2f} GB", flush=True)

    solution = solve(rules, exact=False, tol=args.tol, chain=chain, progress=progress)
    for line in lines(solution):
        print(line)
    print(f"total {cpu() - began:.0f} s CPU, {time.perf_counter() - wall:.0f} s wall, peak {rss_gb():.2f} GB")


if __name__ == "__main__":
    main()
