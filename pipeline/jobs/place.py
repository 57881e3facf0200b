"""Where a run of `generate` writes, and what it may touch there: the output folder or a staging
folder beside it (`overwrite`), war's own files in a dataset and the user's, the staging folders
of killed runs, and rolling an interrupted run back (`discard`).

War's own files are `manifest.json`, the journal `.war/` (its lock, plan and shard records), war
serve's report `.war-report/report-HASH.html`, and in `games/`, `events/`, `deals/` and `seeds/`
the names war writes, with the hidden temporary
names they are written under first. Anything else in a dataset folder is the user's: war never
removes it, and names it when it is in the way.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
from dataclasses import dataclass
from pathlib import Path

from ..errors import DatasetError
from ..storage.dataset import Dataset
from ..storage.layout import MANIFEST, REPORT_DIR, WORK_DIR, inside_dataset, inside_refused
from ..storage.files import check_parents, make_folder, remove_tree
from ..storage.journal import Journal
from ..storage.processes import process_alive
from ..storage.location import glob_literal, is_remote, real_path
from .resume import RunJournal

OWN_FOLDERS = ("games", "events", "deals", "seeds", "counts", "count_shards")
PART_FOLDERS = ("games", "events", "counts", "count_shards")
_TEMPORARY = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)\.tmp")


def _final_name(rel: str) -> str:
    """The name a file will have once written: a temporary name's final name, else `rel`."""
    folder, _, name = rel.rpartition("/")
    m = _TEMPORARY.fullmatch(name)
    if m is None:
        return rel
    return f"{folder}/{m['name']}" if folder else m["name"]


def own(rel: str) -> bool:
    """Whether a file at `rel` (relative to a dataset folder) is one that war writes: the
    manifest, a part file, a deals or seeds file, a journal file, or one of these under the
    temporary name a killed writer left. A hidden file of the user's is not, whatever it ends in."""
    rel = _final_name(rel)
    parts = rel.split("/")
    name = parts[-1]
    if rel == MANIFEST:
        return True
    if parts[0] == WORK_DIR:
        inner = parts[1:]
        return inner in (["lock"], ["plan.json"]) or \
            (len(inner) == 2 and inner[0] == "shards" and re.fullmatch(r"part-\d+\.json", inner[1]) is not None) or \
            (len(inner) == 2 and inner[0] == "counts" and re.fullmatch(r"part-\d+\.parquet", inner[1]) is not None) or \
            (len(inner) == 1 and re.fullmatch(r"clock-[0-9a-f]+", inner[0]) is not None)
    if parts[0] in ("deals", "seeds"):
        return len(parts) == 2 and re.fullmatch(r"rule_set-\d+\.jsonl", name) is not None
    if parts[0] == REPORT_DIR:
        return len(parts) == 2 and re.fullmatch(r"report-[0-9a-f]{64}\.html", name) is not None
    return len(parts) == 3 and parts[0] in PART_FOLDERS and parts[1].startswith("variant=") and \
        re.fullmatch(r"part-\d+\.parquet", name) is not None


def _looks_like_dataset(root) -> bool:
    return any((root / name).exists() for name in (MANIFEST, WORK_DIR, "games", "events"))


def foreign_files(root) -> list[str]:
    """What `overwrite` would remove that war did not write: everything in the folder but war's
    own files (the module's docstring), hidden files included."""
    found = []
    for path in sorted(root.iterdir(), key=lambda p: p.name):
        name = path.name
        if name == MANIFEST and not path.is_dir():
            continue
        if name in OWN_FOLDERS + (WORK_DIR, REPORT_DIR) and path.is_dir():
            for inner in sorted(path.rglob("*"), key=str):
                rel = inner.relative_to(root).as_posix()
                if not inner.is_dir() and not own(rel):
                    found.append(rel)
            continue
        found.append(name + ("/" if path.is_dir() else ""))
    return found


def refuse_inside_dataset(root) -> None:
    """An output folder may not be inside a dataset's own files or journal (`DS/.war`,
    `DS/games/x`): a later run of that dataset would write over it or remove it."""
    found = inside_dataset(root, "out")
    if found is not None:
        raise DatasetError(inside_refused(root, "out", found, "folder", writer="war"), params=("out",))


def real_place(root):
    """The folder an `out` names: a symbolic link is followed, so that `overwrite` swaps the
    folder it points to and leaves the link as it is (a loop of links, or a link to nothing, is
    refused: location.real_path)."""
    if isinstance(root, Path) and root.is_symlink():
        return real_path(root, "out")
    return root


def _stage_name(root: Path, kind: str, pid: int | None = None) -> Path:
    """The hidden sibling of `root` that a run of this machine's process `pid` stages in
    (kind "new") or moves the old dataset to while it swaps (kind "old")."""
    return root.with_name(f".{root.name}.{kind}-{socket.gethostname()}.{pid or os.getpid()}")


def sweep_staging(root) -> list[Path]:
    """Clean up after runs into `root` (a local folder) that were killed while they replaced a
    dataset (`overwrite`): their staging folders are removed, and a dataset moved aside to be
    swapped out is put back where the swap had not finished (no folder at `root`), else
    removed. Only runs of this machine whose process is gone; returns what was removed."""
    if not isinstance(root, Path) or not root.parent.is_dir():
        return []
    removed = []
    prefix = f".{root.name}."
    for kind in ("old", "new"):
        head = f"{prefix}{kind}-{socket.gethostname()}."
        for path in sorted(root.parent.glob(glob_literal(head) + "*")):
            pid = path.name[len(head):]
            if not pid.isdigit() or int(pid) == os.getpid() or process_alive(int(pid)):
                continue
            if kind == "old" and not root.exists():
                os.replace(path, root)  # the swap was cut between its two renames: the old dataset back
                continue
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def check_new_output(root, overwrite: bool) -> bool:
    """Whether a new dataset may be written to `root`, checked without writing anything: refused
    (DatasetError) inside a dataset's own files, over a file, over another writer's run, over
    data without `overwrite`, and over anything but a war dataset. True when there is a dataset
    to replace, False when `root` is new or empty. For a command that works long before it
    writes (war search), so that a refusal comes before the work."""
    refuse_inside_dataset(root)
    return _replaces(real_place(root), overwrite)


