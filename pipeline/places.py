"""Where war keeps what it works out once per user and reuses: the compiled engines' machine code
(keyed by the code that compiled it, so every checkout of the same version shares it) and the
reports `war serve` keeps (keyed by the data they show). Never inside a dataset or a checkout:
reading a dataset writes nothing into it, and a new clone finds the engines compiled.

WAR_CACHE_DIR names the folder; otherwise it is war's folder of the user's cache
($XDG_CACHE_HOME/war, else ~/.cache/war).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Iterable


def user_cache() -> Path:
    """The folder of war's per-user cache (not made here)."""
    chosen = os.environ.get("WAR_CACHE_DIR")
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base).expanduser() if base else Path.home() / ".cache") / "war"


def contents_digest(root: Path, paths: Iterable[Path]):
    """A SHA-256 (a hashlib object, to add to) of the files `paths` under `root`: each one's path
    from `root` and its bytes, in the order of their paths. By contents, not modification times,
    so that every checkout of the same code gives the same digest."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest


def keep(path: Path, data: bytes) -> bool:
    """`data` written to the cache file `path` whole or not at all (beside it, then renamed):
    whether it was. A cache that cannot be written is no error, only a slower next start."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        part.write_bytes(data)
        os.replace(part, path)
        return True
    except OSError:
        return False


def prune(folder: Path, pattern: str, kept: int) -> None:
    """Remove all but the `kept` newest files of `folder` matching `pattern` (a cache's stale
    entries); a file gone meanwhile, or a folder that cannot be read, is left as it is."""
    try:
        files = sorted(folder.glob(pattern), key=lambda f: f.stat().st_mtime_ns, reverse=True)
        for old in files[kept:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
