"""Running independent tasks on a process pool, with progress ticks from the workers.

Results come back keyed by task position, so the caller assembles them in a fixed order and the
output never depends on which worker finished first.
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import queue as q
import signal
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Callable, Sequence

from ..errors import DatasetError

_queue = None


def _init(queue) -> None:
    global _queue
    _queue = queue
    _die_with_parent()


def _die_with_parent() -> None:
    """A worker whose parent was killed (kill -9) stops at once rather than writing on: on Linux
    the kernel kills it (PR_SET_PDEATHSIG); elsewhere a thread watches the parent."""
    parent = os.getppid()
    try:
        if ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0) == 0:  # PR_SET_PDEATHSIG
            if os.getppid() != parent:
                os._exit(1)
            return
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        while True:
            time.sleep(0.2)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _call(fn, task):
    return fn(task, _queue.put if _queue is not None else None)


def run_tasks(fn: Callable, tasks: Sequence, workers: int,
              progress: Callable[[int], None] | None = None, warm: Callable[[], None] | None = None,
              fork: bool = True) -> list:
    """[fn(task, tick) for task in tasks], on `workers` processes when more than one.

    On Linux the workers are forked after `warm()` has loaded what they need (the compiled
    engine), so they start at once instead of importing it all again; elsewhere, or with
    `fork=False`, they are spawned. A process that has talked to a remote store must not fork:
    the store's client library (the AWS SDK under pyarrow's S3) holds threads and locks that a
    forked child would inherit half-held."""
    if workers <= 1 or len(tasks) <= 1:
        return [fn(task, progress) for task in tasks]
    if sys.platform == "linux" and fork:
        if warm is not None:
            warm()
        ctx = mp.get_context("fork")
    else:
        ctx = mp.get_context("spawn")
    ticks = ctx.Queue()

    def drain() -> None:
        while True:
            try:
                n = ticks.get_nowait()
            except q.Empty:
                return
            if progress is not None:
                progress(n)

    results: list = [None] * len(tasks)
    with ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=ctx,
                             initializer=_init, initargs=(ticks,)) as pool:
        pending = {pool.submit(_call, fn, task): i for i, task in enumerate(tasks)}
        try:
            while pending:
                done, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                drain()
                for fut in done:
                    results[pending.pop(fut)] = fut.result()
        except BaseException:
            for fut in pending:
                fut.cancel()
            raise
        drain()
    return results


def run_tasks_dask(fn: Callable, tasks: Sequence, scheduler: str,
                   progress: Callable[[int], None] | None = None,
                   size: Callable[[object], int] = lambda task: 1) -> list:
    """The same tasks on a Dask distributed cluster at `scheduler` (an address such as
    tcp://host:8786). Every worker must see the same files (shared storage)."""
    if not tasks:
        return []
    try:
        from distributed import Client, as_completed  # lazy: optional (war[dask]) and heavy
    except ImportError:
        raise DatasetError("`scheduler` needs Dask distributed: pip install 'war[dask]'",
                           params=("scheduler",)) from None
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as err:
        raise DatasetError(f"cannot reach the Dask scheduler at {scheduler!r}: {err}") from None
    with client:
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
