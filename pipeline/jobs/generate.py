"""Generating a dataset: shards of games, each a pure function of (rules, seed, index range),
written atomically, then the manifest, written last.

The layout of shards depends only on the game counts and the shard size, never on the number
of workers, so any number of workers gives the same files byte for byte.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

from ..engines.game import Policies, policy_specs, tournament_seatings
from ..errors import DatasetError, RulesError
from ..log.shard import shard_tables, warm
from ..model.deal import Deal, check_deal, deal_line, read_deals
from ..model.schema import DataFile, Manifest, RuleSet, RuleSetEntry
from ..storage.dataset import MANIFEST, Dataset, part_path
from ..storage.files import atomic_write_bytes, remove_tree, sha256_file, write_parquet
from ..storage.journal import WORK_DIR, Journal, record_shard
from ..storage.location import is_remote, location
from .parallel import run_tasks, run_tasks_dask

DEFAULT_SHARD_SIZE = 2000
DEFAULT_GAMES = 1000


@dataclass
class Plan:
    """One rule set to generate: how many games, explicit deals if any, and for variants with
    decisions each seat's policy: one per seat, or a seating {seat: policy} (-1 for every seat
    not named); the defaults when not given. Kept in canonical form, a spec per seat."""

    rules: RuleSet
    games: int
    deals: list[Deal] | None = None
    policies: Policies = ()

    def __post_init__(self) -> None:
        self.policies = policy_specs(self.rules, self.policies)


def make_plans(rule_sets: Sequence[RuleSet], games: int | None = None, deals: str | Path | None = None,
               policies: Policies = (), tournament: Sequence[str] = ()) -> list[Plan]:
    """The plans for `generate`: each of `rule_sets` (no rule set twice) plays `games` games
    (default 1000, or one per deal). `deals` is a JSON Lines file of explicit deals, game i
    playing line i, checked against each rule set. `policies` are every seat's (one per seat,
    or a seating {seat: policy}, -1 for every seat not named); or a `tournament` among two or
    more policies gives a plan per ordered pair, so each pair plays the same seeds in both
    seatings (2 players)."""
    ids = [r.rules_id for r in rule_sets]
    if len(set(ids)) != len(ids):
        raise RulesError("the same rule set is given twice")
    if policies and tournament:
        raise RulesError("give `policies` or `tournament`, not both", params=("policies", "tournament"))
    plans = []
    for rules in rule_sets:
        dealt = read_deals(deals, rules) if deals is not None else None
        n = games if games is not None else (len(dealt) if dealt is not None else DEFAULT_GAMES)
        if n < 1:
            raise RulesError(f"`games` must be at least 1, got {n}", params=("games",))
        if dealt is not None and n > len(dealt):
            raise RulesError(f"`games` {n} but {deals} holds only {len(dealt)} deals", params=("games",))
        seatings = tournament_seatings(rules, tournament) if tournament else [policies]
        plans += [Plan(rules, n, dealt[:n] if dealt is not None else None, seating) for seating in seatings]
    return plans


@dataclass(frozen=True)
class Shard:
    ordinal: int
    rules_json: str
    policies: tuple[str, ...]
    seed: int
    start: int
    stop: int
    part: int
    root: str
    deals: tuple[str, ...] | None
    journal: str | None = None


def run_shard(shard: Shard, tick: Callable[[int], None] | None = None) -> list[dict]:
    """Play one shard and write its games and events files; return their manifest entries."""
    rules = RuleSet.model_validate_json(shard.rules_json)
    deals = None
    if shard.deals is not None:
        deals = []
        for line in shard.deals:
            d = json.loads(line)
            deals.append(check_deal(rules, d["piles"], d["set_aside"]))
    events, games = shard_tables(rules, shard.ordinal, shard.seed, shard.start, shard.stop,
                                 deals, shard.policies, tick)
    root = location(shard.root)
    out = []
    for table_name, table, key in (("events", events, ("game_id", "seq")), ("games", games, ("game_id",))):
        rel = part_path(table_name, rules.variant, shard.part)
        digest = write_parquet(table, root / rel, key)
        out.append({"path": rel, "table": table_name, "rule_set": shard.ordinal,
                    "first_game": shard.start, "games": shard.stop - shard.start,
                    "rows": table.num_rows, "sha256": digest})
    if shard.journal is not None:
        record_shard(shard.journal, shard.part, out)
    return out


def _looks_like_dataset(root) -> bool:
    return any((root / name).exists() for name in (MANIFEST, WORK_DIR, "games", "events"))


def prepare_output(root, overwrite: bool):
    """Where to write: the folder itself when it is new or empty, or a staging folder beside it
    that replaces it only once complete (`overwrite`), so the old data survives a failure.

    An object store has no folder to swap in: there `overwrite` removes the old dataset, its
    manifest first, and writes the new one in its place; a failure then leaves an unfinished
    dataset that `resume` finishes, never a mix of old and new files under a manifest."""
    if root.exists() and not root.is_dir():
        raise DatasetError(f"output {str(root)!r} is a file, not a folder")
    if root.exists() and any(root.iterdir()):
        if (root / WORK_DIR).exists():
            journal = Journal(root)
            if journal.writing() or (not (root / MANIFEST).exists() and not overwrite):
                journal.refuse()
        if not overwrite:
            raise DatasetError(f"output folder {str(root)!r} already holds data "
                               f"(use `overwrite` to replace it)", params=("overwrite",))
        if not _looks_like_dataset(root):
            raise DatasetError(f"output folder {str(root)!r} holds files that are not a war "
                               f"dataset; not overwriting it")
        if is_remote(root):
            (root / MANIFEST).unlink(missing_ok=True)
            remove_tree(root)
            return root
        staging = root.with_name(f".{root.name}.new-{os.getpid()}")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        return staging
    root.mkdir(parents=True, exist_ok=True)
    return root


def plan_shards(plans: list[Plan], seed: int, root: Path, shard_size: int, first_ordinal: int = 0,
                first_part: int = 0) -> tuple[list[Shard], list[RuleSetEntry]]:
    shards, entries = [], []
    part = first_part
    for ordinal, plan in enumerate(plans, first_ordinal):
        deals_rel = None
        if plan.deals is not None:
            deals_rel = f"deals/rule_set-{ordinal}.jsonl"
        entries.append(RuleSetEntry(ordinal=ordinal, rules_id=plan.rules.rules_id, rules=plan.rules,
                                    policies=list(plan.policies), seed=seed, games=plan.games,
                                    shard_size=shard_size, deals=deals_rel))
        rules_json = plan.rules.model_dump_json()
        for start in range(0, plan.games, shard_size):
            stop = min(start + shard_size, plan.games)
            deals = None
            if plan.deals is not None:
                deals = tuple(deal_line(d) for d in plan.deals[start:stop])
            shards.append(Shard(ordinal, rules_json, tuple(plan.policies), seed, start, stop, part,
                                str(root), deals))
            part += 1
    return shards, entries


def generate(out: str | Path, plans: list[Plan], seed: int | None = None, workers: int = 1,
             overwrite: bool = False, shard_size: int = DEFAULT_SHARD_SIZE,
             progress: Callable[[int], None] | None = None, append: bool = False,
             resume: bool = False, scheduler: str | None = None) -> Manifest:
    """Generate a dataset into `out` (a folder or a URI) from `plans` with the master seed
    `seed` (default 0, or the dataset's with `append`); the manifest is written last, atomically.
    Returns the manifest.

    `append` adds rule sets to a finished dataset (its files stay as they are; a new manifest
    lists old and new together). `resume` finishes a run that was interrupted, skipping the
    shards it finished, with the same bytes as an uninterrupted run. `scheduler` runs the shards
    on a Dask distributed cluster instead of local processes."""
    root = location(out)
    if seed is None:
        seed = Dataset.open(root).manifest.master_seed if append else 0
    if not 0 <= seed < 2**64:
        raise DatasetError(f"seed must be between 0 and 2^64 - 1, got {seed}")
    if workers < 1:
        raise DatasetError(f"`workers` must be at least 1, got {workers}", params=("workers",))
    if shard_size < 1:
        raise DatasetError(f"shard size must be at least 1, got {shard_size}")
    if resume and overwrite:
        raise DatasetError("`resume` and `overwrite` do not go together", params=("resume", "overwrite"))
    kept_sets: list[RuleSetEntry] = []
    kept_files: list[DataFile] = []
    first_part = 0
    if append:
        if overwrite:
            raise DatasetError("`append` and `overwrite` do not go together", params=("append", "overwrite"))
        existing = Dataset.open(root).manifest
        if seed != existing.master_seed:
            raise DatasetError(f"dataset {str(root)!r} has master seed {existing.master_seed}; appended "
                               f"rule sets play the same seeds (leave out `seed` or give that one)",
                               params=("seed",))
        for plan in plans:
            for entry in existing.rule_sets:
                if entry.rules_id == plan.rules.rules_id and entry.policies == list(plan.policies) \
                        and entry.deals is None and plan.deals is None:
                    raise DatasetError(f"rule set {plan.rules.rules_id} ({plan.rules.variant}) is already "
                                       f"in {str(root)!r} as rule set {entry.ordinal}")
        kept_sets, kept_files = existing.rule_sets, existing.files
        first_part = 1 + max((int(f.path.rsplit("part-", 1)[1].split(".")[0]) for f in kept_files
                              if "part-" in f.path), default=-1)
        target = root
    elif resume:
        if (root / MANIFEST).exists():
            Journal(root).clear_if_stale()  # killed between the manifest and the cleanup
            raise DatasetError(f"dataset {str(root)!r} is finished; there is nothing to resume")
        if not (root / WORK_DIR).exists():
            raise DatasetError(f"nothing to resume in {str(root)!r}: no interrupted run there")
        target = root
    else:
        target = prepare_output(root, overwrite)
    journal = Journal(target)
    journal.acquire(resume)
    if resume:
        journal.sweep()
    try:
        manifest = _generate(target, journal, plans, seed, workers, shard_size, progress, resume,
                             scheduler, kept_sets, kept_files, first_part)
    except BaseException:
        journal.release()
        if target != root:
            remove_tree(target)
        raise
    journal.close()
    if target != root:
        _swap_in(target, root)
    return manifest


def _generate(target, journal: Journal, plans, seed, workers, shard_size, progress, resume,
              scheduler, kept_sets, kept_files, first_part) -> Manifest:
    first_ordinal = 1 + max((e.ordinal for e in kept_sets), default=-1)
    shards, entries = plan_shards(plans, seed, target, shard_size, first_ordinal, first_part)
    shards = [replace(s, journal=str(journal.dir)) for s in shards]
    journal.check_plan({"seed": seed, "shard_size": shard_size,
                        "rule_sets": [e.model_dump(mode="json") for e in entries],
                        "kept": [f.model_dump(mode="json") for f in kept_files],
                        "parts": [s.part for s in shards]}, resume)
    files: list[dict] = []
    for entry, plan in zip(entries, plans):
        if entry.deals is not None:
            data = "".join(deal_line(d) + "\n" for d in plan.deals).encode()
            digest = atomic_write_bytes(target / entry.deals, data)
            files.append({"path": entry.deals, "table": "deals", "rule_set": entry.ordinal,
                          "first_game": 0, "games": plan.games, "rows": plan.games, "sha256": digest})
    todo = []
    for shard in shards:
        done = journal.done(shard.part) if resume else None
        if done and all(_intact(target / f["path"], f["sha256"]) for f in done):
            files.extend(done)
            if progress:
                progress(shard.stop - shard.start)
        else:
            todo.append(shard)
    if scheduler is not None:
        results = run_tasks_dask(run_shard, todo, scheduler, progress, lambda s: s.stop - s.start)
    else:
        results = run_tasks(run_shard, todo, workers, progress, warm=_warm, fork=not is_remote(target))
    for result in results:
        files.extend(result)
    files.sort(key=lambda f: (f["rule_set"], f["table"], f["first_game"]))
    manifest = Manifest(master_seed=seed, rule_sets=kept_sets + entries,
                        files=kept_files + [DataFile(**f) for f in files])
    atomic_write_bytes(target / MANIFEST, (manifest.model_dump_json(indent=2) + "\n").encode())
    return manifest


def _intact(path, sha256: str) -> bool:
    try:
        return sha256_file(path) == sha256
    except OSError:
        return False


def _warm() -> None:
    """Load the compiled engine in this process, so that forked workers have it ready."""
    warm()


def _swap_in(staging: Path, root: Path) -> None:
    old = root.with_name(f".{root.name}.old-{os.getpid()}")
    os.replace(root, old)
    os.replace(staging, root)
    shutil.rmtree(old, ignore_errors=True)
