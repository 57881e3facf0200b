"""What a dataset folder holds of war's own: the manifest, the journal of a run writing it, and
the folders of its files; and whether a path lies among them. The names every part of storage
knows a dataset by (dataset, files, journal), in a module of their own below all three."""

from __future__ import annotations

import json
import os
from pathlib import Path

from .location import is_remote, location, real_path

MANIFEST = "manifest.json"
WORK_DIR = ".war"  # the journal of a dataset being written: pipeline.journal
REPORT_DIR = ".war-report"  # beside it: war serve's report of the manifest (present.report_cache)
OWN_NAMES = (MANIFEST, WORK_DIR, REPORT_DIR, "games", "events", "deals", "seeds", "counts",
             "count_shards")  # only war writes these
SOLUTION_MANIFEST = "solution.json"  # a solution's (war solve): its own files beside it, only war solve writes them
SOLUTION_VIEWS = ("deals", "positions", "distribution")  # its Parquet files, each a view of its name
SOLUTION_NAMES = (SOLUTION_MANIFEST, *(v + ".parquet" for v in SOLUTION_VIEWS))


def part_said(part: str) -> str:
    """How a message names a part of a dataset (inside_dataset): "the manifest", "inside games/",
    and of a solution "the manifest", "deals.parquet"; and the command that alone writes it."""
    if part in (MANIFEST, SOLUTION_MANIFEST):
        return "the manifest"
    return part if part in SOLUTION_NAMES else f"inside {part}/"


def inside_refused(path, param: str, found: tuple, noun: str, writer: str = "war generate") -> str:
    """The one line that refuses `path` (the argument `param`, a file or folder: `noun`) where
    inside_dataset `found` it: which part of which dataset or solution, and what alone writes
    there (`writer` for a dataset's part, war solve for a solution's)."""
    dataset, part = found
    kind, writer = ("solution", "war solve") if part in SOLUTION_NAMES else ("dataset", writer)
    return (f"`{param}` {str(path)!r} is {part_said(part)} of the {kind} {str(dataset)!r}, which only {writer} "
            f"writes; choose a {noun} outside it")


def inside_dataset(path, param: str | None = None) -> tuple[Path, str] | None:
    """The dataset folder whose own files or journal the local `path` is in (`DS/manifest.json`,
    `DS/.war/x`, `DS/games/...`, a solution's `SOL/solution.json` and `SOL/deals.parquet`), and
    which of them; None elsewhere, and for remote paths. A folder is a dataset here when it holds
    a manifest.json or a journal, a solution when it holds a solution.json. Only war's own writes
    go there: a query's output over a manifest, or a new dataset inside a journal that a later
    run removes, would break or lose data. Symbolic links are followed (location.real_path: a
    loop of them, or one to nothing, is refused as the argument `param`)."""
    if not isinstance(path, (str, Path)) or isinstance(path, str) and "://" in path:
        return None
    target = real_path(path, param)
    for parent in target.parents:
        first = target.relative_to(parent).parts[0]
        if first in OWN_NAMES and ((parent / MANIFEST).is_file() or (parent / WORK_DIR).is_dir()):
            return parent, first
        if first in SOLUTION_NAMES and (parent / SOLUTION_MANIFEST).is_file():
            return parent, first
    return None


def listed_files(root) -> dict[str, str]:
    """The data files the manifest of the local dataset at `root` lists, path to SHA-256 (read
    as JSON, no models): what a reader held open stats at each question (files_identity).
    OSError when the manifest cannot be read."""
    return {f["path"]: f["sha256"] for f in json.loads((location(root) / MANIFEST).read_bytes()).get("files", [])}


def files_identity(root, paths) -> tuple:
    """What the data files `paths` (listed_files') of the dataset at `root` are now, by stat
    alone: for each its path, size, modification and change times, inode and device; () for a
    dataset on remote storage. A file replaced (`cp`), edited, or put back with its old time
    (`touch -r` sets the modification time, never the change time) is another identity: a reader
    that opened the dataset before refuses to answer from it. OSError when a file cannot be read."""
    where = location(root)
    if is_remote(where):
        return ()
    out = []
    for path in sorted(paths):
        st = os.stat(where / path)
        out.append((path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev))
    return tuple(out)
