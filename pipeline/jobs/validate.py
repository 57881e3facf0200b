"""Validating a dataset against its manifest and the engine.

Checks, in order: every listed file exists with its checksum and row count, no unlisted data
file, the Parquet schema; then every game: its rows in (game, seq) order and decodable, every card in
one place at every step (the ledger), the rules (replay from the log alone), its record against
its events, and regeneration from its seed, event for event. Each problem names the file, the
game and the event sequence where it was found, with what was expected and what was found.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..engines.event import CheckingRecorder, Event
from ..engines.game import DECIDES, drawn_seats, play_game, replay_log, resolve_policies, wrong_decision
from ..errors import LogMismatch, WarError
from ..log.codec import CodecError, decode
from ..log.ledger import audit
from ..engines.choice import compiled_engine
from ..log.batches import Lost, compiled_shard, reference_shard
from ..log.tables import EVENT_SCHEMA, as_version, differing_columns, game_record, game_schema, rows_by_game
from ..model.all_deals import AllDeals, enumerated_deal
from ..model.deal import Deal, check_deal, deck_of
from ..model.event_kinds import with_role
from ..model.rng import game_seed
from ..model.schema import ENGINE_VERSION, GAME_ID_STRIDE, RULES_ID_VERSIONS, RuleSetEntry, rules_id, rules_id_problem
from ..model.plural import plural
from ..storage.dataset import MANIFEST, Dataset, entry_problem
from ..storage.files import read_parquet_batches, read_whole_parquet
from ..storage.location import is_remote
from .counts import check_kept, compare_counts, count_again, count_checks
from .lineage import lineage_problems
from .parallel import check_workers, interrupts_deferred, run_tasks
from .validate_layout import check_layout, read_deals, read_seeds
from .validate_files import (  # noqa: F401  (Report and check_files: what callers and tests import from here)
    Problem,
    Report,
    as_schema,
    check_files,
    resolve_checksums,
    unfinished_append,
)


def _decode_game(gid: int, game_rows: list) -> list[tuple[int, Event]] | Problem:
    """A game's events numbered by seq, or the Problem that says where its rows stop decoding.
    A shard's games are decoded one at a time, so a shard of long games stays small."""
    try:
        return list(enumerate(decode(game_rows)))
    except CodecError as err:
        return Problem(None, gid, err.seq, f"events do not decode: {err}")


ENDS = with_role("ends_game")  # the kinds of a game's last event, whose note is its outcome


def claimed_cycle(entry: RuleSetEntry, gid: int, row: dict | None, log: list[Event] | None) -> Problem | None:
    """The problem of a game that claims a cycle (its end event's or its record's outcome) while
    a seat plays a randomized policy: its choices are drawn, so no position repeats for certain
    and war never ends such a game as a cycle (engines.play.Game.repeats), whatever its engine
    says. Named at the end event when the log says it, else at the record; None otherwise."""
    ends = log[-1] if log and log[-1].kind in ENDS else None
    said = ends is not None and ends.note == "cycle"
    if not said and (row is None or row.get("outcome") != "cycle"):
        return None
    seats = drawn_seats(resolve_policies(entry.rules, entry.policies))
    if not seats:
        return None
    return Problem(None, gid, len(log) - 1 if said else None,
                   f"claims a cycle (outcome cycle), though {'; '.join(seats)}, a randomized policy: a game "
                   f"whose choices are drawn never repeats a position for certain, so it is never a cycle")


def _decision_not_followed(log: list[Event], regen: LogMismatch, replay: LogMismatch) -> str | None:
    """Where the regenerated game first differs at a decision the replay took from the log (a
    legal choice), and the replay breaks only later, the decision is what was changed: the
    events after it follow another choice. What to say of it, named at the decision; None when
    that is not so."""
    if not 0 <= regen.seq < replay.seq or regen.seq >= len(log):
        return None
    ev = log[regen.seq]
    if ev.kind not in DECIDES:
        return None
    return (f"breaks the rules: seat {ev.seat}'s {ev.note} decision at battle {ev.battle} is not its "
            f"policy's choice (expected {regen.expected}, found {regen.found}), and the game does not "
            f"follow from it: replayed from the log, seq {replay.seq} expected {replay.expected}, "
            f"found {replay.found}")


