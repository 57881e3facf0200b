"""A timeline of one `war` command: when each of its processes starts, finishes its imports,
loads the engine, starts and ends each shard, and exits, in wall time and in each process's CPU.

    python bench/timeline.py [--trace FILE] -- generate -o DIR --games 100000 --seed 9 --workers 2 -q

runs the command in a child of this process (as the `war` console script does, without pyenv's
shim; the child's CPU and faults go on from this process's) with markers hooked in from
outside: heavy modules timed as they are imported, and the functions of generate's path wrapped
where they are looked up (nothing of pipeline/ changes). Each marker is one line of JSON
appended to the trace (O_APPEND: workers forked or spawned write there too); the summary
printed at the end lists them per process, in milliseconds from the interpreter's start (wall)
and the process's own CPU (to the microsecond), and the command's end after the interpreter's
shutdown. Why: two workers' ratio to one is set by what runs one after the other (start-up,
the tail), which a whole command's time cannot show.
"""

from __future__ import annotations

import argparse
import atexit
import importlib.abc
import importlib.util
import json
import os
import resource
import sys
import tempfile
import time

HEAVY = ("numpy", "pydantic", "typer", "pyarrow", "numba", "duckdb", "pipeline", "pipeline.cli.app",
         "pipeline.cli.generate", "pipeline.cli.validate", "pipeline.jobs.request", "pipeline.model.schema",
         "pipeline.jobs.generate", "pipeline.log.warm", "pipeline.engines.compiled.loop", "pipeline.log.batches")

_fd: int | None = None


