"""Whether a process runs: a module of its own, importing nothing of war, so that a query's
light session (jobs/query/session.py) asks it without the journal's models."""

from __future__ import annotations

import os


def process_alive(pid: int) -> bool:
    """Whether a process runs (a zombie, dead but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            said = f.read()
        return said[said.rindex(")") + 2] not in "ZX"
    except (OSError, ValueError, IndexError):
        return True