def check_game(entry: RuleSetEntry, master_seed: int, gid: int, row: dict | None,
               logged: list[tuple[int, Event]], deal=None, seed: int | None = None) -> Problem | None:
    """Every check on one game; the first problem found, or None."""
    rules = entry.rules
    for i, (seq, _) in enumerate(logged):
        if seq != i:
            what = "duplicated" if i and seq == logged[i - 1][0] else "missing or reordered"
            return Problem(None, gid, i, f"event sequence broken ({what}): expected seq {i}, found seq {seq}")
    log = [ev for _, ev in logged]
    if row is None:
        return Problem(None, gid, None, "events of a game that has no record in games/")
    wrong = wrong_decision(log)  # a policy that chose so regenerates the same log: checked first
    if wrong is not None:
        return Problem(None, gid, wrong[0], f"breaks the rules: {wrong[1]}")
    claimed = claimed_cycle(entry, gid, row, log)
    if claimed is not None:
        return claimed
    index = gid - entry.ordinal * GAME_ID_STRIDE
    seed = game_seed(master_seed, index) if seed is None else seed
    checker = CheckingRecorder(log)
    try:
        summary = play_game(rules, seed, deal, checker, entry.policies)[1]
    except LogMismatch as regen:
        try:
            replay_log(rules, log, policies=entry.policies)
        except LogMismatch as err:
            decision = _decision_not_followed(log, regen, err)
            if decision is not None:
                return Problem(None, gid, regen.seq, decision)
            return Problem(None, gid, err.seq, f"breaks the rules (replay from the log): "
                                               f"expected {err.expected}, found {err.found}")
        return Problem(None, gid, regen.seq, f"regenerates differently from its seed: "
                                             f"expected {regen.expected}, found {regen.found}")
    try:
        audit(log, rules)
    except LogMismatch as err:
        return Problem(None, gid, err.seq, f"cards: expected {err.expected}, found {err.found}")
    expected = game_record(gid, index, seed, rules, entry.policies, deal or Deal(()), summary, log,
                           entry.rules_id)
    wrong = differing_columns(expected, row)
    if wrong:
        return Problem(None, gid, None, f"game record disagrees with its events: {wrong[0]} "
                                        f"expected {expected[wrong[0]]!r}, found {row[wrong[0]]!r}")
    return None


def check_lineage(ds: Dataset, seeds_by_set: dict[int, list], report: Report) -> None:
    """Each taken or kept game's lineage (its seeds line's `from` and deal_index) held to its seed
    (jobs.lineage): a game it refutes is a problem, and bad where it was counted good."""
    found = [p for e in ds.manifest.rule_sets if e.ordinal in seeds_by_set
             for p in lineage_problems(ds, e, seeds_by_set[e.ordinal])]
    moved = min(report.good, len({p.game_id for p in found if p.game_id is not None} -
                                 {p.game_id for p in report.problems}))
    report.good -= moved
    report.bad += moved
    report.problems += found


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
    all_deals: bool = False  # its games play deals first.. of every deal of the deck
    log: str = "events"  # "games": no events file (its games are regenerated and their records compared)
    seeds: tuple[int, ...] | None = None  # each game's own seed, where the games came from another dataset


