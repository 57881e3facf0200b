"""Typed errors. Each says where things went wrong; the CLI prints it on one line.

The library speaks in its own terms: a message about an argument of a library call names it in
backticks (`workers`) and lists it in the error's `params`. A front end says those names its own
way with `spoken`: the CLI puts its flags in their place (`workers` -> --workers).

Helpers for a front end's error boundary: `storage_error` says an OSError as one line,
`interrupted` tells Ctrl-C from other failures, and `ctrl_c_latch` keeps a Ctrl-C that a library
swallowed (`raise_lost_ctrl_c` raises it again) and hands Ctrl-C and SIGTERM, from a thread of its
own, to the work that Python's handler cannot reach (`on_stop`: DuckDB computing in C++).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager
from typing import Callable, Iterable


class WarError(Exception):
    """Base of every error a user can cause; the CLI turns it into one line and exit code 2.

    `params` are the arguments the message names, each written `name` in it."""

    exit_code = 2
    params: tuple[str, ...] = ()

    def __init__(self, *args: object, params: Iterable[str] = ()) -> None:
        super().__init__(*args)
        if params:
            self.params = tuple(params)

    def spoken(self, say: Callable[[str], str]) -> str:
        """The message with `say(name)` in place of each `name` of `params`."""
        text = str(self)
        for name in self.params:
            text = text.replace(f"`{name}`", say(name))
        return text


class RulesError(WarError):
    """An unknown variant or option, a bad option value, a rule set that cannot be dealt."""


class DealError(WarError):
    """An explicit deal that is not the rule set's deck."""


class DatasetError(WarError):
    """A missing, unfinished, or already-occupied dataset folder, or a file in it that cannot be read."""


class StorageError(DatasetError):
    """The file system refused a read or a write: no permission, a full disk, a file where a
    folder is needed. Exit 2 when the path given is at fault, 1 when the storage is."""

    def __init__(self, *args: object, params: Iterable[str] = (), exit_code: int = 2) -> None:
        super().__init__(*args, params=params)
        self.exit_code = exit_code


class Interrupted(WarError):
    """Ctrl-C (SIGINT): the command stopped; the message says how to finish."""

    exit_code = 130


def interrupted(err: BaseException | None) -> bool:
    """Whether `err` is Ctrl-C: a KeyboardInterrupt, or an error raised because of one (Ctrl-C
    inside the compiled engine surfaces as a SystemError whose cause is the KeyboardInterrupt;
    inside DuckDB as its InterruptException, or a RuntimeError "Query interrupted" with no cause)."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, (KeyboardInterrupt, Interrupted)) or type(err).__name__ == "InterruptException":
            return True  # DuckDB turns Ctrl-C during a query into its InterruptException
        if isinstance(err, RuntimeError) and str(err).strip() == "Query interrupted":
            return True  # ... or, while a statement runs or a result streams, into this RuntimeError
        if isinstance(err, OSError) and str(err).startswith("INTERRUPT Error"):
            return True  # ... or, read through Arrow's stream of batches, into an OSError
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return False


class OutsideDataset(DatasetError):
    """A manifest that names a file outside its dataset folder (`..`, an absolute path, or a
    symbolic link leading out): war reads only what is inside the dataset."""

    def __init__(self, path: str, why: str) -> None:
        self.path, self.why = path, why
        super().__init__(f"manifest.json lists a file outside the dataset: {path!r} ({why}); "
                         "war reads only files inside the dataset folder, and `war validate` "
                         "names every such path")


class GameNotFound(WarError):
    """A game id that the dataset does not hold."""


class QueryError(WarError):
    """An unknown named query, a bad parameter, or SQL that DuckDB rejects."""


class ReportError(WarError):
    """A report or chart file that cannot be written where it was asked."""


class LogMismatch(WarError):
    """A game's event log disagrees with the engine: carries the game, the event and both sides."""

    def __init__(self, seq: int, expected: object, found: object, game_id: int | None = None,
                 what: str = "event") -> None:
        self.seq, self.expected, self.found, self.game_id, self.what = seq, expected, found, game_id, what
        super().__init__(self._text())

    def _text(self) -> str:
        where = f"game {self.game_id} " if self.game_id is not None else ""
        return f"{where}{self.what} seq {self.seq}: expected {self.expected}, found {self.found}"

    def at_game(self, game_id: int) -> "LogMismatch":
        self.game_id = game_id
        self.args = (self._text(),)
        return self


