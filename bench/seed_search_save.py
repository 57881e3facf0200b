"""Put a records line's deal into a saved search's pool, unpolished, so that `war search
--resume` gives it a longer past with the search's polish as it is now (a record found before
the polish changed). The deal's numbers are its game played again, so the save passes the
search's own check; the note goes into the save's sessions, and so into the records line's
count of sessions. The save must not be in use (no search running on it). `war search --start RECORDS --resume`
does the same for every searcher (jobs.search.seed_pools, which this calls).

    python bench/seed_search_save.py /work/h44/hunt-22x1.search.json \\
        --rules "classic war_down=0 pickup=natural ranks=22 suits=1"

With --again, the pool's best deal (a graft, which the search marks polished) is marked
unpolished instead, for the next round to polish it once more.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pipeline.jobs.records import rules_of
from pipeline.jobs.search import read_start, seed_pools
from pipeline.jobs.searcher import SearcherState
from pipeline.storage.files import atomic_write_bytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("save", type=Path)
    parser.add_argument("--rules", required=True, help="a records line's rule set")
    parser.add_argument("--records", default="data/records.jsonl")
    parser.add_argument("--searcher", type=int, default=0)
    parser.add_argument("--again", action="store_true", help="mark the pool's best deal unpolished")
    args = parser.parse_args()
    save = json.loads(args.save.read_text(encoding="utf-8"))
    state = save["states"][args.searcher]
    if args.again:
        best = max(range(len(state["rows"])), key=lambda i: state["rows"][i][0])
        state["polished"][best] = False
        save["sessions"].append(f"python bench/seed_search_save.py {args.save.name} --again: searcher "
                                f"{args.searcher}'s best deal ({state['rows'][best][0]:,}) marked unpolished")
        atomic_write_bytes(args.save, (json.dumps(save, separators=(",", ":")) + "\n").encode())
        print(f"{args.save}: searcher {args.searcher}'s row {best} ({state['rows'][best][0]:,}) unpolished")
        return
    rules = rules_of(args.rules)
    deals = read_start(args.records, rules)  # what `war search --start RECORDS` reads and checks
    searcher = SearcherState.from_json(state)
    seed_pools(rules, [searcher], deals, save["goal"], save["measure"])
    save["states"][args.searcher] = searcher.to_json()
    save["sessions"].append(f"python bench/seed_search_save.py {args.save.name} --rules '{args.rules}': "
                            f"the records file's deals of the rule set ({', '.join(d.where for d in deals)}) "
                            f"put unpolished in searcher {args.searcher}'s pool")
    atomic_write_bytes(args.save, (json.dumps(save, separators=(",", ":")) + "\n").encode())
    print(f"{args.save}: searcher {args.searcher}'s pool holds the records file's deals of {args.rules}")


if __name__ == "__main__":
    main()