def validate(root: str | Path, progress: Callable[[int], None] | None = None, workers: int = 1,
             deep: bool = False) -> Report:
    """Check a dataset. Each shard is first regenerated whole (by the compiled engine where it
    applies) and compared with its files; a shard that is equal, and whose cards balance in every
    battle, is good without a per-event walk. Any other shard, and every shard with `deep`, is
    checked game by game: sequence, regeneration event by event, log-driven replay for a log
    that differs, the card ledger at every event, the record."""
    check_workers(workers)
    ds = Dataset.open(root, check_paths=False)
    report = Report()
    unreadable = check_files(ds, report, defer_checksums=True)
    for entry in ds.manifest.rule_sets:
        problem = rules_id_problem(entry)
        if problem is not None:
            report.problems.append(Problem(MANIFEST, None, None, problem))
    unplayable = set()  # rule sets no war can play as the manifest says: said once, their games not checked
    for entry in ds.manifest.rule_sets:
        problem = entry_problem(entry) or _policies_problem(entry)
        if problem is not None:
            report.problems.append(Problem(MANIFEST, None, None, problem))
            unplayable.add(entry.ordinal)
    layout, skip = check_layout(ds)
    report.problems += layout
    deals_by_set: dict[int, list] = {}
    seeds_by_set: dict[int, list] = {}
    playable = [e for e in ds.manifest.rule_sets if e.ordinal not in unplayable]
    for entry in playable:
        for name, read, into in (("deals", read_deals, deals_by_set), ("seeds", read_seeds, seeds_by_set)):
            rel = getattr(entry, name)
            if rel and rel not in unreadable:
                found = read(ds, entry)
                if isinstance(found, Problem):
                    report.problems.append(found)
                else:
                    into[entry.ordinal] = found
    tasks = []
    for entry in playable:
        games_files = {f.first_game: f for f in ds.files("games") if f.rule_set == entry.ordinal and f.path not in skip}
        events_files = {(f.first_game, f.games): f for f in ds.files("events")
                        if f.rule_set == entry.ordinal and f.path not in skip}
        for first in sorted(games_files):
            gf = games_files[first]
            ef = events_files.get((first, gf.games))
            base = entry.ordinal * GAME_ID_STRIDE
            events_missing = ef is None and entry.log == "events"
            if events_missing or gf.path in unreadable or (ef is not None and ef.path in unreadable) or \
                    (entry.deals and entry.ordinal not in deals_by_set) or \
                    (entry.seeds and entry.ordinal not in seeds_by_set):
                bad_file = gf.path if gf.path in unreadable or events_missing else (
                    ef.path if ef is not None and ef.path in unreadable else
                    entry.deals if entry.deals and entry.ordinal not in deals_by_set else entry.seeds)
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
            seeds = tuple(seeds_by_set[entry.ordinal][first:first + gf.games]) if entry.seeds else None
            tasks.append(ShardCheck(str(ds.root), entry.ordinal, gf.path, ef.path if ef is not None else None, first,
                                    gf.games, deals, deep, entry.all_deals, entry.log, seeds))
    counted = [e for e in playable if e.log == "counts"]
    recounts = [task for e in counted for task in count_checks(ds, e, unreadable | skip, report.problems)]
    if recounts:
        done = run_tasks(count_again, recounts, workers, progress, fork=not is_remote(ds.root))
        for e in counted:
            compare_counts(ds, e, [d for d in done if d[0].ordinal == e.ordinal], unreadable | skip, report)
            check_kept(ds, e, unreadable | skip, report)
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
    check_lineage(ds, seeds_by_set, report)
    report.problems += older_engine_notes(ds.manifest, shard_problems)
    return report


def _policies_problem(entry: RuleSetEntry) -> str | None:
    """What is wrong with a rule set's `policies` in the manifest (a seat count not its players',
    a policy its variant does not have), in words of the manifest: not the `--policy` flag the
    error names when a user gives one. None when they resolve."""
    try:
        resolve_policies(entry.rules, entry.policies)
    except WarError as err:
        return f"rule set {entry.ordinal}: the manifest's policies ({', '.join(map(str, entry.policies))}): {err}"
    return None


def older_engine_notes(manifest, problems: list[Problem]) -> list[Problem]:
    """Why games of a rule set played by engine version 1 differ: it compared positions card for
    card, and today's engine by ranks (docs/rules.md 2.6), so its games that cycle end earlier
    here; every other game is the same. One line a rule set whose games differ."""
    notes = []
    for entry in manifest.rule_sets:
        if (entry.engine_version or manifest.engine_version) != "1":
            continue
        base = entry.ordinal * GAME_ID_STRIDE
        bad = {p.game_id for p in problems if p.game_id is not None and base <= p.game_id < base + GAME_ID_STRIDE}
        if bad:
            notes.append(Problem(MANIFEST, None, None, (
                f"rule set {entry.ordinal} ({entry.label}) was played by engine version 1, which compared "
                f"positions card for card; this war's engine (version {ENGINE_VERSION}) compares them by "
                f"ranks, suits never deciding a game, so a game that cycles ends earlier: "
                f"{plural(len(bad), 'game')} of it differ; generate the rule set again with this war")))
    return notes


