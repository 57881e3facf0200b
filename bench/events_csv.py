"""Where the CPU of events to CSV goes, stage by stage, in one process (compiles done first).

    WAR_EVENT_CACHE=/tmp/evc100k taskset -c 1 python bench/events_csv.py /tmp/big100k [--parts N]
        [--write FILE [--page-cache]]

For each row group of the events view's copies (copy_scan), alternately: read by pyarrow then
formatted from its Arrow buffers (csv_kernel.lines, the path before copy_pages), and decoded from
its pages (copy_pages) then formatted (csv_kernel.decoded_lines); the two outputs compared byte for
byte. Prints the CPU seconds of each stage (time.process_time: pin the process to one core with
taskset so that this is one core's work) and the bytes. With --write, each row group's lines are
written to FILE too, as `war query --output` writes them (around the page cache, direct_file;
through it with --page-cache), and that stage's CPU (user and system) and wall are printed; the
whole command's `/usr/bin/time` has the rest (bench/README.md).
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from pipeline.jobs.query import copy_scan, open_query
from pipeline.present import direct_file
from pipeline.present.csv_kernel import Room, decoded_lines, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset")
    parser.add_argument("--parts", type=int, default=0, help="row groups to measure (0: all)")
    parser.add_argument("--sql", default="SELECT * FROM events")
    parser.add_argument("--write", help="write each row group's lines to this file too, and time it")
    parser.add_argument("--page-cache", action="store_true", help="with --write: through the page cache")
    args = parser.parse_args()
    sink = open(args.write, "wb") if args.write else None
    direct = None if sink is None or args.page_cache else direct_file.open_direct(sink)
    writing = [0.0, 0.0, 0.0]  # user, system, wall
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
            if sink is not None:
                before_write = resource.getrusage(resource.RUSAGE_THREAD), time.perf_counter()
                if direct is not None:
                    direct.write(new)
                else:
                    sink.write(new)
                after_write = resource.getrusage(resource.RUSAGE_THREAD), time.perf_counter()
                writing[0] += after_write[0].ru_utime - before_write[0].ru_utime
                writing[1] += after_write[0].ru_stime - before_write[0].ru_stime
                writing[2] += after_write[1] - before_write[1]
            for key, took in zip(spent, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
                spent[key] += took
    print(f"{len(chosen)} row groups, {sum(r for r, _ in chosen):,} rows, {written:,} bytes of CSV (the same both ways)")
    for key, took in spent.items():
        print(f"  {key:18s} {took:6.2f} s")
    print(f"  before: {spent['pyarrow read'] + spent['lines from Arrow']:.2f} s, "
          f"after: {spent['pages decoded'] + spent['decoded lines']:.2f} s")
    if sink is not None:
        t0 = time.perf_counter()
        if direct is not None:
            direct.close()
        sink.flush()
        os.fsync(sink.fileno())
        sink.close()
        print(f"  written {'directly' if direct is not None else 'through the page cache'}: {writing[0]:.2f} s user, "
              f"{writing[1]:.2f} s system, {writing[2]:.2f} s wall; then the fsync {time.perf_counter() - t0:.2f} s wall")


if __name__ == "__main__":
    main()