def _replaces(root, overwrite: bool) -> bool:
    """check_new_output of the folder `root` names (real_place), not inside a dataset's own files."""
    check_parents(root, "out")  # a missing folder is made, as every --output's is
    if root.exists() and not root.is_dir():
        raise DatasetError(f"output {str(root)!r} is a file, not a folder")
    if not (root.exists() and any(root.iterdir())):
        return False
    if (root / WORK_DIR).exists():
        journal = RunJournal(root)
        if journal.writing() or (not overwrite and (journal.has_plan() or not (root / MANIFEST).exists())):
            journal.refuse()
    foreign = foreign_files(root)
    if not _looks_like_dataset(root):  # `overwrite` would be refused: never advised
        raise DatasetError(f"output folder {str(root)!r} is not a war dataset: it holds {_shown(foreign)}; "
                           f"write to a new or empty folder")
    if foreign:
        raise DatasetError(f"output folder {str(root)!r} holds files war did not write: {_shown(foreign)}; "
                           f"`overwrite` replaces only a war dataset, so move them out first",
                           params=("overwrite",))
    if not overwrite:
        raise DatasetError(f"output folder {str(root)!r} already holds data "
                           f"(use `overwrite` to replace it)", params=("overwrite",))
    return True


def _shown(files: list[str]) -> str:
    """The first five of `files`, and how many more."""
    return ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")


def prepare_output(root, overwrite: bool):
    """Where to write: the folder itself when it is new or empty, or a staging folder beside it
    that replaces it only once complete (`overwrite`), so the old data survives a failure.
    Checked as check_new_output checks it, but for the refusal inside a dataset's own files,
    which generate has said before it reached a Dask cluster (refuse_inside_dataset).

    An object store has no folder to swap in: there `overwrite` removes the old dataset, its
    manifest first, and writes the new one in its place; a failure then leaves an unfinished
    dataset that `resume` finishes, never a mix of old and new files under a manifest."""
    root = real_place(root)
    sweep_staging(root)
    if _replaces(root, overwrite):
        if is_remote(root):
            (root / MANIFEST).unlink(missing_ok=True)
            remove_tree(root)
            return root
        staging = _stage_name(root, "new")
        shutil.rmtree(staging, ignore_errors=True)
        make_folder(staging, exist_ok=False)
        return staging
    make_folder(root)
    return root


def swap_in(staging: Path, root: Path) -> None:
    """Put the finished dataset in `staging` in the place of `root`'s. A kill between the two
    renames leaves the old dataset aside, which the next run into `root` puts back
    (sweep_staging)."""
    root = real_place(root)
    old = _stage_name(root, "old")
    os.replace(root, old)
    os.replace(staging, root)
    shutil.rmtree(old, ignore_errors=True)


def strays(root) -> list:
    """War's files in the dataset folder `root` that its manifest does not list (all of them
    when it has no manifest): what an interrupted run wrote. Temporary names included; the
    journal not."""
    listed: set[str] = set()
    if (root / MANIFEST).exists():
        manifest = Dataset.open(root, check_paths=False).manifest
        listed = {f.path for f in manifest.files}
    found = []
    for folder in OWN_FOLDERS:
        if not (root / folder).is_dir():
            continue
        for path in sorted((root / folder).rglob("*"), key=str):
            rel = path.relative_to(root).as_posix()
            if not path.is_dir() and own(rel) and rel not in listed:
                found.append(path)
    return found


def roll_back(root, journal: Journal) -> int:
    """Remove what an interrupted run wrote into `root` (strays) and then its journal, whose
    lock `journal` holds: a dataset an append was interrupted in is then as it was before.
    Returns how many files were removed."""
    removed = 0
    for path in strays(root):
        path.unlink(missing_ok=True)
        removed += 1
    for folder in OWN_FOLDERS:
        _remove_empty_folders(root / folder)
    journal.close()
    return removed


def _remove_empty_folders(folder) -> None:
    if not isinstance(folder, Path) or not folder.is_dir():
        return
    for path in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_dir():
            try:
                path.rmdir()
            except OSError:
                pass
    try:
        folder.rmdir()
    except OSError:
        pass


@dataclass
class Discarded:
    """What `discard` did: the folder, whether it held an interrupted append (its dataset is as
    it was before) or an unfinished dataset, and how many files it removed."""
    root: object
    append: bool
    files: int


def discard(out) -> Discarded:
    """Roll back the interrupted run in `out`: the files it wrote that no manifest lists, and
    its journal. An interrupted append leaves its dataset as it was before it; an interrupted
    new dataset leaves the folder without war's files (the user's stay). Refused while a writer
    holds the folder, and where there is no interrupted run."""
    from ..storage.location import location  # the one place discard takes a user's path

    root = real_place(location(out))
    refuse_inside_dataset(root)
    if not (root / WORK_DIR).exists():
        raise DatasetError(f"nothing to discard in {str(root)!r}: no interrupted run there", params=("discard",))
    journal = RunJournal(root)
    journal.acquire(resume=True)
    try:
        append = (root / MANIFEST).exists()
        files = roll_back(root, journal)
    except BaseException:
        journal.release()
        raise
    return Discarded(root, append, files)
