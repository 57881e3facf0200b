"""Validating a dataset against its manifest and the engine.

Checks, in order: every listed file exists with its checksum and row count, no unlisted data
file, the Parquet schema; then every game: its rows in (game, seq) order and decodable, every card in
one place at every step (the ledger), the rules (replay from the log alone), its record against
its events, and regeneration from its seed, event for event. Each problem names the file, the
game and the event sequence where it was found, with what was expected and what was found.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pyarrow as pa

from ..engines.event import CheckingRecorder, Event
from ..engines.game import play_game, replay_log
from ..errors import DatasetError, LogMismatch, WarError
from ..log.codec import CodecError, decode
from ..log.ledger import audit
from ..engines.choice import compiled_plays
from ..log.batches import compiled_shard
from ..log.tables import game_record
from ..log.tables import EVENT_SCHEMA, GAME_SCHEMA, rows_by_game
from ..model.deal import Deal, check_deal
from ..model.rng import game_seed
from ..model.schema import GAME_ID_STRIDE, RULES_ID_VERSIONS, RuleSetEntry, rules_id
from ..storage.dataset import MANIFEST, Dataset
from ..storage.files import parquet_file, read_parquet_batches, read_whole_parquet, sha256_file
from ..storage.location import is_remote
from .generate import MAX_WORKERS, finish_command
from .parallel import interrupts_deferred, run_tasks


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
        files = sum(1 for p in self.problems if p.game_id is None)
        tail = f", {files} file problem{'' if files == 1 else 's'}" if files else ""
        return f"games checked: {self.games_checked}, good: {self.good}, bad: {self.bad}{tail}"


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
    if not any(entry.games for entry in ds.manifest.rule_sets):
        report.problems.append(Problem(None, None, None, "the dataset holds no games"))
    pending = unfinished_append(ds, report)
    for f in ds.manifest.files:
        if f.path in unreadable:
            continue
        path = ds.root / f.path
        if not path.exists():
            report.problems.append(Problem(f.path, None, None, "missing file listed in the manifest"))
            unreadable.add(f.path)
            continue
        if defer_checksums and f.table != "deals":
            report.problems.append(_Checksum(f.path, f.sha256))
        else:
            problem = _checksum_problem(f.path, f.sha256, sha256_file(path))
            if problem is not None:
                report.problems.append(problem)
        if f.table == "deals":
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
        expected = EVENT_SCHEMA if f.table == "events" else GAME_SCHEMA
        try:
            found = meta.schema_arrow
        except Exception as err:  # pyarrow raises several types for a schema it cannot map
            report.problems.append(Problem(f.path, None, None, f"schema cannot be read: {err}"))
            unreadable.add(f.path)
            continue
        for difference in schema_differences(found, expected) + compression_differences(meta.metadata):
            report.problems.append(Problem(f.path, None, None, f"differs from this war's files: {difference}"))
    unlisted = []
    for table in ("games", "events", "deals"):
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
    from ..storage.journal import Journal  # only for a dataset that holds a journal

    journal = Journal(ds.root)
    if not journal.exists():
        return None
    if journal.writing():
        holder = journal.holder() or {}
        return (f"an append to this dataset is in progress (pid {holder.get('pid')} on "
                f"{holder.get('host')}); validate it once that war generate has finished")
    return (f"an append to this dataset was interrupted; finish it with: {finish_command(ds.root, journal)}")


def _decode_game(gid: int, game_rows: list) -> list[tuple[int, Event]] | Problem:
    """A game's events numbered by seq, or the Problem that says where its rows stop decoding.
    A shard's games are decoded one at a time, so a shard of long games stays small."""
    try:
        return list(enumerate(decode(game_rows)))
    except CodecError as err:
        return Problem(None, gid, err.seq, f"events do not decode: {err}")


def check_game(entry: RuleSetEntry, master_seed: int, gid: int, row: dict | None,
               logged: list[tuple[int, Event]], deal=None) -> Problem | None:
    """Every check on one game; the first problem found, or None."""
    rules = entry.rules
    for i, (seq, _) in enumerate(logged):
        if seq != i:
            what = "duplicated" if i and seq == logged[i - 1][0] else "missing or reordered"
            return Problem(None, gid, i, f"event sequence broken ({what}): expected seq {i}, found seq {seq}")
    log = [ev for _, ev in logged]
    if row is None:
        return Problem(None, gid, None, "events of a game that has no record in games/")
    index = gid - entry.ordinal * GAME_ID_STRIDE
    seed = game_seed(master_seed, index)
    checker = CheckingRecorder(log)
    try:
        summary = play_game(rules, seed, deal, checker, entry.policies)[1]
    except LogMismatch as regen:
        try:
            replay_log(rules, log, policies=entry.policies)
        except LogMismatch as err:
            return Problem(None, gid, err.seq, f"breaks the rules (replay from the log): "
                                               f"expected {err.expected}, found {err.found}")
        return Problem(None, gid, regen.seq, f"regenerates differently from its seed: "
                                             f"expected {regen.expected}, found {regen.found}")
    try:
        audit(log, rules)
    except LogMismatch as err:
        return Problem(None, gid, err.seq, f"cards: expected {err.expected}, found {err.found}")
    expected = game_record(gid, index, seed, rules, entry.policies, Deal((), explicit=deal is not None),
                           summary, len(log), entry.rules_id)
    for name, value in expected.items():
        if row.get(name) != value:
            return Problem(None, gid, None, f"game record disagrees with its events: {name} "
                                            f"expected {value!r}, found {row.get(name)!r}")
    return None


