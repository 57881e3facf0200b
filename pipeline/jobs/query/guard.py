"""Stopping DuckDB work, whatever asks: Ctrl-C or SIGTERM (the process is ending), a time limit,
or a reader that went away (a web client that hung up). One mechanism for every command and the
server: a watchdog thread calls `interrupt()` on the query's connection.

Why a thread. DuckDB stops a query only when its connection's `interrupt()` is called, from any
thread. Python runs its Ctrl-C handler in the main thread between two bytecodes, and DuckDB's
Python client looks for a pending Ctrl-C only in its execute loop; a result streamed as Arrow
batches (every query war runs: stream.py) is computed in C++ with the GIL released and never
looks, so a long join or aggregate ran on through Ctrl-C until it was done. The process's
Ctrl-C and SIGTERM reach `stop` from the thread that errors.ctrl_c_latch starts (Python's
signal wakeup fd), whatever the main thread is doing.

DuckDB forgets an interrupt that lands between two steps of the work (after one batch, before
the next starts), so a stopped guard's connection is interrupted again every POLL seconds until
the work leaves DuckDB, and a step never starts once its guard is stopped. From a stop on, the
process is ending: every open session is interrupted the same way until it exits.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from ...errors import Interrupted, QueryError, WarError, interrupted, on_stop
from . import session as sessions

POLL = 0.05  # seconds between two interrupts of a stopped guard's connection

_lock = threading.Condition()
_active: set["Guard"] = set()  # guards inside a step
_stopping = False  # the process was told to stop (Ctrl-C, SIGTERM)
_watchdog: threading.Thread | None = None


class Scope:
    """The work one caller started (a web request): `cancel()` stops every guard made in it,
    those made after too."""

    def __init__(self) -> None:
        self.cancelled = False
        self.guards: "weakref.WeakSet[Guard]" = weakref.WeakSet()

    def cancel(self) -> None:
        with _lock:
            self.cancelled = True
            guards = list(self.guards)
        for guard in guards:
            guard.cancel()


_scope: ContextVar[Scope | None] = ContextVar("war_query_scope", default=None)


@contextmanager
def scope() -> Iterator[Scope]:
    """Guards made inside the block (in this thread, or a thread it hands its context to) belong
    to the Scope it yields."""
    made = Scope()
    token = _scope.set(made)
    try:
        yield made
    finally:
        _scope.reset(token)


class Guard:
    """Stops one session's query: when it has computed for `limit` seconds in all, or for
    `step_limit` seconds in one step (a download's next batch), when `cancel()` is called, or
    when the process is told to stop. `reason` says which ("timeout", "cancelled", "stopping").
    Wrap each stretch of DuckDB work in `step()`: a stop then raises `error()` there."""

    def __init__(self, session, limit: float | None = None, step_limit: float | None = None) -> None:
        self.session = session
        self.limit, self.step_limit = limit, step_limit
        self.reason: str | None = None
        self.seconds: float | None = None  # the limit that was passed
        self._began: float | None = None
        self._step_began: float | None = None
        within = _scope.get()
        if within is not None:
            within.guards.add(self)
            if within.cancelled:
                self.reason = "cancelled"

    def _deadline(self) -> tuple[float, float] | None:
        """(when, which limit) of the nearest limit, inside a step."""
        ends = []
        if self.limit is not None and self._began is not None:
            ends.append((self._began + self.limit, self.limit))
        if self.step_limit is not None and self._step_began is not None:
            ends.append((self._step_began + self.step_limit, self.step_limit))
        return min(ends) if ends else None

    @contextmanager
    def step(self) -> Iterator[None]:
        """One stretch of work inside DuckDB (binding the query, its first batch, each next one):
        stopped by any of the guard's reasons, which it then raises as `error()`."""
        self.check()
        with _lock:
            self._step_began = time.monotonic()
            if self._began is None:
                self._began = self._step_began
            _active.add(self)
            _wake()
        try:
            yield
        except GeneratorExit:  # a generator reading batches closed (Ctrl-C unwinding it): not this step's error
            raise
        except BaseException as err:
            if self.reason is not None or (_stopping and interrupted(err)):
                raise self.error() from None
            if interrupted(err) and not isinstance(err, (KeyboardInterrupt, WarError)):
                raise Interrupted("interrupted") from None  # DuckDB's own words for Ctrl-C
            raise
        finally:
            with _lock:
                _active.discard(self)
                self._step_began = None

    def check(self) -> None:
        """Raise `error()` when the guard was stopped (or the process is stopping)."""
        if _stopping and self.reason is None:
            self.reason = "stopping"
        if self.reason is not None:
            raise self.error()

    def cancel(self) -> None:
        """Stop the query: its reader went away."""
        with _lock:
            if self.reason is None:
                self.reason = "cancelled"
            _wake()

    def error(self) -> WarError:
        if self.reason == "timeout":
            return QueryError(f"the query ran over its time limit of {self.seconds:g} s")
        if self.reason == "cancelled":
            return QueryError("the query was cancelled: its reader went away")
        return Interrupted("interrupted")


def _wake() -> None:
    """Start the watchdog, or tell it that something changed (under _lock)."""
    global _watchdog
    if _watchdog is None or not _watchdog.is_alive():
        _watchdog = threading.Thread(target=_watch, name="war-query-watchdog", daemon=True)
        _watchdog.start()
    _lock.notify_all()


def _watch() -> None:
    """Interrupt the connections of the guards that are stopped or past a limit (and, once the
    process is stopping, of every open session), again every POLL seconds while they are."""
    while True:
        with _lock:
            now = time.monotonic()
            hit, wait = [], None
            for guard in _active:
                due = guard._deadline()
                if guard.reason is None and due is not None and now >= due[0]:
                    guard.reason, guard.seconds = "timeout", due[1]
                if guard.reason is None and _stopping:
                    guard.reason = "stopping"
                if guard.reason is not None:
                    hit.append(guard.session)
                elif due is not None:
                    wait = due[0] - now if wait is None else min(wait, due[0] - now)
            if _stopping:
                hit += list(sessions._open)
            if not hit:
                _lock.wait(POLL if _stopping else wait)  # stopping: a session opened later is hit too
                continue
        for session in hit:
            try:
                session.con.interrupt()
            except Exception:  # closed meanwhile
                pass
        time.sleep(POLL)


def stop() -> None:
    """The process was told to stop: every query now and from here on is interrupted."""
    global _stopping
    with _lock:
        _stopping = True
        _wake()


def _reset() -> None:
    """The command that was stopped has ended (a library caller's process goes on)."""
    global _stopping
    with _lock:
        _stopping = False


def _after_fork_in_child() -> None:
    """A forked child starts with no watchdog (threads do not survive a fork) and a fresh lock
    (the watchdog may have held it at the fork)."""
    global _lock, _active, _watchdog, _stopping
    _lock, _active, _watchdog, _stopping = threading.Condition(), set(), None, False


on_stop(stop, _reset)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
