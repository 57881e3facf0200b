"""What the freshness check of a `war.connect` connection costs: it is asked before every
statement and relation method (a data file replaced under the connection is refused), so its
CPU time is a floor under each. Prints the CPU time of one check, the median of a loop.

    taskset -c 1 python bench/fresh_check.py DATASET [--checks N]
"""

from __future__ import annotations

import argparse
import time

import pipeline as war


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset")
    parser.add_argument("--checks", type=int, default=500)
    args = parser.parse_args()
    con = war.connect(args.dataset, events=False)
    for _ in range(20):  # warm
        con._fresh()
    began = time.process_time()
    for _ in range(args.checks):
        con._fresh()
    each = (time.process_time() - began) / args.checks
    print(f"{each * 1e3:.2f} ms of CPU a freshness check ({args.checks} checks)")
    con.close()


if __name__ == "__main__":
    main()
