"""war serve's report kept in war's own cache, per user, so that a second start on the same data
answers at once. Reading a dataset writes nothing into it: the reports are kept in
`$WAR_REPORT_CACHE` when it is set (the tests' own folder, which leaves the compiled engines
where they are), else in `reports/` of war's per-user cache (places.user_cache:
`$WAR_CACHE_DIR`, else `$XDG_CACHE_HOME/war`, else `~/.cache/war`).

An entry is `report-PLACE-KEY.html`, the page as the server shows it, and beside it
`report-PLACE-KEY.sha256`, the SHA-256 of the page's bytes. PLACE is a digest of where the
dataset is (its real path) and the name the server shows; KEY a SHA-256 of everything the page
is made from: PLACE, the manifest's own SHA-256 (which pins every data file by its checksum),
each listed file's size, modification and change times and inode as the file system gives them (a file
changed, or written anew, without a new manifest), and the code that makes the page (war's
package files and the named queries' SQL). So a copy of the dataset, changed data or another
version of war never read another's report. An entry is read only when its page's bytes have
the digest beside them; anything else (missing, unreadable, edited, cut short) is built again.
Only the newest entry of a PLACE is kept, and at most MOST_KEPT entries in all.

A dataset on an object store has no kept report (its files' times are not at hand): the
server builds it at each start. A cache that cannot be written to is no error: the report is
built at each start, as it was. A `.war-report/` folder that an older war left in a dataset is
never read (storage.dataset.REPORT_DIR: still war's own name, which `overwrite` removes).
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

from ..errors import WarError
from ..jobs.query import named_queries
from ..places import contents_digest, user_cache
from ..storage.dataset import Dataset
from ..storage.files import atomic_write_bytes
from ..storage.location import is_remote

CODE_SUFFIXES = (".py", ".html", ".css", ".js")
CACHE_ENV = "WAR_REPORT_CACHE"  # the reports' folder itself
MOST_KEPT = 64  # entries in the cache, the oldest removed first


@cache
def code_stamp() -> str:
    """A SHA-256 of the code that makes the report: the package's source files and every named
    query's SQL (a few milliseconds)."""
    package = Path(__file__).resolve().parents[1]
    h = contents_digest(package, (p for p in package.rglob("*")
                                  if p.suffix in CODE_SUFFIXES and "__pycache__" not in p.parts))
    for name, query in sorted(named_queries().items()):
        h.update(name.encode() + b"\0" + query.sql.encode() + b"\0")
    return h.hexdigest()


def cache_folder() -> Path:
    """Where this user's kept reports are (the module's docstring)."""
    chosen = os.environ.get(CACHE_ENV)
    return Path(chosen).expanduser() if chosen else user_cache() / "reports"


def _sha(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def report_key(root, manifest_digest: str, name: str) -> str | None:
    """The name of the entry of the dataset at `root` whose manifest has the SHA-256
    `manifest_digest`, shown under `name`: `PLACE-KEY` (the module's docstring); None for a
    dataset that has no kept report (on an object store, or its files not all there)."""
    try:
        ds = Dataset.open(root, check_paths=False)
        if is_remote(ds.root):
            return None
        where = os.path.realpath(ds.root)
        stats = []
        for f in sorted({f.path for f in ds.manifest.files}):
            st = os.stat(Path(where) / f)
            stats.append(f"{f}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}:{st.st_dev}")
    except (OSError, WarError, ValueError):
        return None
    place = _sha(where, name)[:16]
    return f"{place}-{_sha(place, manifest_digest, *stats, code_stamp())}"


def _paths(key: str) -> tuple[Path, Path]:
    folder = cache_folder()
    return folder / f"report-{key}.html", folder / f"report-{key}.sha256"


def kept_report(key: str | None) -> str | None:
    """The page kept under `key` when its bytes are those its digest says, else None."""
    if key is None:
        return None
    page, digest = _paths(key)
    try:
        data = page.read_bytes()
        said = digest.read_text(encoding="ascii").strip()
        if hashlib.sha256(data).hexdigest() != said:
            return None
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def keep_report(key: str | None, page: str) -> bool:
    """Keep `page` under `key` in the cache (the page, then its digest, each written whole), the
    other entries of its place removed; whether it was kept (False where the cache cannot be
    written)."""
    if key is None:
        return False
    html, digest = _paths(key)
    data = page.encode("utf-8")
    try:
        html.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        digest.unlink(missing_ok=True)  # no digest, no entry: never a page beside another's digest
        atomic_write_bytes(html, data, durable=False, dataset=True)
        atomic_write_bytes(digest, hashlib.sha256(data).hexdigest().encode() + b"\n", durable=False, dataset=True)
        _tidy(html.parent, key)
    except (OSError, WarError):
        return False
    return True


def _tidy(folder: Path, key: str) -> None:
    """Remove the entries of `key`'s place but `key`'s own, then the oldest past MOST_KEPT."""
    place = key.split("-", 1)[0]
    entries = {}
    for path in folder.glob("report-*"):
        entry = path.name[len("report-"):].rsplit(".", 1)[0]
        if entry != key and entry.split("-", 1)[0] == place:
            path.unlink(missing_ok=True)
        elif path.suffix == ".html":
            entries[entry] = path

    def age(entry: str) -> float:
        try:
            return entries[entry].stat().st_mtime
        except OSError:
            return 0.0
    for entry in sorted(entries, key=age, reverse=True)[MOST_KEPT:]:
        for path in _paths(entry):
            path.unlink(missing_ok=True)