def _process_start() -> float:
    """This process's start in wall seconds since the epoch, from /proc (to 10 ms): its start in
    clock ticks since boot, against the clock since boot now (/proc/stat's boot time is in
    whole seconds, which put the start up to a second early)."""
    try:
        with open(f"/proc/{os.getpid()}/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        since_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
        return time.time() - (since_boot - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, AttributeError):
        return time.time()


_before: tuple[int, dict] = (0, {})  # the command's process: what the timeline's own did before it forked


def _counts() -> dict:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # waits: voluntary context switches
    return {"cpu": usage.ru_utime + usage.ru_stime, "sys": usage.ru_stime, "faults": usage.ru_minflt,
            "waits": usage.ru_nvcsw}


def mark(what: str, **extra) -> None:
    if _fd is None:
        return
    counts = _counts()
    pid, before = _before
    if pid == os.getpid():  # the command's process goes on from the timeline's (not its workers)
        counts = {k: v + before[k] for k, v in counts.items()}
    row = {"pid": os.getpid(), "ppid": os.getppid(), "what": what, "wall": time.time(), **counts, **extra}
    os.write(_fd, (json.dumps(row) + "\n").encode())


def _wrap(module, name: str, label: str, shard: bool = False) -> None:
    inner = getattr(module, name, None)
    if inner is None or getattr(inner, "_timeline", False):
        return

    def wrapped(*args, **kwargs):
        extra = {}
        if shard and args:
            extra = {"part": getattr(args[0], "part", None)}
        mark(label + " start", **extra)
        try:
            return inner(*args, **kwargs)
        finally:
            mark(label + " end", **extra)

    wrapped._timeline = True
    wrapped.__module__, wrapped.__qualname__, wrapped.__name__ = inner.__module__, inner.__qualname__, inner.__name__
    wrapped.__doc__ = inner.__doc__
    setattr(module, name, wrapped)


def _patch(name: str, module) -> None:
    if name == "pipeline.jobs.generate":
        _wrap(module, "run_shard", "shard", shard=True)
        _wrap(module, "_warm", "warm (before fork)")
        _wrap(module, "make_durable", "make_durable")
        _wrap(module, "summed_counts", "summed_counts")
        _wrap(module, "run_tasks", "run_tasks")
        _wrap(module, "atomic_write_bytes", "atomic_write_bytes")  # the manifest
        _wrap(module, "swap_in", "swap_in")  # --overwrite: the old dataset removed
        _wrap(module.RunJournal, "close", "journal close")
    elif name == "pipeline.cli.generate":
        _wrap(module, "prepare_engine", "prepare_engine")
    elif name == "pipeline.log.warm":  # prepare_engine's parts: numba's cache index read, the encoder loaded
        _wrap(module, "compile_estimate", "cache check")
        _wrap(module, "build_tables", "encoder")
    elif name == "pipeline.jobs.parallel":
        inner = module._init

        def init(*args):
            mark("worker init")
            inner(*args)
        module._init = init
        _wrap(module.ProcessPoolExecutor, "shutdown", "pool shutdown")  # waits for the workers to exit


class _Hook(importlib.abc.MetaPathFinder):
    """Marks when each HEAVY module starts and ends importing, and patches generate's path."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in HEAVY and fullname not in ("pipeline.cli.generate", "pipeline.jobs.parallel"):
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        exec_module = loader.exec_module

        def timed(module):
            if fullname in HEAVY:
                mark(f"import {fullname} start")
            exec_module(module)
            if fullname in HEAVY:
                mark(f"import {fullname} end")
            _patch(fullname, module)

        spec.loader = type("Loader", (), {"create_module": lambda self, s: loader.create_module(s),
                                          "exec_module": lambda self, m: timed(m)})()
        return spec


def summary(path: str) -> str:
    """The trace at `path` per process (its markers, then its shards: the first, which pays
    for fresh buffers, apart from the others), and the run's three spans: before the first
    shard, the shards, after the last."""
    rows = [json.loads(line) for line in open(path)]
    if not rows:
        return "no markers"
    t0 = min(r["wall"] for r in rows if r["what"] == "process start")
    first: dict[int, dict] = {}
    for r in rows:
        first.setdefault(r["pid"], r)
    out = []
    for pid, head in sorted(first.items(), key=lambda kv: kv[1]["wall"]):
        mine = [r for r in rows if r["pid"] == pid]
        starts = [r for r in mine if r["what"] == "shard start"]
        ends = [r for r in mine if r["what"] == "shard end"]
        out.append(f"process {pid} (parent {head['ppid']})          wall      cpu      sys   faults")
        for r in mine:
            if r["what"].startswith("shard") and r is not (starts or [None])[0] and r is not (ends or [None])[-1]:
                continue
            label = r["what"] + (f" {r['part']}" if "part" in r else "")
            if r.get("cpu") is None:  # the process's end: its CPU is not its own alone (its workers')
                out.append(f"  {label:36.36s}{1000 * (r['wall'] - t0):6.0f} ms")
                continue
            out.append(f"  {label:36.36s}"
                       f"{1000 * (r['wall'] - t0):6.0f} ms {1000 * r['cpu']:5.0f} ms {1000 * r.get('sys', 0):5.0f} ms "
                       f"{r.get('faults', 0):8d}")
        spans = [(s, e) for s, e in zip(starts, ends)]
        if spans:
            out.append("  " + _shards("first shard", spans[:1]))
            if len(spans) > 1:
                out.append("  " + _shards(f"{len(spans) - 1} others", spans[1:]))
    starts = [r["wall"] for r in rows if r["what"] == "shard start"]
    ends = [r["wall"] for r in rows if r["what"] == "shard end"]
    exits = [r["wall"] for r in rows if r["what"] == "exit"]
    finish = [r["wall"] for r in rows if r["what"] == "process end"]
    if starts and ends and exits:
        shutdown = f", {1000 * (max(finish) - max(ends)):.0f} ms to the process's end" if finish else ""
        out.append(f"run: first shard at {1000 * (min(starts) - t0):.0f} ms, "
                   f"shards {1000 * (max(ends) - min(starts)):.0f} ms, "
                   f"after the last {1000 * (max(exits) - max(ends)):.0f} ms to its exit handlers{shutdown} "
                   f"(wall, from the interpreter's start)")
    return "\n".join(out)


def _shards(what: str, spans) -> str:
    n = len(spans)

    def per(key: str) -> float:
        return sum(e[key] - s[key] for s, e in spans) / n

    return (f"{what}: {1000 * per('wall'):.1f} ms wall, {1000 * per('cpu'):.1f} ms cpu ({1000 * per('sys'):.1f} sys), "
            f"{per('faults'):.0f} page faults, {per('waits'):.1f} times blocked, a shard")


def main() -> None:
    global _fd, _before
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", default=None, help="the trace file (default: a new temporary file)")
    parser.add_argument("--summary", default=None, metavar="TRACE", help="print the summary of an earlier trace")
    parser.add_argument("argv", nargs=argparse.REMAINDER, help="-- and the war command's arguments")
    args = parser.parse_args()
    if args.summary:
        print(summary(args.summary))
        return
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    trace = args.trace or tempfile.mkstemp(prefix="war-timeline-", suffix=".jsonl")[1]
    open(trace, "w").close()
    _fd = os.open(trace, os.O_WRONLY | os.O_APPEND)
    start, ready = _process_start(), _counts()
    # The command runs in a child, which goes on from this process (its CPU and faults counted
    # from this one's), so that its end is seen after the interpreter's shutdown, which its exit
    # handlers cannot see: this process waits for it, then says the summary.
    command_pid = os.fork()
    if command_pid:
        status = os.waitpid(command_pid, 0)[1]
        os.write(_fd, (json.dumps({"pid": command_pid, "ppid": os.getpid(), "what": "process end",
                                   "wall": time.time(), "cpu": None}) + "\n").encode())
        print(f"{summary(trace)}\n(trace: {trace})", file=sys.stderr)
        sys.exit(os.waitstatus_to_exitcode(status))
    _before = (os.getpid(), ready)
    os.write(_fd, (json.dumps({"pid": os.getpid(), "ppid": os.getppid(), "what": "process start",
                               "wall": start, "cpu": 0.0, "sys": 0.0, "faults": 0, "waits": 0}) + "\n").encode())
    mark("timeline ready")
    sys.meta_path.insert(0, _Hook())
    atexit.register(mark, "exit")
    sys.argv = ["war", *argv]
    from pipeline.cli import command

    mark("import pipeline.cli end")
    command()


if __name__ == "__main__":
    main()