def check_shard(task: ShardCheck, progress=None) -> Report:
    """Every game of one pair of part files."""
    ds = Dataset.open(task.root, check_paths=False)
    entry = ds.rule_set(task.ordinal)
    if entry.rules_id_version in RULES_ID_VERSIONS and rules_id_problem(entry) is not None:
        # a manifest that misnames the rule set, said once as its problem: the games are checked
        # against the id their rules have, so that the one problem is not said once a game
        entry = entry.model_copy(update={"rules_id": rules_id(entry.rules, entry.rules_id_version)})
    report = Report()
    data: dict[str, bytes] = {}  # each file read once: hashed, then parsed
    try:
        for rel in (task.games_path, task.events_path):
            if rel is None:
                continue
            data[rel] = (ds.root / rel).read_bytes()
            report.digests[rel] = hashlib.sha256(data[rel]).hexdigest()
    except OSError:  # the parent hashes it again and says what it finds
        pass
    version = ds.manifest.schema_version
    games = _read_as(ds, task.games_path, data.get(task.games_path), game_schema(version))
    if isinstance(games, Problem):
        return _unchecked(task, report, games, progress)
    exact = not task.deep and not _claims_cycles(entry, games) and \
        _shard_is_exact(entry, ds.manifest.master_seed, task, games, task.events_path and ds.root / task.events_path,
                        data.get(task.events_path), version)
    if exact:
        report.games_checked = report.good = task.games
        if progress:
            progress(task.games)
        return report
    if task.events_path is None:
        return _check_records(task, entry, ds.manifest.master_seed, games, report, progress)
    # the game-by-game checks, which name each problem, read the whole events file
    events = _read_as(ds, task.events_path, data.pop(task.events_path, None), EVENT_SCHEMA)
    if isinstance(events, Problem):
        return _unchecked(task, report, events, progress)
    base = entry.ordinal * GAME_ID_STRIDE
    ids = range(base + task.first, base + task.first + task.games)
    in_order = _unsorted(task.events_path, events, "game_id", "seq")
    rows_wrong = _games_rows(task.games_path, games, ids, [] if in_order is None else [in_order])
    report.problems += rows_wrong
    by_id = {r["game_id"]: r for r in games.to_pylist()}
    bad_ids = set()
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
            elif task.all_deals:
                deal = enumerated_deal(entry.rules, task.first + n)
            try:
                problem = check_game(entry, ds.manifest.master_seed, gid, by_id.get(gid), logged, deal,
                                     task.seeds[n] if task.seeds is not None else None)
            except WarError as err:
                problem = Problem(None, gid, None, f"cannot be checked: {err}")
            lost = None if problem is not None else _lost_cards(entry, by_id.get(gid))
            if lost is not None:
                problem = Problem(None, gid, None, lost)
            if problem is not None:
                problem.file = task.events_path if problem.seq is not None else task.games_path
        if problem is None:
            report.good += 1
        else:
            report.bad += 1
            bad_ids.add(gid)
            report.problems.append(problem)
        if progress and n % 50 == 49:
            progress(50)
    if progress and task.games % 50:
        progress(task.games % 50)
    _count_bad(report, rows_wrong, ids, bad_ids)
    for gid in split:  # what the loop left: events of games that are not this file's
        report.problems.append(Problem(task.events_path, gid, None, "events of a game outside the file's range"))
    return report


def _claims_cycles(entry: RuleSetEntry, games: pa.Table) -> bool:
    """Whether a games row of the shard says cycle while a seat plays a randomized policy: the
    shard is then checked game by game, which names each such game (claimed_cycle), whatever
    the engine that regenerates it says."""
    if "outcome" not in games.column_names or not drawn_seats(resolve_policies(entry.rules, entry.policies)):
        return False
    return bool(pc.any(pc.equal(games.column("outcome").cast(pa.string()), "cycle")).as_py())


