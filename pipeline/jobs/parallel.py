"""Running independent tasks on a process pool, with progress ticks from the workers.

Results come back keyed by task position, so the caller assembles them in a fixed order and the
output never depends on which worker finished first.
"""

from __future__ import annotations

import ctypes
import gc
import itertools
import multiprocessing as mp
import os
import signal
import sys
import threading
from dataclasses import dataclass
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import contextmanager
from typing import Callable, Iterable, Sequence

from ..errors import DatasetError, handles_ctrl_c, latched
from ..engines.compiled.jit.warm import die_with_parent

_queue = None
MAX_WORKERS = 256


@dataclass(frozen=True)
class Span:
    """The games a task plays: [start, stop) of rule set `ordinal` (its rules as JSON, its seats'
    policies, its seed). Each kind of task (a shard to write, to count, to count again, whose
    kept games to play) adds what it needs."""

    ordinal: int
    rules_json: str
    policies: tuple[str, ...]
    seed: int
    start: int
    stop: int


def check_workers(workers: int) -> None:
    """`workers` must be a count of processes a pool can start: checked before anything is read,
    compiled or played, by every job that runs on workers."""
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise DatasetError(f"`workers` must be between 1 and {MAX_WORKERS}, got {workers!r}", params=("workers",))


def _init(queue, parent: int) -> None:
    """A worker leaves Ctrl-C to its parent, which stops the pool: a worker that took the
    SIGINT itself would print its own traceback. It dies with `parent` (die_with_parent)."""
    global _queue
    _queue = queue
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    die_with_parent(parent)
    reuse_freed_memory()  # a spawned worker does not inherit the parent's


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
KEEP_FREED = 1 << 30


def reuse_freed_memory() -> None:
    """Make the C allocator keep the memory of one shard's buffers for the next (up to 1 GiB),
    and numpy ask for ordinary pages rather than huge ones. A shard allocates tens of MB of
    fresh arrays (the engine's event log, the encoder's); with glibc's defaults each shard gave
    them back to the kernel and faulted them in again, and numpy's huge pages (madvise) made
    the kernel clear and compact 2 MB at a time, up to 0.4 s of system time on a single shard.
    Linux only (glibc's mallopt, numpy's switch); elsewhere nothing changes. The bytes written
    do not depend on it."""
    if sys.platform != "linux":
        return
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt(M_MMAP_THRESHOLD, KEEP_FREED)
        libc.mallopt(M_TRIM_THRESHOLD, KEEP_FREED)
    except (OSError, AttributeError):  # not glibc
        pass
    import numpy as np  # lazy: only the commands that play games need it

    switch = getattr(getattr(getattr(np, "_core", None), "multiarray", None), "_set_madvise_hugepage", None)
    if switch is not None:
        switch(False)


@contextmanager
def interrupts_deferred():
    """Ctrl-C inside the block takes effect when it ends, as a KeyboardInterrupt. For calls into
    the compiled engine: a SIGINT that lands in numba's machine code leaves it with an exception
    set that it does not expect (a SystemError, or a segmentation fault). Only the main thread
    of a process that handles Ctrl-C itself defers; workers ignore SIGINT altogether."""
    if threading.current_thread() is not threading.main_thread() or not handles_ctrl_c():
        yield
        return
    caught: list[int] = []
    # SIGTERM too, where the command's latch takes it as Ctrl-C (errors.ctrl_c_latch)
    stops = [signal.SIGINT] + ([signal.SIGTERM] if latched(signal.getsignal(signal.SIGTERM)) else [])
    previous = {stop: signal.signal(stop, lambda signum, frame: caught.append(signum)) for stop in stops}
    try:
        yield
    finally:
        for stop, handler in previous.items():
            signal.signal(stop, handler)
    if caught:
        if signal.SIGTERM in caught:
            previous[signal.SIGTERM](signal.SIGTERM, None)  # the latch's: remembered, then raised
        raise KeyboardInterrupt


def _call(fn, task):
    return fn(task, _queue.put if _queue is not None else None)


