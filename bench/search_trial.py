"""One searcher of `war search` for a budget of CPU seconds (this process's, after the engine is
loaded): its best score, deals played, positions taken back and rounds, for equal-CPU trials of
the search (docs/decisions.md, "Records by search"). Pin it to a core for trials side by side:

    taskset -c 1 python bench/search_trial.py --ranks 7 --suits 4 --pickup sorted --cpu 20 --seed 1

With --from OUT.search.json it starts from a saved search's pool (a mature one, where the
choice between sampling and polishing is another than in a fresh pool); --repolish N sets
how often a polished top is polished again (0: never), for trials of the same code.

PYTHONPATH=DIR runs another copy of the package (a commit's `git archive`) on the same terms.
"""

from __future__ import annotations

import argparse
import json
import resource

import numpy as np

import pipeline as war
from pipeline.jobs.search import warm_search
from pipeline.jobs.searcher import GOALS, MEASURES, LEAST_POOL, SearcherState, fast_search, sorted_ranks
from pipeline.model.rng import SplitMix64


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--suits", type=int, required=True)
    parser.add_argument("--pickup", default="natural")
    parser.add_argument("--max-battles", type=int, default=None)
    parser.add_argument("--measure", default="battles", choices=MEASURES)
    parser.add_argument("--cpu", type=float, default=20.0, help="CPU seconds of searching")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--from", dest="save", default=None,
                        help="start from searcher 0 of this saved search (OUT.search.json), its generator redrawn "
                             "from --seed: a mature pool")
    parser.add_argument("--repolish", type=int, default=None,
                        help="open_search.REPOLISH for this trial (0: a polished top is never polished again)")
    parser.add_argument("--repolish-after", type=int, default=None, help="open_search.REPOLISH_AFTER (deals)")
    args = parser.parse_args()
    if args.repolish is not None or args.repolish_after is not None:
        from pipeline.engines.table import open_search

        open_search.REPOLISH = open_search.REPOLISH if args.repolish is None else args.repolish
        open_search.REPOLISH_AFTER = (open_search.REPOLISH_AFTER if args.repolish_after is None
                                      else args.repolish_after)
    options = {"ranks": args.ranks, "suits": args.suits, "pickup": args.pickup, "war_down": 0}
    if args.max_battles is not None:
        options["max_battles"] = args.max_battles
    rules = war.build_rules("classic", options)
    warm_search(rules)
    deck = sorted_ranks(rules)
    state = SearcherState.fresh(0, SplitMix64(args.seed).next(), len(deck), LEAST_POOL)
    if args.save is not None:
        saved = json.loads(open(args.save, encoding="utf-8").read())["states"][0]
        state = SearcherState.from_json({**saved, "rng": state.rng})
    rng = np.array(state.rng, np.uint64)
    pool = np.array(state.pool, deck.dtype)
    rows = np.array(state.rows, np.int64)
    polished = np.array(state.polished, np.bool_)
    play = fast_search(rules).search_round
    goal, measure = GOALS.index("longest"), MEASURES.index(args.measure)
    began = cpu()
    rounds = deals = taken = 0
    grafts = []
    while cpu() - began < args.cpu:
        played, more, graft = play(rules, deck, rng, goal, measure, pool, rows, polished, state.deals + deals)
        rounds += 1
        deals += played
        taken += more
        if graft > 0:
            grafts.append(graft)
    print(f"{args.suits}x{args.ranks} {args.pickup} seed {args.seed}{' from ' + args.save if args.save else ''}"
          f"{'' if args.repolish is None else f' repolish {args.repolish}'}: best {int(rows[:, 0].max()):,} "
          f"in {cpu() - began:.1f} CPU s; {rounds:,} rounds, {deals:,} deals, {taken:,} positions taken back, "
          f"{len(grafts)} grafts (mean {np.mean(grafts) if grafts else 0:.0f})", flush=True)


if __name__ == "__main__":
    main()
