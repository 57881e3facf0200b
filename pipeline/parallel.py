"""Running independent tasks on a process pool, with progress ticks from the workers.

Results come back keyed by task position, so the caller assembles them in a fixed order and the
output never depends on which worker finished first.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Callable, Sequence

_queue = None


def _init(queue) -> None:
    global _queue
    _queue = queue


def _call(fn, task):
    return fn(task, _queue.put if _queue is not None else None)


def run_tasks(fn: Callable, tasks: Sequence, workers: int,
              progress: Callable[[int], None] | None = None) -> list:
    """[fn(task, tick) for task in tasks], on `workers` processes when more than one."""
    if workers <= 1 or len(tasks) <= 1:
        return [fn(task, progress) for task in tasks]
    import multiprocessing as mp
    import queue as q

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