def _unsorted(path: str, table: pa.Table, key: str, then: str | None = None) -> Problem | None:
    """The problem of a part file whose rows are not in the order the format gives them: by
    `key` (each value once, for games), or by (`key`, `then`) (events); None when they are.
    Readers count on it: a replay reads a game's rows in file order. A games row that repeats
    an earlier one is left out of the order (it is said as a duplicate, _games_rows), so that a
    duplicated row is not said twice, the second time as `game 3 follows game 3`."""
    ids = table.column(key).to_numpy()
    if len(ids) < 2:
        return None
    rows = np.arange(len(ids))
    if then is None:
        rows = np.sort(np.unique(ids, return_index=True)[1])  # each value's first row, in file order
        bad = np.flatnonzero(np.diff(ids[rows]) < 0)
        order = key
    else:
        step = np.diff(ids)
        bad = np.flatnonzero((step < 0) | ((step == 0) & (np.diff(table.column(then).to_numpy()) <= 0)))
        order = f"({key}, {then})"
    if len(bad) == 0:
        return None
    row, before = int(rows[bad[0] + 1]), int(rows[bad[0]])
    return Problem(path, int(ids[row]), None, f"rows not sorted by {order}, as the format says: row {row} "
                                              f"(game {ids[row]}) follows game {ids[before]}")


def _games_rows(path: str, games: pa.Table, ids: range, also: list[Problem] = ()) -> list[Problem]:
    """The problems of a games file's rows as rows, before any game is checked: out of game_id
    order, the order of the events file's rows (`also`: found by the caller), a game's record
    there twice (said once, as a duplicate), a record of a game outside the file's range."""
    listed = Counter(games.column("game_id").to_pylist())
    problems = [p for p in [_unsorted(path, games, "game_id"), *also] if p is not None]
    problems += [Problem(path, gid, None, "game record appears twice" if n == 2 else f"game record appears {n} times")
                 for gid, n in listed.items() if n > 1]
    problems += [Problem(path, gid, None, "game record outside the file's range") for gid in listed if gid not in ids]
    return problems


def _count_bad(report: Report, problems: list[Problem], ids: range, bad_ids: set[int]) -> None:
    """Each game of the shard that `problems` (of its rows: _games_rows) name and its own checks
    found good, counted bad: the summary's last line never says every game is good under BAD
    lines that name games."""
    named = {p.game_id for p in problems if p.game_id in ids} - bad_ids
    report.good -= len(named)
    report.bad += len(named)


