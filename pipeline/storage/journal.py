"""The journal of a dataset being written: `.war/` holds the lock, the plan, and one record per
finished shard. It is what makes `--resume` possible after a crash or `kill -9`, and what
refuses a second writer.

Order of writing: a shard's data files (each atomically), then its record (atomically); the
manifest last; then the journal is removed. A record therefore always describes files that are
whole, and a shard without a record is simply played again, giving the same bytes.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import socket
import threading
import time
import weakref

from typing import Callable

from ..errors import DatasetError
from ..model.inputs import loads_json
from ..model.schema import DataFile
from .layout import MANIFEST, WORK_DIR
from .files import atomic_write_bytes, remove_tree
from .location import is_remote, location, sweep_temporaries
from .processes import process_alive


FINISH = "the interrupted war generate command again, with --resume"  # how to finish a run, said generically

_holding: "weakref.WeakSet[Journal]" = weakref.WeakSet()  # journals whose lock's flock this process holds


def _forget_locks_in_child() -> None:
    """A forked worker closes its copy of its parent's lock files: the flock then ends with the
    parent (a worker that outlived a killed parent for a moment would keep the lock held)."""
    for journal in list(_holding):
        journal._let_go()


os.register_at_fork(after_in_child=_forget_locks_in_child)


class Journal:
    """The journal in `root/.war`. On a local or shared file system the lock is a file that
    appears whole (written under a temporary name, flock-ed, then linked to `lock`, which fails
    when a lock is there), and its holder is alive while it holds the file's flock, or, for a
    lock without one, while its process runs; a lock of a writer that is gone is removed only
    under its own flock, so two writers that find it at once cannot both take over. On an
    object store, which has neither an exclusive create nor a process to ask about, the lock is
    an object that its writer rewrites every BEAT seconds, and a holder is alive while its lock
    is younger than STALE seconds."""

    BEAT = 10.0
    STALE = 60.0
    CLAIM_PAUSE = 1.0  # object stores: how long a new lock must survive before it counts as taken

    def __init__(self, root) -> None:
        self.root = root
        self.dir = root / WORK_DIR
        self.lock = self.dir / "lock"
        self.owned = False
        self.planned = False  # this run wrote the plan, or resumes the run whose plan it is
        self._beat: threading.Event | None = None
        self._beater: threading.Thread | None = None
        self._me = b""
        self._held: int | None = None  # the open lock file whose flock this writer holds

    def exists(self) -> bool:
        return self.dir.exists()

    def acquire(self, resume: bool, wait: float = 0.0,
                on_wait: Callable[[dict, float], None] | None = None) -> None:
        """Take the lock. A live writer's lock is waited for up to `wait` seconds (`on_wait(holder,
        wait)` is called once, when the wait starts), then refused; a lock whose writer is gone
        is taken over, but a journal that holds an interrupted run's plan only with `resume`
        (it is that run's, to finish or to discard by name, never to write over)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        me = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                         "token": secrets.token_hex(8)}).encode()
        deadline = time.monotonic() + max(wait, 0.0)
        pause, said = 0.05, False
        while True:
            if not self._claim(me):
                holder = self._holder()
                if self._alive(holder):
                    if resume or time.monotonic() >= deadline:
                        self.refuse(waited=wait if not resume and wait > 0 else None)
                    if not said and on_wait is not None:
                        on_wait(holder or {}, wait)
                    said = True
                    time.sleep(pause)
                    pause = min(pause * 2, 1.0)
                    continue
                if not resume and self.has_plan():
                    self.refuse()
                self._remove_lock_of_the_gone()
                continue
            self.owned = True
            self._me = me
            if is_remote(self.lock):
                self._start_beat(me)
            if not resume and self.has_plan():  # an interrupted run's journal, its lock given up
                self.release()
                self.refuse()
            return

    def has_plan(self) -> bool:
        """Whether the journal holds a run's plan: a run that started and has not finished."""
        return (self.dir / "plan.json").exists()

    def has_records(self) -> bool:
        """Whether any shard of the run has its record: work that --resume would keep."""
        folder = self.dir / "shards"
        try:
            return folder.is_dir() and any(True for _ in folder.iterdir())
        except OSError:
            return False

    def _claim(self, me: bytes) -> bool:
        if not is_remote(self.lock):
            try:
                return self._link_lock(me)
            except FileExistsError:
                return False
            except FileNotFoundError:  # the writer that held it removed its journal meanwhile
                try:
                    self.dir.mkdir(exist_ok=True)
                except FileNotFoundError:
                    raise DatasetError(f"{str(self.root)!r} was removed while waiting for its lock") from None
                return False
        if self.lock.exists():
            return False
        self.lock.put(me)
        time.sleep(self.CLAIM_PAUSE)  # two writers that both saw no lock: the last put wins
        try:
            return self.lock.read_bytes() == me
        except OSError:
            return False

    def _link_lock(self, me: bytes) -> bool:
        """Make the lock whole under a temporary name (a hidden `.NAME.PID.tmp` that `sweep`
        removes after a kill), take its flock, and link it to `lock`: a reader never finds a lock
        without its holder. A file system without links gets the lock by O_EXCL, then written."""
        temporary = self.dir / f".lock-{secrets.token_hex(4)}.{os.getpid()}.tmp"
        fd = os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644)
        try:
            os.write(fd, me)
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                os.link(temporary, self.lock)
            except (FileExistsError, FileNotFoundError):
                raise
            except OSError:  # no hard links here
                os.close(fd)
                fd = -1
                return self._create_lock(me)
        except BaseException:
            if fd >= 0:
                os.close(fd)
            raise
        finally:
            temporary.unlink(missing_ok=True)
        self._held = fd
        _holding.add(self)
        return True

    def _create_lock(self, me: bytes) -> bool:
        fd = os.open(self.lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(me)
        return True

    def _let_go(self) -> None:
        if self._held is not None:
            os.close(self._held)
            self._held = None
        _holding.discard(self)

    def _flock_held(self) -> bool:
        """Whether a live process holds the lock file's flock (a writer dead or gone holds none)."""
        try:
            fd = os.open(self.lock, os.O_RDONLY)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        finally:
            os.close(fd)
        return False

    def _remove_lock_of_the_gone(self) -> None:
        """Remove the lock of a writer that is gone, holding the lock file's own flock while it
        checks that `lock` is still that file: of two writers that judged it gone at once, one
        removes it, and the other finds a live lock (or none) and looks again."""
        if is_remote(self.lock):
            self.lock.unlink(missing_ok=True)
            return
        try:
            fd = os.open(self.lock, os.O_RDONLY)
        except FileNotFoundError:
            return
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return  # a live writer holds it now
            except OSError:
                pass  # no flock here: removed as before
            opened, now = os.fstat(fd), os.stat(self.lock)
            if (opened.st_ino, opened.st_dev) == (now.st_ino, now.st_dev):
                self.lock.unlink(missing_ok=True)
        except FileNotFoundError:
            pass
        finally:
            os.close(fd)

    def _still_mine(self) -> bool:
        try:
            return self.lock.read_bytes() == self._me
        except OSError:
            return False

    def _start_beat(self, me: bytes) -> None:
        stop = self._beat = threading.Event()
        lock = self.lock

        def beat() -> None:
            while not stop.wait(self.BEAT):
                try:
                    if not self._still_mine():
                        return  # taken over while this writer was cut off: never write over it
                    lock.put(me)
                except OSError:
                    pass

        self._beater = threading.Thread(target=beat, name="war-lock-beat", daemon=True)
        self._beater.start()

    def _stop_beat(self) -> None:
        """Stop the rewriting and wait for a put under way, which would otherwise bring the lock
        back after release() or close() removed it."""
        if self._beat is not None:
            self._beat.set()
            self._beater.join(self.STALE)
            self._beat = self._beater = None

    def _alive(self, holder: dict | None) -> bool:
        """Whether the writer that holds the lock still runs, as far as can be told from here."""
        if not is_remote(self.lock) and self._flock_held():
            return True
        if holder is None:
            return False
        if holder.get("host") == socket.gethostname():
            return process_alive(holder.get("pid", -1))
        if not is_remote(self.lock):
            return True  # another machine on a shared file system: no way to ask it
        try:
            written = self.lock.mtime()
            now = self._store_now()
        except OSError:
            return False
        if written is None or now is None:
            return True
        return (now - written).total_seconds() < self.STALE

    def _store_now(self):
        """The store's own clock (the time it stamps on a fresh object), so that a lock's age
        does not depend on how far this machine's clock is from the writer's."""
        probe = self.dir / f"clock-{secrets.token_hex(4)}"
        probe.put(b"")
        try:
            return probe.mtime()
        finally:
            probe.unlink(missing_ok=True)

    def refuse(self, waited: float | None = None) -> None:
        """Raise the error that fits a folder holding this journal: another writer (still there
        after `waited` seconds, when this one waited), or an interrupted run."""
        if self.writing():
            holder = self._holder() or {}
            after = f" after waiting {waited:.0f} s (`wait` says how long)" if waited else ""
            raise DatasetError(f"another war generate (pid {holder.get('pid')} on {holder.get('host')}) is "
                               f"writing to {str(self.root)!r}{after}; wait for it, or remove {self.lock} "
                               f"if it is gone", params=("wait",) if waited else ())
        if self.has_plan() and (self.root / MANIFEST).exists():
            raise DatasetError(f"{str(self.root)!r} holds an interrupted append; finish it with: "
                               f"{self.finish_command()}, or roll it back with `discard`",
                               params=("discard",))
        raise DatasetError(f"{str(self.root)!r} holds an unfinished dataset from an interrupted "
                           f"run (`resume` finishes it, `overwrite` starts again, `discard` removes it)",
                           params=("resume", "overwrite", "discard"))

    def finish_command(self) -> str:
        """How to finish the interrupted run of this journal. Storage knows no command: the
        generic advice here; the journal of a run of generate says its command from its plan
        (jobs.resume.RunJournal)."""
        return FINISH

    def writing(self) -> bool:
        """Whether a writer holds this journal's lock now."""
        return self._alive(self._holder() if self.lock.exists() else None)

    def holder(self) -> dict | None:
        """Who holds the lock ({"pid", "host"}), as its lock file says; None without one."""
        return self._holder()

    def plan(self) -> dict | None:
        """The plan of the run this journal belongs to, None when it cannot be read."""
        try:
            plan = loads_json((self.dir / "plan.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return plan if isinstance(plan, dict) else None

    def _holder(self) -> dict | None:
        try:
            holder = loads_json(self.lock.read_text())
        except (OSError, ValueError):
            return None
        return holder if isinstance(holder, dict) else None

    def clear_if_stale(self) -> None:
        """Remove a journal whose writer is gone and that holds no interrupted run: only a lock,
        or the plan of a run whose manifest was written (killed before its clean-up)."""
        if not self.dir.exists() or self.writing():
            return
        plan = self.plan()
        if self.has_plan() and not finished(plan, self.root):
            return
        remove_tree(self.dir)

    def sweep(self) -> None:
        """Remove temporary files that writers killed mid-write left behind (hidden names
        `.NAME.PID.tmp`, never read as data) when their process is gone."""
        sweep_temporaries(self.root.rglob(".*.tmp"))

    def plan_text(self) -> str | None:
        """The plan as its run wrote it; None when the journal holds none."""
        path = self.dir / "plan.json"
        return path.read_text(encoding="utf-8") if path.exists() else None

    def write_plan(self, text: str) -> None:
        """Write the plan of the run that holds the lock (atomically), before any of its shards."""
        atomic_write_bytes(self.dir / "plan.json", text.encode(), dataset=True)
        self.planned = True

    def done(self, part: int) -> list[dict] | None:
        """The files a finished shard wrote, from its record; None for a shard without a
        readable record (never finished, or its record lost to a power cut)."""
        try:
            entries = loads_json(record_path(self.dir, part).read_text(encoding="utf-8"))
            if isinstance(entries, list) and entries:
                for entry in entries:
                    DataFile.model_validate(entry)  # a ValidationError is a ValueError
                return entries
        except (OSError, ValueError):
            pass
        return None

    def close(self) -> None:
        """Remove the journal once the manifest is written: its records and plan first, the lock
        last, then the empty folder. A writer waiting for the lock (an append queued behind this
        one) then finds this run's lock, or a journal without a plan, never the plan of a run
        that has finished; the folder stays when that writer has taken the lock already."""
        self._stop_beat()
        if self.owned and not self._still_mine():  # taken over while this writer was cut off
            self.owned = False
        if self.owned:
            for child in list(self.dir.iterdir()):
                if child.name != self.lock.name:
                    if child.is_dir():
                        remove_tree(child)
                    else:
                        child.unlink(missing_ok=True)
            self.lock.unlink(missing_ok=True)
            self._remove_folder()
            self.owned = False
        self._let_go()

    def _remove_folder(self) -> None:
        if is_remote(self.dir):
            if self.dir.object_store:  # no folders: nothing left
                return
            try:
                if not any(True for _ in self.dir.iterdir()):
                    self.dir.remove_tree()
            except OSError:
                pass
            return
        try:
            self.dir.rmdir()
        except OSError:  # another writer's lock is in it already
            pass

    def release(self) -> None:
        """Give up the lock after a failure, keeping the plan and records for --resume; a journal
        with no plan (the run stopped before it started writing) is removed whole."""
        self._stop_beat()
        if self.owned:
            if not self.has_plan():
                self.close()
                return
            if self._still_mine():
                self.lock.unlink(missing_ok=True)
            self.owned = False
        self._let_go()


def finished(plan: dict | None, root) -> bool:
    """Whether the run of `plan` has finished: every rule set it planned is in the manifest at
    `root` (a run killed between its manifest and its clean-up leaves such a journal)."""
    if not plan or not isinstance(plan.get("rule_sets"), list):
        return False
    try:
        manifest = loads_json((root / MANIFEST).read_text(encoding="utf-8"), limit=None)
        have = {(e["ordinal"], e["rules_id"]) for e in manifest["rule_sets"]}
        return all((e["ordinal"], e["rules_id"]) in have for e in plan["rule_sets"])
    except (OSError, ValueError, KeyError, TypeError):
        return False


def record_path(journal_dir, part: int):
    return location(journal_dir) / "shards" / f"part-{part:05d}.json"


def record_shard(journal_dir: str, part: int, entries: list[dict], durable: bool) -> None:
    """Written by the worker that finished the shard, after its data files. Like them, it reaches
    the disk for sure only at the run's end (files.make_durable): after a power cut a record may
    be empty, or name files that are, and --resume then plays the shard again (Journal.done
    reads an unreadable record as none; generate checks each file's checksum)."""
    atomic_write_bytes(record_path(journal_dir, part), json.dumps(entries, sort_keys=True).encode(),
                       durable=durable, dataset=True)


def being_written(root) -> str | None:
    """Who writes the dataset at `root` now ("pid N", "pid N on HOST" for another machine's
    writer, "another process" when its lock names none), as its journal's lock says; None when
    no live writer holds it (no journal, or the journal of a run that died: `--resume` finishes
    that). Local storage only: on an object store a lock's age says whether its writer lives,
    which a reader cannot tell without writing (journal.Journal._store_now), so None there."""
    if is_remote(root):
        return None
    journal = Journal(root)
    try:
        if not journal.lock.exists() or not journal.writing():
            return None
        holder = journal.holder() or {}
    except OSError:
        return None
    pid, host = holder.get("pid"), holder.get("host")
    if not isinstance(pid, int):
        return "another process"
    return f"pid {pid}" if host in (None, socket.gethostname()) else f"pid {pid} on {host}"
