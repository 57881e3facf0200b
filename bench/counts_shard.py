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
pays for naming every cycle.

SHARDS may be `sample:K` instead: K shards spread evenly over the enumeration (the middle shard
of each K-th), and then an estimate of the whole count's CPU: where the seats are alike (an even
deal, 7 | 7) only a class's first deal is played, and a shard whose deals are all the second of
their class costs next to nothing, so each shard is told by whether its first and last deals are
the first of their class (deals.first_of_class), and the estimate is the played shards' count
times their sample's mean plus the others' count times theirs (a shard of both kinds counted as
half of each). Its error is the sample's: say K and the spread of the shards' times."""

from __future__ import annotations

import os
import resource
import sys
from pathlib import Path

import numpy as np

from pipeline.engines.compiled import tally as tallies
from pipeline.engines.compiled.deals import first_of_class
from pipeline.jobs import counts as counts_job
from pipeline.jobs.counts import count_shard_size
from pipeline.log import counts
from pipeline.model.all_deals import deal_count
from pipeline.model.rules import build_rules
from pipeline.storage.files import read_whole_parquet, write_parquet


def cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def played_share(rules, size: int, deals: int) -> np.ndarray:
    """Each shard's share of played deals as its ends tell it: 1 (both ends a class's first
    deal), 0 (neither) or 0.5."""
    starts = np.arange(0, deals, size, dtype=np.int64)
    ends = np.minimum(starts + size, deals) - 1
    return (first_of_class(rules, starts).astype(float) + first_of_class(rules, ends)) / 2


def main(ranks: int, which: str) -> None:
    rules = build_rules("classic", {"suits": "1", "ranks": str(ranks), "pickup": "natural", "war_down": "0",
                                    "deal": "first_short"})
    deals = deal_count(rules)
    size = count_shard_size(deals)
    count = -(-deals // size)
    sample = which.startswith("sample:")
    if sample:
        k = int(which.split(":")[1])
        shards = sorted({min(count - 1, (2 * i + 1) * count // (2 * k)) for i in range(k)})
    else:
        shards = [int(s) for s in which.split(",")]
    taken = {}
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
        taken[shard] = summed - before
        told = f"{len(rows[1]):,} rows; " if sorted_rows else ""
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
        print(f"shard {shard}: the worker {counted - before:.2f} s of CPU, the sum's digest {summed - counted:.2f} s; "
              f"{told}digest {digest}; peak memory {peak:.2f} GB", flush=True)
    out.unlink(missing_ok=True)
    if sample:
        estimate(taken, played_share(rules, size, deals))


def estimate(taken: dict, share: np.ndarray) -> None:
    """The whole count's CPU from the sampled shards' (shares as played_share gives them)."""
    total = 0.0
    for played in (True, False):
        weight = share if played else 1 - share
        times = [t for s, t in taken.items() if (share[s] >= 0.5) == played]
        if weight.sum() == 0:
            continue
        if not times:
            print(f"no {'played' if played else 'skipped'} shard in the sample: no estimate")
            return
        mean = sum(times) / len(times)
        total += weight.sum() * mean
        print(f"{'played' if played else 'skipped'}: {weight.sum():,.1f} shards of {len(share):,}, sampled {len(times)}: "
              f"{min(times):.2f} - {max(times):.2f} s, mean {mean:.2f} s")
    print(f"estimate: {total:,.0f} s of CPU, {total / 7200:.2f} h on 2 workers (shards only; the sum is apart)")


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
