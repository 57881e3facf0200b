"""The journal of a dataset being written: `.war/` holds the lock, the plan, and one record per
finished shard. It is what makes `--resume` possible after a crash or `kill -9`, and what
refuses a second writer.

Order of writing: a shard's data files (each atomically), then its record (atomically); the
manifest last; then the journal is removed. A record therefore always describes files that are
whole, and a shard without a record is simply played again, giving the same bytes.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
from pathlib import Path

from .dataset import WORK_DIR
from .errors import DatasetError
from .storage import atomic_write_bytes



def _alive(pid: int) -> bool:
    """Whether a process runs (a zombie, dead but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat[stat.rindex(")") + 2] not in "ZX"
    except (OSError, ValueError, IndexError):
        return True


class Journal:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.dir = root / WORK_DIR
        self.lock = self.dir / "lock"
        self.owned = False

    def exists(self) -> bool:
        return self.dir.exists()

    def acquire(self, resume: bool) -> None:
        """Take the lock; an interrupted run's stale lock only with `resume`."""
        self.dir.mkdir(parents=True, exist_ok=True)
        me = json.dumps({"pid": os.getpid(), "host": socket.gethostname()}).encode()
        while True:
            try:
                fd = os.open(self.lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                holder = self._holder()
                if not resume or (holder is not None and (holder.get("host") != socket.gethostname()
                                                          or _alive(holder["pid"]))):
                    self.refuse()
                self.lock.unlink(missing_ok=True)
                continue
            with os.fdopen(fd, "wb") as f:
                f.write(me)
            self.owned = True
            return

    def refuse(self) -> None:
        """Raise the error that fits a folder holding this journal: another writer, or an
        interrupted run."""
        holder = self._holder() if self.lock.exists() else None
        if holder is not None and (holder.get("host") != socket.gethostname() or _alive(holder["pid"])):
            raise DatasetError(f"another war generate (pid {holder.get('pid')} on {holder.get('host')}) is "
                               f"writing to {str(self.root)!r}; wait for it, or remove {self.lock} if it is gone")
        raise DatasetError(f"{str(self.root)!r} holds an unfinished dataset from an interrupted "
                           f"run (--resume finishes it, --overwrite starts again)")

    def _holder(self) -> dict | None:
        try:
            return json.loads(self.lock.read_text())
        except (OSError, ValueError):
            return None

    def clear_if_stale(self) -> None:
        """Remove a journal whose writer is gone (a finished dataset keeps no journal)."""
        holder = self._holder() if self.lock.exists() else None
        if self.dir.exists() and (holder is None or (holder.get("host") == socket.gethostname()
                                                     and not _alive(holder["pid"]))):
            shutil.rmtree(self.dir, ignore_errors=True)

    def sweep(self) -> None:
        """Remove temporary files that writers killed mid-write left behind (hidden names
        `.NAME.PID.tmp`, never read as data) when their process is gone."""
        for path in self.root.rglob(".*.tmp"):
            try:
                pid = int(path.name.rsplit(".", 2)[-2])
            except (ValueError, IndexError):
                continue
            if pid != os.getpid() and not _alive(pid):
                path.unlink(missing_ok=True)

    def check_plan(self, plan: dict, resume: bool) -> None:
        """Write the plan, or on resume check that it is the interrupted run's plan."""
        path = self.dir / "plan.json"
        text = json.dumps(plan, sort_keys=True, indent=1)
        if resume and path.exists():
            if path.read_text(encoding="utf-8") != text:
                raise DatasetError(f"the arguments differ from those of the interrupted run in "
                                   f"{str(self.root)!r}; resume with the same command")
            return
        atomic_write_bytes(path, text.encode())

    def record_path(self, part: int) -> Path:
        return self.dir / "shards" / f"part-{part:05d}.json"

    def done(self, part: int) -> list[dict] | None:
        path = self.record_path(part)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def close(self) -> None:
        """Remove the journal once the manifest is written."""
        if self.owned:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.owned = False

    def release(self) -> None:
        """Give up the lock after a failure, keeping the records for --resume."""
        if self.owned:
            self.lock.unlink(missing_ok=True)
            self.owned = False


def record_shard(journal_dir: str, part: int, entries: list[dict]) -> None:
    path = Path(journal_dir) / "shards" / f"part-{part:05d}.json"
    atomic_write_bytes(path, json.dumps(entries, sort_keys=True).encode())