def run_tasks(fn: Callable, tasks: Iterable, workers: int,
              progress: Callable[[int], None] | None = None, warm: Callable[[], None] | None = None,
              fork: bool = True, count: int | None = None, exits: list | None = None) -> list:
    """[fn(task, tick) for task in tasks], on `workers` processes when more than one.

    `tasks` may be a lazy iterable (`count` says how many, when it is not a sequence): tasks are
    taken from it only as workers free up, so a run of a million shards never holds a million
    tasks. On Linux the workers are forked after `warm()` has loaded what they need (the compiled
    engine), so they start at once instead of importing it all again; elsewhere, or with
    `fork=False`, they are spawned. A process that has talked to a remote store must not fork:
    the store's client library (the AWS SDK under pyarrow's S3) holds threads and locks that a
    forked child would inherit half-held. Forked workers start with the parent's objects frozen
    (gc.freeze): their garbage collections then leave the inherited objects alone instead of
    writing to them, which made each worker copy every page of them (about 0.3 s of the
    workers' time in a validation of 200,000 games). On Ctrl-C the workers are stopped at once;
    a file one of them was writing is left only under its hidden temporary name.

    With `exits` (a list), the workers are not waited for as they end once every result is in
    (each ends its interpreter and the kernel frees its memory: 10 to 50 ms a run, which one
    worker in this process never spends): a function that waits for them is appended to it,
    which the caller calls when its own work after the tasks is done, before it starts other
    processes or returns (generate's tail: the manifest, the journal)."""
    reuse_freed_memory()
    if count is None and isinstance(tasks, Sequence):
        count = len(tasks)
    tasks = iter(tasks)
    if count is None:
        head = list(itertools.islice(tasks, 2))
        count = len(head) if len(head) < 2 else workers
        tasks = itertools.chain(head, tasks)
    if workers <= 1 or count <= 1:
        return [fn(task, progress) for task in tasks]
    forked = sys.platform == "linux" and fork
    if forked:
        if warm is not None:
            with interrupts_deferred():
                warm()
        ctx = mp.get_context("fork")
    else:
        ctx = mp.get_context("spawn")
    freeze = forked and gc.get_freeze_count() == 0  # a caller's own frozen objects stay frozen
    if freeze:
        gc.freeze()
    try:
        return _run_on_pool(fn, tasks, workers, count, progress, ctx, exits)
    finally:
        if freeze:
            gc.unfreeze()


def _run_on_pool(fn: Callable, tasks, workers: int, count: int, progress, ctx, exits: list | None = None) -> list:
    # The workers' ticks go straight into a pipe (a SimpleQueue), and without `progress` there is
    # none: a Queue's put woke a thread of the worker's to write it, which waited for the
    # interpreter's lock while the shard played (3 to 4 hand-offs a shard)
    ticks = ctx.SimpleQueue() if progress is not None else None

    def drain() -> None:
        while ticks is not None and not ticks.empty():
            progress(ticks.get())

    workers = min(workers, count)
    results: list = []
    numbered = enumerate(tasks)
    pending: dict = {}
    # SIGINT stays blocked while the workers are forked, so that none takes a Ctrl-C before it
    # ignores SIGINT; the parent gets it once they are all started.
    blocking = hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()
    if blocking:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init,
                               initargs=(ticks, os.getpid()))

    def fill() -> None:
        while len(pending) < 2 * workers:
            nxt = next(numbered, None)
            if nxt is None:
                return
            results.append(None)
            pending[pool.submit(_call, fn, nxt[1])] = nxt[0]

    try:
        try:
            fill()  # starts the workers
        finally:
            if blocking:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        while True:
            fill()
            if not pending:
                break
            done, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            drain()
            for fut in done:
                results[pending.pop(fut)] = fut.result()
    except BaseException:
        for fut in pending:
            fut.cancel()
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    if exits is None:
        pool.shutdown(wait=True)
    else:  # every result is in: the workers end beside the caller's work (run_tasks)
        ending = threading.Thread(target=pool.shutdown, kwargs={"wait": True}, name="war-workers-exit")
        ending.start()
        exits.append(ending.join)
    drain()  # each worker sends a shard's ticks before its result: all are in the pipe
    return results


@contextmanager
def dask_client(scheduler: str | None):
    """A client of the Dask distributed cluster at `scheduler` (an address such as
    tcp://host:8786), or None without one; connected before the caller writes anything, so
    that a cluster that cannot be reached leaves nothing behind."""
    if scheduler is None:
        yield None
        return
    try:
        from distributed import Client  # lazy: optional (war[dask]) and heavy
    except ImportError:
        raise DatasetError("`scheduler` needs Dask distributed: pip install 'war[dask]'",
                           params=("scheduler",)) from None
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as err:
        raise DatasetError(f"cannot reach the Dask scheduler at {scheduler!r}: {err}") from None
    with client:
        yield client


def run_tasks_dask(fn: Callable, tasks: Iterable, client,
                   progress: Callable[[int], None] | None = None,
                   size: Callable[[object], int] = lambda task: 1) -> list:
    """The same tasks on a Dask distributed cluster through `client` (dask_client). Every
    worker must see the same files (shared storage)."""
    from distributed import as_completed  # lazy: optional and heavy

    tasks = list(tasks)
    if not tasks:
        return []
    futures = client.map(_call_untick, [fn] * len(tasks), tasks, pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    results: list = [None] * len(tasks)
    for fut in as_completed(futures):
        i = index[fut.key]
        results[i] = fut.result()
        if progress is not None:
            progress(size(tasks[i]))
    return results


def _call_untick(fn, task):
    return fn(task, None)
