"""Where the CPU of events to CSV goes, stage by stage, in one process (compiles done first).

    WAR_EVENT_CACHE=/tmp/evc100k taskset -c 1 python bench/events_csv.py /tmp/big100k [--parts N]

For each row group of the events view's copies (copy_scan), alternately: read by pyarrow then
formatted from its Arrow buffers (csv_kernel.lines, the path before copy_pages), and decoded from
its pages (copy_pages) then formatted (csv_kernel.decoded_lines); the two outputs compared byte for
byte. Prints the CPU seconds of each stage (time.process_time: pin the process to one core with
taskset so that this is one core's work) and the bytes. Writing is left out: the whole command's
`/usr/bin/time` has it (bench/README.md).
"""

from __future__ import annotations

import argparse
import time

from pipeline.jobs.query import copy_scan, open_query
from pipeline.present.csv_kernel import Room, decoded_lines, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset")
    parser.add_argument("--parts", type=int, default=0, help="row groups to measure (0: all)")
    parser.add_argument("--sql", default="SELECT * FROM events")
    args = parser.parse_args()
    with open_query(args.dataset, sql=args.sql) as result:
        scan = copy_scan.scan_of(result)
        if scan is None:
            raise SystemExit("the query is not the events view as it is, or its copies are off")
        parts = scan.parts()
        chosen = parts[:args.parts] if args.parts else parts
        before, after = Room(), Room()
        _, read = chosen[0]  # compiles, and each room's arrays made, outside the figures
        lines(read(), before)
        decoded_lines(read.decode(after), read.sources, after)
        spent = dict.fromkeys(["pyarrow read", "lines from Arrow", "pages decoded", "decoded lines"], 0.0)
        written = 0
        for _, read in chosen:
            t0 = time.process_time()
            batch = read()
            t1 = time.process_time()
            old = lines(batch, before)
            t2 = time.process_time()
            group = read.decode(after)
            t3 = time.process_time()
            new = decoded_lines(group, read.sources, after)
            t4 = time.process_time()
            if bytes(old) != bytes(new):
                raise SystemExit("the two paths wrote different bytes")
            written += len(new)
            for key, took in zip(spent, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
                spent[key] += took
    print(f"{len(chosen)} row groups, {sum(r for r, _ in chosen):,} rows, {written:,} bytes of CSV (the same both ways)")
    for key, took in spent.items():
        print(f"  {key:18s} {took:6.2f} s")
    print(f"  before: {spent['pyarrow read'] + spent['lines from Arrow']:.2f} s, "
          f"after: {spent['pages decoded'] + spent['decoded lines']:.2f} s")


if __name__ == "__main__":
    main()
