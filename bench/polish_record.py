"""The search's polish (engines.table.open_search.polish) of a deal data/records.jsonl holds: what
a longer past adds to a record found before the polish changed, by beam width and seed, in CPU
seconds of this process. A trial, not a search: nothing is written.

    python bench/polish_record.py --rules "classic war_down=0 pickup=natural ranks=22 suits=1" \\
        --widths 3000 10000 --seeds 1 2 3
"""

from __future__ import annotations

import argparse
import json
import resource

import numpy as np

from pipeline.engines.compiled.layout import SUMMARY_BATTLES
from pipeline.engines.compiled.search_pool import EMPTY, ROW_COLUMNS, offer
from pipeline.engines.table.open_duel import PICKUPS_CODE, _game
from pipeline.engines.table.open_search import _buffers, polish, polish_starts
from pipeline.jobs.records import deal_of
from pipeline.model.deal import deck_of
from pipeline.model.rng import Xoshiro256


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", required=True, help="a records line's rule set")
    parser.add_argument("--records", default="data/records.jsonl")
    parser.add_argument("--widths", type=int, nargs="+", default=[3000])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--chain", type=int, default=1, help="polish the pool's best deal again, this many times")
    parser.add_argument("--again", action="store_true", help="polish the pool's best even when it is polished (a graft)")
    args = parser.parse_args()
    lines = [json.loads(x) for x in open(args.records, encoding="utf-8")]
    line = next(x for x in lines if x["rules"] == args.rules and x["record"] == "battles")
    rules, deal = deal_of(line)
    ranks = np.array(deck_of(rules).rank, np.int64)
    half = len(deal.piles[0])
    dealt = np.empty(2 * half, np.uint8)
    dealt[0::2] = ranks[list(deal.piles[0])]
    dealt[1::2] = ranks[list(deal.piles[1])]
    pickup, cap = np.int64(PICKUPS_CODE[rules.pickup]), np.int64(rules.max_battles)
    starts = polish_starts(len(dealt))
    print(f"{args.rules}: the record's {line['battles']:,} battles; starts {starts.tolist()}", flush=True)
    for width in args.widths:
        for seed in args.seeds:
            state = Xoshiro256(seed)
            rng = np.array([state.s0, state.s1, state.s2, state.s3], np.uint64)
            pool = np.zeros((16, len(dealt)), np.uint8)
            rows = np.full((16, ROW_COLUMNS), 0, np.int64)
            rows[:, 0] = EMPTY
            polished = np.zeros(16, np.bool_)
            ring, snap, table, out, summaries, wins, final = _buffers(len(dealt))
            _game(dealt, half, 0, 0, pickup, cap, ring, snap, table, out, 0, summaries, wins, final)
            assert summaries[0, SUMMARY_BATTLES] == line["battles"], "the record plays another game"
            offer(pool, rows, polished, dealt, summaries[0, SUMMARY_BATTLES], summaries[0], False)
            began = cpu()
            scores = []
            for _ in range(args.chain):
                row = int(np.argmax(rows[:, 0]))
                if polished[row] and not args.again:
                    break
                polished[row] = False
                played, taken, best = polish(row, pool, rows, polished, pickup, cap, 0, 0, starts, width, rng)
                scores.append(int(best))
            print(f"width {width:,} seed {seed}: {' -> '.join(f'{s:,}' for s in scores)} "
                  f"(pool best {int(rows[:, 0].max()):,}) in {cpu() - began:.2f} CPU s", flush=True)


if __name__ == "__main__":
    main()
