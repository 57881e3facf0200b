"""war serve's report kept beside the dataset's journal, so that a second start on the same data
answers at once: `DS/.war-report/report-KEY.html`, the page as the server shows it.

KEY is a SHA-256 of what the page is made from: the manifest's own SHA-256 (a new manifest, as
`war generate --append` writes, is a new dataset), the name the server shows, and the code
that makes the page (war's package files and the named queries' SQL), so a report is never
shown for other data or by another version of war. Only the newest is kept. The folder is war's
own (storage.dataset.REPORT_DIR: `overwrite` replaces it, nothing else writes there).

A dataset the server may not write to (read-only, on an object store) has no kept report: the
server builds it at each start, as it did before. A kept report that cannot be read is built
again.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from ..errors import WarError
from ..jobs.query import named_queries
from ..storage.dataset import REPORT_DIR
from ..storage.files import atomic_write_bytes
from ..storage.location import is_remote

CODE_SUFFIXES = (".py", ".html", ".css", ".js")


@cache
def code_stamp() -> str:
    """A SHA-256 of the code that makes the report: the package's source files and every named
    query's SQL (a few milliseconds)."""
    h = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]
    for path in sorted(p for p in package.rglob("*") if p.suffix in CODE_SUFFIXES and "__pycache__" not in p.parts):
        h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    for name, query in sorted(named_queries().items()):
        h.update(name.encode() + b"\0" + query.sql.encode() + b"\0")
    return h.hexdigest()


def report_key(manifest_digest: str, name: str) -> str:
    """The key of the report of the manifest whose SHA-256 is `manifest_digest`, shown under `name`."""
    return hashlib.sha256("\0".join((manifest_digest, name, code_stamp())).encode()).hexdigest()


def _folder(root) -> Path | None:
    return None if is_remote(root) else Path(root) / REPORT_DIR


def kept_report(root, key: str) -> str | None:
    """The report kept under `key` in the dataset at `root`, or None."""
    folder = _folder(root)
    if folder is None:
        return None
    try:
        return (folder / f"report-{key}.html").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def keep_report(root, key: str, page: str) -> bool:
    """Keep `page` under `key` beside the dataset at `root`, the reports of other keys removed;
    whether it was kept (False where the dataset cannot be written)."""
    folder = _folder(root)
    if folder is None:
        return False
    path = folder / f"report-{key}.html"
    try:
        atomic_write_bytes(path, page.encode("utf-8"), durable=False, dataset=True)
        for old in folder.glob("report-*.html"):
            if old.name != path.name:
                old.unlink(missing_ok=True)
    except (OSError, WarError):
        return False
    return True