@dataclass(frozen=True)
class ShardCheck:
    root: str
    ordinal: int
    games_path: str
    events_path: str
    first: int
    games: int
    deals: tuple | None
    deep: bool = False


def validate(root: str | Path, progress: Callable[[int], None] | None = None, workers: int = 1,
             deep: bool = False) -> Report:
    """Check a dataset. Each shard is first regenerated whole (by the compiled engine where it
    applies) and compared with its files; a shard that is equal, and whose cards balance in every
    battle, is good without a per-event walk. Any other shard, and every shard with `deep`, is
    checked game by game: sequence, regeneration event by event, log-driven replay for a log
    that differs, the card ledger at every event, the record."""
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise DatasetError(f"`workers` must be between 1 and {MAX_WORKERS}, got {workers!r}", params=("workers",))
    ds = Dataset.open(root, check_paths=False)
    report = Report()
    unreadable = check_files(ds, report, defer_checksums=True)
    for entry in ds.manifest.rule_sets:
        problem = rules_id_problem(entry)
        if problem is not None:
            report.problems.append(Problem(MANIFEST, None, None, problem))
    deals_by_set: dict[int, list] = {}
    for entry in ds.manifest.rule_sets:
        if entry.deals and entry.deals not in unreadable:
            try:
                lines = (ds.root / entry.deals).read_text(encoding="utf-8").splitlines()
                deals_by_set[entry.ordinal] = [(d["piles"], d["set_aside"]) for d in map(json.loads, lines)]
                for piles, aside in deals_by_set[entry.ordinal]:
                    check_deal(entry.rules, piles, aside)
            except (WarError, ValueError, KeyError, OSError) as err:
                deals_by_set.pop(entry.ordinal, None)
                report.problems.append(Problem(entry.deals, None, None, f"unreadable deals: {err}"))
    tasks = []
    for entry in ds.manifest.rule_sets:
        games_files = {f.first_game: f for f in ds.files("games") if f.rule_set == entry.ordinal}
        events_files = {f.first_game: f for f in ds.files("events") if f.rule_set == entry.ordinal}
        for first in sorted(games_files):
            gf, ef = games_files[first], events_files.get(first)
            base = entry.ordinal * GAME_ID_STRIDE
            if ef is None or gf.path in unreadable or ef.path in unreadable or \
                    (entry.deals and entry.ordinal not in deals_by_set):
                bad_file = gf.path if gf.path in unreadable or ef is None else (
                    ef.path if ef.path in unreadable else entry.deals)
                for gid in range(base + first, base + first + gf.games):
                    report.problems.append(Problem(bad_file, gid, None,
                                                   "cannot be checked: a file it needs is missing or unreadable"))
                report.games_checked += gf.games
                report.bad += gf.games
                if progress:
                    progress(gf.games)
                continue
            deals = None
            if entry.deals:
                deals = tuple(deals_by_set[entry.ordinal][first:first + gf.games])
            tasks.append(ShardCheck(str(ds.root), entry.ordinal, gf.path, ef.path, first, gf.games, deals, deep))
    digests: dict[str, str] = {}
    shard_problems = []
    for part in run_tasks(check_shard, tasks, workers, progress, fork=not is_remote(ds.root)):
        report.games_checked += part.games_checked
        report.good += part.good
        report.bad += part.bad
        shard_problems.extend(part.problems)
        digests.update(part.digests)
    resolve_checksums(ds, report, digests)
    report.problems.extend(shard_problems)
    return report


def rules_id_problem(entry: RuleSetEntry) -> str | None:
    """What is wrong with an entry's rules_id: not its rules' id of the version it gives."""
    if entry.rules_id_version not in RULES_ID_VERSIONS:
        return (f"rule set {entry.ordinal}: unknown rules_id version {entry.rules_id_version} "
                f"(this war knows {', '.join(map(str, RULES_ID_VERSIONS))})")
    expected = rules_id(entry.rules, entry.rules_id_version)
    if entry.rules_id != expected:
        return (f"rule set {entry.ordinal}: rules_id {entry.rules_id} is not its rules' id "
                f"(version {entry.rules_id_version}: {expected})")
    return None


