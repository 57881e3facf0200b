"""Waiting on a condition instead of sleeping for a guessed time: on a loaded machine (CI's two
cores under pytest-xdist) a sleep that is long enough on a quiet one is sometimes too short, and
a test that sleeps then asserts fails on timing, or passes on broken code."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(predicate: Callable[[], T], timeout: float = 60.0, interval: float = 0.02) -> T:
    """The first true value of `predicate()`, polled every `interval` seconds; or its last
    (false) value after `timeout` seconds, for the caller's assert to report. The timeout is
    generous on purpose: it is only reached when the behaviour is broken."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


GONE_WITHIN = 120.0  # seconds for a stopped run's processes to end (Tagged.gone): a worker still
#                      importing when its parent died notices only once started, late on a loaded machine
