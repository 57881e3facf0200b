"""The sum on disk of an every-deal count's shards (jobs.counts_sum), on shards made from a finished
counts file: `python bench/counts_sum.py COUNTS_FILE FOLDER SHARDS ROWS` writes SHARDS journal
files into FOLDER (once; kept for the next run), each ROWS rows drawn from the counts file
without replacement, in its order, as a worker writes them (jobs.counts.write_journal), then sums
them as `war generate --log counts` does past SUMMED_IN_MEMORY rows and prints the CPU and wall
time, the rows and a digest of the sum.

1x13 dealt 6 | 7 has 372 shards of about 2.7 million rows (a billion rows) summed into 30 million:
`python bench/counts_sum.py /work/searches/1x13-first-short/counts/variant=classic/part-00000.parquet
/tmp/sum13 372 270000` is that at a tenth of the rows. Run it on an older checkout (PYTHONPATH)
to compare: one whose jobs.counts_sum sums with DuckDB is timed the same way, on the same files,
and must print the same digest. Times are CPU seconds of this process and its threads (user +
system) and wall seconds: say how loaded the machine was."""

from __future__ import annotations

import inspect
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.jobs import counts_sum
from pipeline.log.counts import COUNT_SCHEMA, table_digest
from pipeline.storage.files import parquet_options


def cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def make_shards(counts_file: Path, folder: Path, shards: int, rows: int) -> list[Path]:
    paths = [folder / f"part-{i:05d}.parquet" for i in range(shards)]
    if all(p.exists() for p in paths):
        return paths
    from pipeline.jobs.counts import write_journal

    folder.mkdir(parents=True, exist_ok=True)
    whole = pq.read_table(counts_file)
    rng = np.random.default_rng(53)
    for path in paths:
        chosen = np.sort(rng.choice(whole.num_rows, size=min(rows, whole.num_rows), replace=False))
        write_journal(whole.take(pa.array(chosen)), path, durable=False)
    return paths


def main(counts_file: str, folder: str, shards: int, rows: int) -> None:
    paths = make_shards(Path(counts_file), Path(folder), shards, rows)
    tables = []
    group_rows = parquet_options(COUNT_SCHEMA)["row_group_size"]
    digests = []

    def write(table):
        digests.append(table_digest(table))
        tables.append(table.num_rows)

    before, wall = cpu(), time.monotonic()
    if "con" in inspect.signature(counts_sum.sum_tallies).parameters:  # an older checkout: DuckDB's slices
        import duckdb

        from pipeline.model.schema import OUTCOMES

        con = duckdb.connect()
        con.execute("SET memory_limit = '3GB'")
        spill = Path(folder) / "spill"
        con.execute(f"SET temp_directory = '{spill}'")
        summed = counts_sum.sum_tallies(con, [str(p) for p in paths], list(OUTCOMES), COUNT_SCHEMA, write, group_rows,
                                        spill)
        how = "DuckDB, in slices"
    else:
        summed = counts_sum.sum_tallies([str(p) for p in paths], write, group_rows)
        how = "one merge"
    spent, wall = cpu() - before, time.monotonic() - wall
    digest = hash(tuple(digests))
    print(f"{len(paths)} shards of {rows:,} rows ({how}): {summed:,} rows summed; {spent:.1f} s of CPU, {wall:.1f} s "
          f"of wall (load average {os.getloadavg()[0]:.1f}); peak memory "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB; digest {digest}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