class PluginError(WarError):
    """A family's own code (an outside package's policy or engine) failed as a game was played,
    or broke what its declaration promises (a policy chose what it was not offered). `what` names
    the family and its part (the decision, the policy and seat); the game is named by its seed
    and, once known, its id. The error is the plugin's, not war's (`owner`, its package); a
    built-in family's (owner "") is a bug of war's, exit 1."""

    def __init__(self, what: str, seed: int | None = None, game_id: int | None = None, owner: str = "") -> None:
        self.what, self.seed, self.game_id, self.owner = what, seed, game_id, owner
        if not owner:
            self.exit_code = 1
        super().__init__(self._text())

    def _text(self) -> str:
        game = "a game" if self.game_id is None else f"game {self.game_id}"
        if self.seed is not None:
            game += f" (seed {self.seed})"
        whose = f"the error is the plugin's ({self.owner}), not war's" if self.owner else "a bug of war's"
        return f"{self.what}, in {game}; {whose}"

    def at_game(self, game_id: int) -> "PluginError":
        self.game_id = game_id
        self.args = (self._text(),)
        return self

    def __reduce__(self):  # raised in a worker process, it reaches the parent whole
        return type(self), (self.what, self.seed, self.game_id, self.owner)


class UsageError(WarError):
    """Arguments that do not go together, or a value an argument does not take (a battle range,
    a card, an output file that exists)."""


def unreadable_file(err: BaseException) -> bool:
    """An error of the libraries that read the files (DuckDB, pyarrow) about a damaged or
    foreign data file, which their message names; any other error of theirs stays internal."""
    return type(err).__module__.split(".")[0] in ("duckdb", "_duckdb", "pyarrow") and \
        any(kind in str(err) for kind in (".parquet", ".jsonl"))


def storage_error(err: OSError, path: object = None, doing: str = "write") -> StorageError:
    """One line for an OSError: what could not be done to which path, and why. A full disk or a
    failing device is the storage's fault (exit 1); anything else (permission, a read-only file
    system, a file where a folder is needed) is the path's (exit 2); so is running out of
    file descriptors or memory the machine's (exit 1)."""
    import errno  # only when something failed

    where = path if path is not None else (err.filename or "")
    reason = err.strerror or type(err).__name__
    storage_fault = err.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EMFILE, errno.ENFILE, errno.ENOMEM)
    text = f"cannot {doing} {str(where)!r}: {reason}" if where else f"cannot {doing}: {reason}"
    if err.errno == errno.ENOSPC:
        text += " (free some space, then run the command again)"
    return StorageError(text, exit_code=1 if storage_fault else 2)


def brief(value: object) -> str:
    """A value as an error message shows it: its repr cut short (nesting, long strings, long
    lists and huge numbers elided), so that a hostile input (a list nested a thousand deep, a
    string of a million characters) gives one short line, not a RecursionError or a flood."""
    import reprlib  # only when something failed

    shorter = reprlib.Repr()
    shorter.maxlevel, shorter.maxstring, shorter.maxother, shorter.maxlong = 3, 60, 60, 40
    shorter.maxlist = shorter.maxtuple = shorter.maxdict = shorter.maxset = 6
    try:
        return shorter.repr(value)
    except (RecursionError, ValueError):
        return f"<{type(value).__name__}>"


_ctrl_c: list[int] = []  # the Ctrl-Cs the latch saw


def _latched(signum, frame) -> None:
    _ctrl_c.append(signum)
    raise KeyboardInterrupt