def check_shard(task: ShardCheck, progress=None) -> Report:
    """Every game of one pair of part files."""
    ds = Dataset.open(task.root, check_paths=False)
    entry = ds.rule_set(task.ordinal)
    report = Report()
    data: dict[str, bytes] = {}  # each file read once: hashed, then parsed
    try:
        for rel in (task.games_path, task.events_path):
            data[rel] = (ds.root / rel).read_bytes()
            report.digests[rel] = hashlib.sha256(data[rel]).hexdigest()
    except OSError:  # the parent hashes it again and says what it finds
        pass
    games = _read_as(ds, task.games_path, data.get(task.games_path), GAME_SCHEMA)
    if isinstance(games, Problem):
        return _unchecked(task, report, games, progress)
    with interrupts_deferred():
        exact = not task.deep and _shard_is_exact(entry, ds.manifest.master_seed, task, games,
                                                  ds.root / task.events_path, data.get(task.events_path))
    if exact:
        report.games_checked = report.good = task.games
        if progress:
            progress(task.games)
        return report
    # the game-by-game checks, which name each problem, read the whole events file
    events = _read_as(ds, task.events_path, data.pop(task.events_path, None), EVENT_SCHEMA)
    if isinstance(events, Problem):
        return _unchecked(task, report, events, progress)
    rows = games.to_pylist()
    base = entry.ordinal * GAME_ID_STRIDE
    ids = range(base + task.first, base + task.first + task.games)
    by_id = {}
    for r in rows:
        if r["game_id"] in by_id:
            report.problems.append(Problem(task.games_path, r["game_id"], None, "game record appears twice"))
        by_id[r["game_id"]] = r
    for gid in by_id:
        if gid not in ids:
            report.problems.append(Problem(task.games_path, gid, None, "game record outside the file's range"))
    try:
        split = rows_by_game(events)
    except CodecError as err:
        report.problems.append(Problem(task.events_path, err.game_id, err.seq, str(err)))
        split = {}
    for n, gid in enumerate(ids):
        report.games_checked += 1
        game_rows = split.pop(gid, None)
        logged = None if game_rows is None else _decode_game(gid, game_rows)
        if logged is None:
            problem = Problem(task.events_path, gid, None, "no events for this game")
        elif isinstance(logged, Problem):
            problem = logged
        else:
            deal = None
            if task.deals is not None:
                deal = check_deal(entry.rules, *task.deals[n])
            try:
                problem = check_game(entry, ds.manifest.master_seed, gid, by_id.get(gid), logged, deal)
            except WarError as err:
                problem = Problem(None, gid, None, f"cannot be checked: {err}")
            if problem is not None:
                problem.file = task.events_path if problem.seq is not None else task.games_path
        if problem is None:
            report.good += 1
        else:
            report.bad += 1
            report.problems.append(problem)
        if progress and n % 50 == 49:
            progress(50)
    if progress and task.games % 50:
        progress(task.games % 50)
    return report


def _read_as(ds: Dataset, rel: str, data: bytes | None, schema: pa.Schema) -> pa.Table | Problem:
    """A part file's whole table as war's `schema` (from its bytes when they were read already),
    or the problem that names the file when it cannot be read or is not of the schema."""
    try:
        table = read_whole_parquet(ds.root / rel, data)
    except WarError as err:
        return Problem(rel, None, None, str(err))
    try:
        return as_schema(table, schema)
    except (pa.ArrowException, KeyError, ValueError) as err:
        return Problem(rel, None, None, f"rows cannot be read as this war's schema: {err}")


def _unchecked(task: ShardCheck, report: Report, problem: Problem, progress=None) -> Report:
    """A shard whose files cannot be read: the file problem, and every game counted bad."""
    report.problems.append(problem)
    report.games_checked += task.games
    report.bad += task.games
    if progress:
        progress(task.games)
    return report


def _shard_is_exact(entry: RuleSetEntry, master_seed: int, task: ShardCheck, games, events_path,
                    events_data: bytes | None) -> bool:
    """True when the shard's files are exactly what its seeds (and explicit deals) regenerate and
    every battle's cards balance; False sends the shard to the game-by-game checks, which name
    the problem (a file that cannot be read included).
    The files equal the encoding of the regenerated events, and the encoding is lossless, so
    the invariants are checked on the regenerated events without decoding the files; the
    events file is compared a batch of rows at a time (storage.files.read_parquet_batches)."""
    deals = None
    if task.deals is not None:
        try:
            deals = [check_deal(entry.rules, *d) for d in task.deals]
        except WarError:  # a bad deal: the game-by-game checks name it
            return False
    if not compiled_plays(entry.rules, deals, tuple(entry.policies)):
        return False
    ref_events, ref_games, balanced = compiled_shard(entry.rules, entry.ordinal, master_seed, task.first,
                                                     task.first + task.games, tuple(entry.policies), deals,
                                                     check_balance=True, rules_id=entry.rules_id)
    return balanced and games.equals(ref_games) and \
        _rows_match(ref_events, read_parquet_batches(events_path, events_data))


def _rows_match(expected: pa.Table, batches) -> bool:
    """Whether the batches of a file's rows, read as war's events schema, are `expected`'s rows,
    in order and no more; False too when the file cannot be read or is not of the schema."""
    offset = 0
    try:
        for batch in batches:
            rows = as_schema(pa.Table.from_batches([batch]), EVENT_SCHEMA)
            if not rows.equals(expected.slice(offset, rows.num_rows)):
                return False
            offset += rows.num_rows
    except (WarError, pa.ArrowException, KeyError, ValueError):
        return False
    return offset == expected.num_rows
