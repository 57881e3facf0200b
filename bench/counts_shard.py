"""The CPU of one shard of an every-deal count of one suit dealt first_short (`war generate
--all-deals --log counts`), as a worker counts it and writes its journal file, and what the
sum then spends on it (its digest), `taskset -c 1 python bench/counts_shard.py RANKS SHARDS`
(SHARDS: shard numbers, comma-separated, as jobs.counts.count_shard_size cuts the deals).

Run it on an older checkout of pipeline/ (PYTHONPATH=that/checkout) to compare: a checkout
whose log.counts has no count_rows counts a tally, writes its table, and the sum reads the file
back into a tally and sorts it for the digest; a newer one writes rows made sorted and its
worker folds the digest (and writes its journal file as jobs.counts.write_journal does, where
that exists). A worker keeps its memo of positions (open_packed.packed_game) from shard to
shard, as this process does. Both print the shard's digest, which must be the same. Times are CPU
seconds of this process (user + system): pin it to one core and say how loaded the machine
was. A worker counting several shards keeps its cycle cache, so the first shard of a process
pays for naming every cycle."""

from __future__ import annotations

import os
import resource
import sys
from pathlib import Path

from pipeline.engines.compiled import tally as tallies
from pipeline.jobs import counts as counts_job
from pipeline.jobs.counts import count_shard_size
from pipeline.log import counts
from pipeline.model.all_deals import deal_count
from pipeline.model.rules import build_rules
from pipeline.storage.files import read_whole_parquet, write_parquet


def cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def main(ranks: int, shards: list[int]) -> None:
    rules = build_rules("classic", {"suits": "1", "ranks": str(ranks), "pickup": "natural", "war_down": "0",
                                    "deal": "first_short"})
    deals = deal_count(rules)
    size = count_shard_size(deals)
    sorted_rows = hasattr(counts, "count_rows")
    write_journal = getattr(counts_job, "write_journal", write_parquet)  # older checkouts: the dataset's writer
    counts.count_deals(rules, 0, 0, 0, 1000)  # the compiled code loaded
    out = Path(f"/tmp/counts-shard-{os.getpid()}.parquet")
    print(f"1x{ranks} first_short: {deals:,} deals, shards of {size:,}; "
          f"{'rows made sorted' if sorted_rows else 'a tally, sorted after'}")
    for shard in shards:
        start, stop = shard * size, min(deals, (shard + 1) * size)
        before = cpu()
        if sorted_rows:
            rows = counts.count_rows(rules, 0, 0, start, stop)
            write_journal(counts.rows_table(*rows), out)
            digest = counts.rows_digest(*rows)
            counted = summed = cpu()
        else:
            write_parquet(counts.tally_table(counts.count_deals(rules, 0, 0, start, stop)), out)
            counted = cpu()
            digest = tallies.digest(counts.table_tally(read_whole_parquet(out)))
            summed = cpu()
        print(f"shard {shard}: the worker {counted - before:.2f} s of CPU, the sum's digest {summed - counted:.2f} s; "
              f"digest {digest}; peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB",
              flush=True)
    out.unlink(missing_ok=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), [int(s) for s in sys.argv[2].split(",")])
