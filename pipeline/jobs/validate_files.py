"""Validating a dataset's files and manifest: every listed file exists with its checksum, row
count, schema and compression, no data file is left unlisted, an append's journal is named, the
manifest's engine versions are versions war knows and those its files were written by, and
every rule set's id is its rules' id; the problems found, in a Report (jobs.validate checks the
games)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa

from ..log.counts import COUNT_SCHEMA, COUNT_SHARD_SCHEMA
from ..log.tables import event_schema, game_schema
from ..model.inputs import not_regular
from ..model.plural import plural
from ..model.schema import ENGINE_VERSION
from ..storage.dataset import MANIFEST, Dataset
from ..storage.files import parquet_file, sha256_file


@dataclass
class Problem:
    file: str | None
    game_id: int | None
    seq: int | None
    message: str

    def __str__(self) -> str:
        where = []
        if self.file:
            where.append(self.file)
        if self.game_id is not None:
            where.append(f"game {self.game_id}")
        if self.seq is not None:
            where.append(f"seq {self.seq}")
        return (": ".join([", ".join(where), self.message]) if where else self.message)


@dataclass
class Report:
    games_checked: int = 0
    good: int = 0
    bad: int = 0
    problems: list[Problem] = field(default_factory=list)
    digests: dict[str, str] = field(default_factory=dict)  # a shard's files, hashed by its worker

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        """The last line: games checked, good and bad, and the problems of no game. Problems that
        name games none of which is counted bad (the events of a game outside its file's range)
        are counted apart, so that it never says every game is good under BAD lines."""
        files = sum(1 for p in self.problems if p.game_id is None)
        tail = f", {plural(files, 'file problem')}" if files else ""
        if self.problems and not files and not self.bad:
            tail = f", {plural(len(self.problems), 'problem')}"
        return f"games checked: {self.games_checked}, good: {self.good}, bad: {self.bad}{tail}"


# every engine a war has played by, 1 to this war's (docs/decisions.md, "Positions by rank (engine
# version 2)"): a dataset keeps the one that played it
ENGINE_VERSIONS = tuple(str(v) for v in range(1, int(ENGINE_VERSION) + 1))


def engine_problems(ds: Dataset, written: dict[str, str]) -> list[Problem]:
    """The manifest's engine versions (the dataset's, and a rule set's own where it has one): each
    one this war knows (ENGINE_VERSIONS), and each rule set's that of the engine its games and
    events files say they were written by (`war.engine_version` in their metadata: `written`, by
    path). A counts rule set is held to the first alone: `war combine` writes its files again
    by this war, keeping the engine that counted its slices."""
    manifest = ds.manifest
    known = ", ".join(ENGINE_VERSIONS)
    problems = []
    if manifest.engine_version not in ENGINE_VERSIONS:
        problems.append(Problem(MANIFEST, None, None, f"engine_version {manifest.engine_version!r} is not an engine "
                                                      f"version this war knows ({known})"))
    for entry in manifest.rule_sets:
        own = entry.engine_version
        if own is not None and own not in ENGINE_VERSIONS:
            problems.append(Problem(MANIFEST, None, None, f"rule set {entry.ordinal}: engine_version {own!r} is not "
                                                          f"an engine version this war knows ({known})"))
            continue
        version = manifest.engine_version if own is None else own
        if version not in ENGINE_VERSIONS or entry.log == "counts":
            continue
        found = sorted({written[f.path] for f in manifest.files if f.rule_set == entry.ordinal and f.path in written}
                       - {version})
        if found:
            whose = "its own engine_version" if own is not None else "the manifest's engine_version"
            problems.append(Problem(MANIFEST, None, None, (
                f"rule set {entry.ordinal}: engine version {version} ({whose}), but its files were written by "
                f"engine version {', '.join(found)} (war.engine_version in their metadata)")))
    return problems


def is_wars_schema(found: pa.Schema, expected: pa.Schema) -> bool:
    """Whether a file's Arrow schema, as read, is `expected` as war writes it. Its list columns'
    items are named `element` (Parquet's name) where war's schema says `item`, a difference
    Arrow's types ignore and the metadata check does not, so the metadata is compared apart."""
    return found.equals(expected) and found.metadata == expected.metadata


def schema_differences(found: pa.Schema, expected: pa.Schema) -> list[str]:
    """How a file's Arrow schema differs from this war's: each column's type and nullability,
    columns missing or extra or in another order, and the key-value metadata war writes."""
    if is_wars_schema(found, expected):  # as war writes it: nothing to say, at once
        return []
    out = []
    for want in expected:
        if want.name not in found.names:
            out.append(f"column {want.name} is missing")
            continue
        got = found.field(found.names.index(want.name))
        if not got.type.equals(want.type):
            out.append(f"column {want.name} has type {got.type}, expected {want.type}")
        if got.nullable != want.nullable:
            out.append(f"column {want.name} is {'nullable' if got.nullable else 'not nullable'}, "
                       f"expected {'nullable' if want.nullable else 'not nullable'}")
    out += [f"column {name} is not in this war's schema" for name in found.names if name not in expected.names]
    shared = [n for n in found.names if n in expected.names]
    if shared != [n for n in expected.names if n in found.names]:
        out.append(f"columns in the order {', '.join(found.names)}, expected {', '.join(expected.names)}")
    meta = found.metadata or {}
    for key, value in (expected.metadata or {}).items():
        if key != b"war.schema_version":
            continue
        if key not in meta:
            out.append(f"key-value metadata has no {key.decode()} (expected {value.decode()})")
        elif meta[key] != value:
            out.append(f"key-value metadata {key.decode()} is {meta[key].decode(errors='replace')}, "
                       f"expected {value.decode()}")
    return out


def compression_differences(meta, expected: str = "ZSTD") -> list[str]:
    """How the file's columns are compressed, when not the way war writes them (zstd): one
    difference for the file, naming the columns when only some differ."""
    found: dict[str, set[str]] = {}
    columns = set()
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for c in range(group.num_columns):
            column = group.column(c)
            columns.add(column.path_in_schema)
            if column.compression != expected:
                found.setdefault(column.compression.lower(), set()).add(column.path_in_schema)
    if not found:
        return []
    said = ", ".join(codec if names == columns else f"{codec} ({', '.join(sorted(names))})"
                     for codec, names in sorted(found.items()))
    return [f"compressed with {said}, expected {expected.lower()}"]


def as_schema(table: pa.Table, expected: pa.Schema) -> pa.Table:
    """`table` read as war's schema (columns in order, war's types and metadata); raises
    pyarrow's error when its rows cannot be. A file war wrote is returned as it is read: a cast
    would cost every batch a pass over its rows (and the process pyarrow.compute's import)."""
    if is_wars_schema(table.schema, expected):
        return table
    return table.select(expected.names).cast(expected)


@dataclass
class _Checksum:
    """Where the problem of a part file's checksum goes among the file problems, until the worker
    that reads the file has hashed it (resolve_checksums)."""
    path: str
    expected: str


def _checksum_problem(path: str, expected: str, digest: str) -> Problem | None:
    if digest == expected:
        return None
    return Problem(path, None, None, f"checksum differs from the manifest: expected {expected[:16]}..., "
                                     f"found {digest[:16]}...")


def resolve_checksums(ds: Dataset, report: Report, digests: dict[str, str]) -> None:
    """Each checksum left to the workers, checked against what they found; a file no worker read
    is hashed here."""
    problems = []
    for p in report.problems:
        if isinstance(p, _Checksum):
            digest = digests.get(p.path) or sha256_file(ds.root / p.path)
            p = _checksum_problem(p.path, p.expected, digest)
        if p is not None:
            problems.append(p)
    report.problems = problems


def check_files(ds: Dataset, report: Report, defer_checksums: bool = False) -> set[str]:
    """Checksums, row counts, schemas, unlisted files. Returns the paths that cannot be read.
    With `defer_checksums`, a part file's checksum is left to the worker that reads the file
    (its place among the problems kept for resolve_checksums), so that the parent does not read
    every file alone before the workers start."""
    outside = ds.outside_paths()
    unreadable: set[str] = set(outside)
    for rel, why in outside.items():
        report.problems.append(Problem(rel, None, None, f"path outside the dataset ({why}): not read"))
    listed = {f.path for f in ds.manifest.files}
    if not any(entry.games or entry.log == "counts" for entry in ds.manifest.rule_sets):
        report.problems.append(Problem(None, None, None, "the dataset holds no games"))
    pending = unfinished_append(ds, report)
    version = ds.manifest.schema_version  # files hold the columns of their dataset's version
    events_schema, games_schema = event_schema(version), game_schema(version)
    written: dict[str, str] = {}  # the engine version each games and events file says wrote it
    for f in ds.manifest.files:
        if f.path in unreadable:
            continue
        path = ds.root / f.path
        if not path.exists():
            report.problems.append(Problem(f.path, None, None, "missing file listed in the manifest"))
            unreadable.add(f.path)
            continue
        kind = not_regular(path)
        if kind is not None:
            report.problems.append(Problem(f.path, None, None, f"is {kind}, not a file: not read"))
            unreadable.add(f.path)
            continue
        if defer_checksums and f.table in ("games", "events"):  # the others are read here
            report.problems.append(_Checksum(f.path, f.sha256))
        else:
            problem = _checksum_problem(f.path, f.sha256, sha256_file(path))
            if problem is not None:
                report.problems.append(problem)
        if f.table in ("deals", "seeds"):
            continue
        try:
            meta = parquet_file(path)
        except Exception as err:  # pyarrow raises several types for a damaged file
            report.problems.append(Problem(f.path, None, None, f"not a readable Parquet file: {err}"))
            unreadable.add(f.path)
            continue
        if meta.metadata.num_rows != f.rows:
            report.problems.append(Problem(f.path, None, None,
                                           f"row count differs from the manifest: expected {f.rows}, "
                                           f"found {meta.metadata.num_rows}"))
        expected = {"events": events_schema, "counts": COUNT_SCHEMA, "count_shards": COUNT_SHARD_SCHEMA}.get(
            f.table, games_schema)
        try:
            found = meta.schema_arrow
        except Exception as err:  # pyarrow raises several types for a schema it cannot map
            report.problems.append(Problem(f.path, None, None, f"schema cannot be read: {err}"))
            unreadable.add(f.path)
            continue
        for difference in schema_differences(found, expected) + compression_differences(meta.metadata):
            report.problems.append(Problem(f.path, None, None, f"differs from this war's files: {difference}"))
        engine = (found.metadata or {}).get(b"war.engine_version")
        if engine is not None and f.table in ("games", "events"):
            written[f.path] = engine.decode(errors="replace")
    report.problems += engine_problems(ds, written)
    unlisted = []
    for table in ("games", "events", "deals", "seeds", "counts", "count_shards"):
        folder = ds.root / table
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                rel = path.relative_to(ds.root).as_posix()
                if path.is_file() and not path.name.startswith(".") and rel not in listed:
                    unlisted.append(rel)
    if pending is not None:
        report.problems.append(Problem(None, None, None, pending + (
            f" ({len(unlisted)} of its files are not in the manifest yet)" if unlisted else "")))
    else:
        report.problems += [Problem(rel, None, None, "data file not listed in the manifest") for rel in unlisted]
    return unreadable


def unfinished_append(ds: Dataset, report: Report) -> str | None:
    """What to say when the dataset holds the journal of an append: one in progress, or one
    that was interrupted and the command that finishes it; None when there is no journal."""
    from ..storage.journal import finished  # only for a dataset that holds a journal
    from .resume import RunJournal

    journal = RunJournal(ds.root)
    if not journal.exists():
        return None
    if not journal.writing() and (not journal.has_plan() or finished(journal.plan(), ds.root)):
        return None  # a lock left by a writer that is gone, or a finished run's: no append to name
    if journal.writing():
        holder = journal.holder() or {}
        return (f"an append to this dataset is in progress (pid {holder.get('pid')} on "
                f"{holder.get('host')}); validate it once that war generate has finished")
    return (f"an append to this dataset was interrupted; finish it with: {journal.finish_command()} "
            f"(or roll it back with: war generate --out {ds.root} --discard)")