def _check_records(task: ShardCheck, entry: RuleSetEntry, master_seed: int, games: pa.Table, report: Report,
                   progress=None) -> Report:
    """Game by game, a shard whose log was not stored: each game played again from its seed and
    deal (the reference engine, its cards followed by the ledger), its record compared."""
    by_id = {r["game_id"]: r for r in games.to_pylist()}
    base = entry.ordinal * GAME_ID_STRIDE
    ids = range(base + task.first, base + task.first + task.games)
    rows_wrong = _games_rows(task.games_path, games, ids)
    report.problems += rows_wrong
    bad_ids = set()
    for n in range(task.games):
        index = task.first + n
        gid = base + index
        report.games_checked += 1
        deal = None
        if task.deals is not None:
            deal = check_deal(entry.rules, *task.deals[n])
        elif task.all_deals:
            deal = enumerated_deal(entry.rules, index)
        seed = game_seed(master_seed, index) if task.seeds is None else task.seeds[n]
        claimed = claimed_cycle(entry, gid, by_id.get(gid), None)
        if claimed is not None:
            claimed.file = task.games_path
            report.bad += 1
            bad_ids.add(gid)
            report.problems.append(claimed)
            continue
        try:
            log, summary, played = play_game(entry.rules, seed, deal, policies=entry.policies)
            audit(log, entry.rules)
            expected = game_record(gid, index, seed, entry.rules, entry.policies, played, summary, log,
                                   entry.rules_id)
        except WarError as err:
            expected, problem = None, Problem(task.games_path, gid, None, f"cannot be checked: {err}")
        row = by_id.get(gid)
        if expected is not None:
            wrong = list(expected) if row is None else differing_columns(expected, row)
            problem = None if not wrong else Problem(
                task.games_path, gid, None, "no record" if row is None else
                f"game record disagrees with its regenerated game: {wrong[0]} expected "
                f"{expected[wrong[0]]!r}, found {row.get(wrong[0])!r}")
        if problem is None:
            report.good += 1
        else:
            report.bad += 1
            bad_ids.add(gid)
            report.problems.append(problem)
    _count_bad(report, rows_wrong, ids, bad_ids)
    if progress:
        progress(task.games)
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
                    events_data: bytes | None, version: int) -> bool:
    """True when the shard's files are exactly what its seeds (and explicit deals) regenerate and
    every battle's cards balance; False sends the shard to the game-by-game checks, which name
    the problem (a file that cannot be read included). The compiled engine regenerates it where
    it plays the games, else the reference engine recording into the same arrays
    (log.batches.reference_shard): the same tables, byte for byte, as generation wrote.
    The files equal the encoding of the regenerated events, and the encoding is lossless, so
    the invariants are checked on the regenerated events without decoding the files; the
    events file is compared a batch of rows at a time (storage.files.read_parquet_batches)."""
    deals = None
    if task.deals is not None:
        try:
            deals = [check_deal(entry.rules, *d) for d in task.deals]
        except WarError:  # a bad deal: the game-by-game checks name it
            return False
    elif task.all_deals:
        deals = AllDeals(entry.rules, task.first, task.first + task.games)
    engine = compiled_engine(entry.rules, tuple(entry.policies))  # once a shard
    if engine is not None:
        with interrupts_deferred():  # numba's machine code cannot take a Ctrl-C
            ref_events, ref_games, balanced = compiled_shard(
                entry.rules, entry.ordinal, master_seed, task.first, task.first + task.games, tuple(entry.policies),
                deals, check_balance=True, rules_id=entry.rules_id, events=events_path is not None, seeds=task.seeds,
                engine=engine)
    else:  # the reference engine into the same arrays: its Python, which a Ctrl-C stops at once
        try:
            found = reference_shard(entry.rules, entry.ordinal, master_seed, task.first, task.first + task.games,
                                    tuple(entry.policies), deals, check_balance=True, rules_id=entry.rules_id,
                                    events=events_path is not None, seeds=task.seeds,
                                    compiled_in=interrupts_deferred)
        except WarError:  # a game that cannot be played (a plugin's fault): the game-by-game checks name it
            return False
        if isinstance(found, Lost):
            return False
        ref_events, ref_games, balanced = found
    ref_games = as_version(ref_games, version)  # the columns of the dataset's schema version
    balanced = balanced and bool(_cards_kept(entry, ref_games).all())
    if events_path is None:  # no log stored: the games rows, and the regenerated cards' balance
        return balanced and games.equals(ref_games)
    return balanced and games.equals(ref_games) and \
        _rows_match(ref_events, read_parquet_batches(events_path, events_data))


def _cards_kept(entry: RuleSetEntry, games: pa.Table) -> np.ndarray:
    """For each games row, whether its game ends with every card of the deck held by a seat or set
    aside (final_cards and cards_set_aside): every family's games keep their cards. A game's
    battles may each balance in its log while its engine loses a card the log says was taken (a
    plugin's engine regenerates its own log, equal to the file), so this is asked as well."""
    size = deck_of(entry.rules).size
    held = games.column("final_cards").combine_chunks()
    counts = np.diff(held.offsets.to_numpy())
    flat = held.flatten().to_numpy(zero_copy_only=False).astype(np.int64)
    sums = np.add.reduceat(flat, held.offsets.to_numpy()[:-1]) if len(flat) else np.zeros(len(counts), np.int64)
    sums[counts == 0] = 0
    aside = games.column("cards_set_aside").to_numpy(zero_copy_only=False).astype(np.int64)
    return sums + aside == size


def _lost_cards(entry: RuleSetEntry, row: dict | None) -> str | None:
    """What a games row's end says of cards lost or made (_cards_kept), None when it keeps them."""
    if row is None or row.get("final_cards") is None:
        return None
    size = deck_of(entry.rules).size
    held, aside = sum(row["final_cards"]), row.get("cards_set_aside") or 0
    if held + aside == size:
        return None
    return (f"the game ends with {held} cards held and {aside} set aside, of a deck of {size}: its engine "
            f"{'lost' if held + aside < size else 'made'} cards its log does not say")


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