@contextmanager
def ctrl_c_latch():
    """Inside the block Ctrl-C (and SIGTERM, where nothing else handles it) raises
    KeyboardInterrupt, as Python's own handler does for Ctrl-C, and is also remembered: a library
    that swallows the KeyboardInterrupt (a bare `except:` while a module imports, an `except
    Exception` around a query that DuckDB ended because of it) cannot lose it, since
    `raise_lost_ctrl_c` raises it again. For a command's whole run, in the main
    thread; Python's handler is back after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # Ctrl-C where Python's own handler has it (not a caller's handler, nor ignored)
    interrupting = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    # SIGTERM (`kill`, `timeout`, a scheduler ending a job) stops a command as Ctrl-C does: its
    # one line and how to finish, exit 143; where nothing else handles it (war serve's server
    # does). Also where Ctrl-C is ignored: a shell starts a background job (`nohup war search ...
    # &`) with SIGINT ignored, and such a job is ended by SIGTERM, which had killed it silently
    terminating = signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    if not (interrupting or terminating):
        yield
        return
    if interrupting:
        signal.signal(signal.SIGINT, _latched)
    if terminating:
        signal.signal(signal.SIGTERM, _latched)
        _child_terms_by_default()
    told, sys.unraisablehook = sys.unraisablehook, _quiet_when_latched(sys.unraisablehook)
    watch = _SignalWatch.start()
    try:
        yield
    finally:
        if interrupting:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        if terminating and signal.getsignal(signal.SIGTERM) is _latched:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        sys.unraisablehook = told
        if watch is not None:
            watch.close()
        for _, reset in list(_stoppers):
            reset()
        _ctrl_c.clear()


_forks_watched: list[bool] = []


def _child_terms_by_default() -> None:
    """A process forked while the latch takes SIGTERM (a pool's worker, a helper) ends at
    SIGTERM as it did, silently: its parent stops it so (Process.terminate), and the latch's
    handler would have it raise KeyboardInterrupt and print a traceback instead. Once a process."""
    if not _forks_watched and hasattr(os, "register_at_fork"):
        _forks_watched.append(True)
        os.register_at_fork(after_in_child=_term_by_default)


def _term_by_default() -> None:
    if signal.getsignal(signal.SIGTERM) is _latched:
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        except ValueError:  # not the main thread of the child: nothing to undo there
            pass


_stoppers: list[tuple[Callable[[], None], Callable[[], None]]] = []


def on_stop(stop: Callable[[], None], reset: Callable[[], None]) -> None:
    """While a command runs inside ctrl_c_latch, call `stop()` from a thread of its own as soon as
    the process is told to stop (Ctrl-C, or SIGTERM where something handles it: war serve), and
    `reset()` when the latch ends. For work that Python's own handler cannot reach: it runs only
    in the main thread, between two bytecodes, and a main thread inside C++ (DuckDB computing a
    join, with the GIL released) never gets there (jobs.query.guard)."""
    _stoppers.append((stop, reset))


class _SignalWatch:
    """Python's signal wakeup fd, read by a thread: its C-level handler writes each signal's
    number to the fd the moment the signal arrives, whatever the main thread is doing (a signal
    with a Python handler: SIGINT, and SIGTERM once uvicorn handles it). The numbers go on to
    the wakeup fd set before (asyncio's, in a caller that had one)."""

    STOP = (signal.SIGINT, signal.SIGTERM)

    @classmethod
    def start(cls) -> "_SignalWatch | None":
        try:
            return cls()
        except (ValueError, OSError):  # not the main thread, or no pipe to be had
            return None

    def __init__(self) -> None:
        self.read_end, self.write_end = os.pipe()
        try:
            os.set_blocking(self.write_end, False)
            self.previous = signal.set_wakeup_fd(self.write_end, warn_on_full_buffer=False)
        except BaseException:
            os.close(self.read_end)
            os.close(self.write_end)
            raise
        _watches.append(self)
        self.thread = threading.Thread(target=self._run, name="war-signals", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            try:
                data = os.read(self.read_end, 512)
            except OSError:
                return
            end = data.find(0)  # closing: no signal has the number 0
            seen = data if end < 0 else data[:end]
            if self.previous >= 0 and seen:
                try:
                    os.write(self.previous, seen)
                except OSError:
                    pass
            if any(number in self.STOP for number in seen):
                for stop, _ in list(_stoppers):
                    try:
                        stop()
                    except Exception:  # a stopper's failure must not end the watch
                        pass
            if not data or end >= 0:
                return

    def close(self) -> None:
        """Back to the wakeup fd there was; the signals already caught are handled first."""
        try:
            signal.set_wakeup_fd(self.previous)
        except ValueError:
            pass
        try:
            os.write(self.write_end, b"\0")
        except OSError:
            pass
        self.thread.join(2.0)
        self._forget()

    def _forget(self) -> None:
        if self in _watches:
            _watches.remove(self)
        for fd in (self.read_end, self.write_end):
            try:
                os.close(fd)
            except OSError:
                pass


_watches: list[_SignalWatch] = []


def _after_fork_in_child() -> None:
    """A forked child (a worker) writes its signals to no parent's pipe: a signal it handles is
    its own, not a stop of its parent's work."""
    for watch in list(_watches):
        try:
            signal.set_wakeup_fd(-1)
        except ValueError:
            pass
        watch._forget()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _quiet_when_latched(hook):
    """sys.unraisablehook that says nothing of a Ctrl-C the latch has seen. Python prints an
    exception it cannot raise (in a ctypes callback, such as LLVM's while numba compiles, a
    weakref callback or a `__del__`) as "Exception ignored" with its traceback, and drops it:
    the latch keeps it for raise_lost_ctrl_c instead."""
    def quiet(unraisable) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and _ctrl_c:
            return
        hook(unraisable)
    return quiet


def handles_ctrl_c() -> bool:
    """Whether Ctrl-C raises KeyboardInterrupt here: Python's own handler, or the latch."""
    return signal.getsignal(signal.SIGINT) in (signal.default_int_handler, _latched)


def ctrl_c_pressed() -> bool:
    """Whether the latch saw a Ctrl-C (or a SIGTERM)."""
    return bool(_ctrl_c)


def stop_exit_code(code: int) -> int:
    """The exit code of a command that stopped with `code`: 143 (128 + SIGTERM) in place of
    Ctrl-C's 130 when it was SIGTERM that stopped it, as a shell reports a process it ended."""
    return 128 + signal.SIGTERM if code == 130 and signal.SIGTERM in _ctrl_c else code


def latched(handler) -> bool:
    """Whether `handler` (a signal's) is the latch's: the signal raises KeyboardInterrupt."""
    return handler is _latched


def raise_lost_ctrl_c() -> None:
    """KeyboardInterrupt when the latch saw a Ctrl-C that nothing acted on."""
    if _ctrl_c:
        raise KeyboardInterrupt
