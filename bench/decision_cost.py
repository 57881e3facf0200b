"""What Slap War's decisions cost on the plain-Python path: its games played as they are, and
again with its `tie` hook replaced by the hook's answer under the `always` policy (the seat
after the last taker slaps, as the policy would choose) with no decision asked or logged;
Classic War beside them. Same games, same battles; the difference is the cost of asking each
pair's policy and logging its `decision` (issue 52).

    taskset -c 1 python bench/decision_cost.py [--games N] [--runs R]

Prints each one's median CPU time a game (time.process_time, no start-up: the engine, the
arrays, the encoder, as bench/plain_inproc.py times them) and Slap War's time against Classic
War's with and without its decisions.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    from pipeline import testing

    testing.install(ROOT / "examples" / "war-slap")
    import war_slap.engine as slap
    from pipeline.frontend import pyarrow_without_pandas
    from pipeline.jobs.parallel import reuse_freed_memory
    from pipeline.log.batches import reference_shard
    from pipeline.model.rules import build_rules

    pyarrow_without_pandas()
    reuse_freed_memory()
    rules = {"classic": build_rules("classic", {}), "slap": build_rules("slap", {})}
    asked = slap.SlapGame.tie

    def answered(self, battle, tied, best):  # `always`'s answer, nobody asked
        return ((self.taker + 1) % self.n if self.after_winner and self.taker is not None else 0), "slap"

    plays = {"classic": ("classic", asked), "slap": ("slap", asked), "slap, no decisions": ("slap", answered)}
    for variant in rules.values():
        reference_shard(variant, 0, 1, 0, 20)  # warm
    lengths = []
    for tie in (asked, answered):  # the same games: each game's battles, outcome and winner alike
        slap.SlapGame.tie = tie
        games = reference_shard(rules["slap"], 0, 1, 0, 200)[1]
        lengths.append(games.select(["battles", "outcome", "winner"]).to_pylist())
    if lengths[0] != lengths[1]:
        raise SystemExit("the hook's answer alone played other games than the hook: the comparison says nothing")
    times: dict[str, list[float]] = {name: [] for name in plays}
    for _ in range(args.runs):
        for name, (variant, tie) in plays.items():
            slap.SlapGame.tie = tie
            began = time.process_time()
            reference_shard(rules[variant], 0, 1, 0, args.games)
            times[name].append((time.process_time() - began) / args.games * 1e6)
    slap.SlapGame.tie = asked
    median = {name: statistics.median(values) for name, values in times.items()}
    for name, value in median.items():
        print(f"{name}: {value:,.0f} us a game of CPU (median of {args.runs} runs of {args.games:,} games)")
    print(f"Slap War against Classic War: {median['slap'] / median['classic']:.2f}x with its decisions, "
          f"{median['slap, no decisions'] / median['classic']:.2f}x without; the decisions "
          f"{median['slap'] - median['slap, no decisions']:,.0f} us a game")


if __name__ == "__main__":
    main()
