"""Generating a dataset: shards of games, each a pure function of (rules, seed, index range),
written atomically, then the manifest, written last.

The layout of shards depends only on the game counts and the shard size, never on the number
of workers, so any number of workers gives the same files byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Callable, Iterator, Sequence

from ..engines.game import Policies, policy_specs, tournament_seatings
from ..errors import DatasetError, PluginError, RulesError, brief
from ..log.shard import shard_tables
from ..log.tables import as_version
from ..log.warm import engines_for, warm
from ..model.all_deals import MAX_DEALS, AllDeals, check_enumerable
from ..model.deal import Deal, check_deal, deal_line, read_deals
from ..model.names import rule_set_names
from ..model.rules import check_name
from ..model.schema import (
    ENGINE_VERSION, GAME_ID_STRIDE, RULES_ID_VERSION, SCHEMA_VERSION, DataFile, Manifest, RuleSet, RuleSetEntry,
)
from ..storage.dataset import MANIFEST, Dataset, part_path
from ..storage.files import atomic_write_bytes, make_durable, remove_tree, sha256_file, write_parquet
from ..storage.journal import WORK_DIR, finished, record_shard
from ..storage.location import is_remote, location
from .parallel import Span, check_workers, dask_client, interrupts_deferred, run_tasks, run_tasks_dask
from .place import prepare_output, refuse_inside_dataset, roll_back, swap_in
from .resume import DEFAULT_SHARD_SIZE, GAMES_ONLY_SHARD_SIZE, RunJournal

DEFAULT_GAMES = 1000
MAX_GAMES = GAME_ID_STRIDE  # game_id = ordinal x GAME_ID_STRIDE + game_index must stay unique
MAX_SHARD_SIZE = 100_000    # a shard's events are built in memory: about 10 KB a game
MAX_SHARDS = 1_000_000      # the manifest lists every part file
LOGS = ("events", "games", "counts")


@dataclass
class Plan:
    """One rule set to generate: how many games, explicit deals if any, and for variants with
    decisions each seat's policy: one per seat, or a seating {seat: policy} (-1 for every seat
    not named); the defaults when not given. Kept in canonical form, a spec per seat."""

    rules: RuleSet
    games: int
    deals: list[Deal] | None = None
    policies: Policies = ()
    all_deals: bool = False  # game i plays deal i of every deal of the deck (model.all_deals)
    log: str = "events"  # what is stored: "events" (the log and the games table) or "games" alone
    seeds: list[int] | None = None  # each game's own seed (games taken from another dataset)
    sources: list[int] | None = None  # the game each was taken from (its game_id there)
    name: str | None = None  # what a person calls the rule set (RuleSetEntry.name); not a rule
    deal_range: tuple[int, int] | None = None  # log "counts": the deals counted, [first, stop)
    keep: str | None = None  # log "counts": the games whose rows are kept, a condition over the counts
    deal_indexes: list[int | None] | None = None  # each taken game's deal_index there, where it had one
    source: str | None = None  # the dataset the games were taken from (RuleSetEntry.source)

    def __post_init__(self) -> None:
        if not isinstance(self.rules, RuleSet):
            raise RulesError(f"a Plan's `rules` is a rule set (war.build_rules), not {brief(self.rules)}",
                             params=("rules",))
        if self.log not in LOGS:
            raise RulesError(f"`log` is {', '.join(LOGS[:-1])} or {LOGS[-1]}, got {brief(self.log)}", params=("log",))
        if self.log == "counts":  # as make_plans makes it: every deal, or the slice `deal_range` (a TypeError deep in generate)
            if not self.all_deals:
                raise RulesError("`log` counts counts every deal of the deck: give `all_deals`", params=("log", "all_deals"))
            from .counts import counted_range  # lazy (count_shard_size's note)

            self.deal_range = counted_range(self.rules, None, self.deal_range)
        elif self.deal_range is not None:
            raise RulesError("`deal_range` is a slice of the deals `log` counts counts: give both",
                             params=("deal_range", "log"))
        self.policies = policy_specs(self.rules, self.policies)


def make_plans(rule_sets: Sequence[RuleSet], games: int | None = None, deals: str | Path | None = None,
               policies: Policies = (), tournament: Sequence[str] = (), all_deals: bool = False,
               log: str = "events", names: Sequence[str | None] = (),
               deal_range: tuple[int, int] | None = None, keep: str | None = None) -> list[Plan]:
    """The plans for `generate`: each of `rule_sets` (no rule set twice) plays `games` games
    (default 1000, or one per deal). `deals` is a JSON Lines file of explicit deals, game i
    playing line i, checked against each rule set. `policies` are every seat's (one per seat,
    or a seating {seat: policy}, -1 for every seat not named); or a `tournament` among two or
    more policies gives a plan per ordered pair, so each pair plays the same seeds in both
    seatings (2 players). With `all_deals`, each rule set plays every deal of its deck once
    (`games`, if given, the first that many); `log` "games" stores the games table alone, and
    "counts" (every deal) the counts of its games by kind (jobs.counts), of the deals
    `deal_range` [first, stop) when given (a slice, which others complete), with the games rows
    of the deals whose games `keep` chooses (a condition over the counts' columns).
    `names`, one per rule set (None for none), name them (a name is not one of the rules)."""
    if all_deals and deals is not None:
        raise RulesError("give `deals` or `all_deals`, not both", params=("deals", "all_deals"))
    if log not in LOGS:
        raise RulesError(f"`log` is {', '.join(LOGS[:-1])} or {LOGS[-1]}, got {log!r}", params=("log",))
    if log == "counts" and not all_deals:
        raise RulesError("`log` counts counts every deal of the deck: give `all_deals`", params=("log", "all_deals"))
    if deal_range is not None and log != "counts":
        raise RulesError("`deal_range` is a slice of the deals `log` counts counts: give both",
                         params=("deal_range", "log"))
    if keep is not None and log != "counts":
        raise RulesError("`keep` keeps the games rows of some of the deals `log` counts counts: give both",
                         params=("keep", "log"))
    if keep is not None:
        from .counts import check_keep  # lazy (count_shard_size's note)

        keep = check_keep(keep)
    if deal_range is not None and games is not None:
        raise RulesError("give `games` or `deal_range`, not both", params=("games", "deal_range"))
    ids = [r.rules_id for r in rule_sets]
    if len(set(ids)) != len(ids):
        raise RulesError("the same rule set is given twice")
    if policies and tournament:
        raise RulesError("give `policies` or `tournament`, not both", params=("policies", "tournament"))
    names = list(names) or [None] * len(rule_sets)
    if len(names) != len(rule_sets):
        raise RulesError(f"`names` gives {len(names)} names for {len(rule_sets)} rule sets: one each",
                         params=("names",))
    plans = []
    for rules, name in zip(rule_sets, names):
        if log == "counts":
            from .counts import counted_range  # lazy (count_shard_size's note)

            plans += [Plan(rules, 0, None, seating, True, log, name=name,
                           deal_range=counted_range(rules, games, deal_range), keep=keep)
                      for seating in (tournament_seatings(rules, tournament) if tournament else [policies])]
            continue
        dealt = read_deals(deals, rules) if deals is not None else None
        n = games if games is not None else (len(dealt) if dealt is not None else DEFAULT_GAMES)
        if all_deals:
            count = check_enumerable(rules)
            n = count if games is None else n
            if n > count:
                raise RulesError(f"`games` {n} but the deck has only {count:,} deals", params=("games",))
        check_games(n)
        if dealt is not None and n > len(dealt):
            raise RulesError(f"`games` {n} but {deals} holds only {len(dealt)} deals", params=("games",))
        seatings = tournament_seatings(rules, tournament) if tournament else [policies]
        plans += [Plan(rules, n, dealt[:n] if dealt is not None else None, seating, all_deals, log, name=name)
                  for seating in seatings]
    return plans


def check_games(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_GAMES:
        raise RulesError(f"`games` must be between 1 and {MAX_GAMES:,} (a rule set's game ids), got {n!r}",
                         params=("games",))


def check_names(plans: Sequence[Plan], kept: Sequence[RuleSetEntry] = ()) -> None:
    """A rule set's name names one rule set: two rule sets of the dataset (the `kept` entries of
    a dataset appended to, then `plans`) never share one."""
    owner = {e.name: e.rules_id for e in kept if e.name}
    if kept:  # the names the kept rule sets go by, given or not: an append renames none of them
        shown = rule_set_names(kept)
        for e in kept:
            owner.setdefault(shown[e.ordinal], e.rules_id)
    for plan in plans:
        if plan.name is None:  # named by its rules: a kept rule set that goes by that name would be renamed
            rid = owner.get(plan.rules.label, plan.rules.rules_id) if kept else plan.rules.rules_id
            if rid != plan.rules.rules_id:
                raise RulesError(f"{plan.rules.label!r} already names rule set {rid} of the dataset, which an append "
                                 f"does not rename; give the new rule set a name of its own (`names`)",
                                 params=("names",))
            continue
        plan.name = check_name(plan.name)
        rid = owner.setdefault(plan.name, plan.rules.rules_id)
        if rid != plan.rules.rules_id:
            raise RulesError(f"`names`: {plan.name!r} already names rule set {rid}; give each rule set its own name",
                             params=("names",))


def default_shard_size(plans: Sequence[Plan]) -> int:
    """Games a shard when a run does not say: more when no rule set stores its events."""
    return GAMES_ONLY_SHARD_SIZE if plans and all(plan.log == "games" for plan in plans) else DEFAULT_SHARD_SIZE


def check_seed(seed: int) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise DatasetError(f"`seed` must be between 0 and 2^64 - 1, got {seed!r}", params=("seed",))


def check_arguments(plans: Sequence[Plan], seed: int | None, workers: int, shard_size: int) -> None:
    """Every argument of `generate` that can be checked without reading anything, so that a bad
    one is refused before any file is touched, locked or removed."""
    if isinstance(plans, Plan) or not isinstance(plans, Sequence) or not all(isinstance(p, Plan) for p in plans):
        said = "one Plan (give [plan])" if isinstance(plans, Plan) else brief(plans)
        raise RulesError(f"`plans` is a list of Plans, not {said}", params=("plans",))
    if not plans:
        raise RulesError("nothing to generate: no rule set given")
    seated = set()
    for plan in plans:
        if plan.log != "counts":
            check_games(plan.games)
        if plan.all_deals:  # as make_plans checks it, before anything is written (a 52-card deck has 9e67)
            if plan.log == "counts":
                from .counts import MOST_COUNTED_DEALS  # lazy (count_shard_size's note)

                check_enumerable(plan.rules, MOST_COUNTED_DEALS)
            else:
                check_enumerable(plan.rules, MAX_DEALS)
        if plan.seeds is None:  # the same rule set and seating twice: the same games twice, counted twice
            key = (plan.rules.rules_id, tuple(plan.policies))
            if key in seated:
                raise RulesError("the same rule set is given twice" + (" with the same policies" if plan.policies else ""),
                                 params=("plans",))
            seated.add(key)
        if plan.deals is not None and len(plan.deals) < plan.games:
            raise RulesError(f"`games` {plan.games} but only {len(plan.deals)} deals", params=("games",))
    check_names(plans)
    if seed is not None:
        check_seed(seed)
    check_workers(workers)
    if isinstance(shard_size, bool) or not isinstance(shard_size, int) or not 1 <= shard_size <= MAX_SHARD_SIZE:
        raise DatasetError(f"`shard_size` must be between 1 and {MAX_SHARD_SIZE:,}, got {shard_size!r}",
                           params=("shard_size",))
    shards = sum(len(plan_ranges(plan, shard_size)) for plan in plans)
    if shards > MAX_SHARDS:
        raise DatasetError(f"{shards:,} part files of `shard_size` {shard_size:,} games: at most "
                           f"{MAX_SHARDS:,} (give a larger `shard_size`)", params=("shard_size",))


@dataclass(frozen=True)
class Shard(Span):
    part: int
    root: str
    deals: tuple[tuple[tuple[tuple[int, ...], ...], tuple[int, ...]], ...] | None  # (piles, set aside) a game
    journal: str | None = None
    durable: bool = False  # fsync its own files: a Dask worker's writes are out of make_durable's reach
    rules_id: str | None = None  # the id its dataset's entry gives the rule set (by default, today's)
    all_deals: bool = False  # its games play deals start..stop-1 of every deal of the deck
    log: str = "events"  # "games": its events are not stored
    schema_version: int = SCHEMA_VERSION  # its dataset's: files of an older one have fewer columns
    seeds: tuple[int, ...] | None = None  # each game's own seed


def plan_ranges(plan: Plan, shard_size: int) -> range:
    """The first game (or deal) of each of the plan's shards; a counts plan's shards have a size
    of their own (jobs.counts.count_shard_size)."""
    if plan.log == "counts":
        first, stop = plan.deal_range
        return range(first, stop, count_shard_size(stop - first))
    return range(0, plan.games, shard_size)


# jobs.counts (a counts rule set's shards, tallies and sums) is imported only by a run that has
# a counts rule set: its modules and numba's tallies are about 10 ms of every other run's start,
# which two workers wait for as long as one (issue 51).

def count_shard_size(deals: int) -> int:
    """jobs.counts.count_shard_size."""
    from .counts import count_shard_size as size

    return size(deals)


def run_count_shard(shard, tick: Callable[[int], None] | None = None) -> list[dict]:
    """jobs.counts.run_count_shard."""
    from .counts import run_count_shard as run

    return run(shard, tick)


def summed_counts(target, plans, entries, files: list[dict], workers: int, shards_of):
    """jobs.counts.summed_counts, for a run with a counts rule set; else its entries and files as
    they are."""
    if not any(plan.log == "counts" for plan in plans):
        return entries, files
    from .counts import summed_counts as summed

    return summed(target, plans, entries, files, workers, shards_of)


def run_shard(shard: Shard, tick: Callable[[int], None] | None = None) -> list[dict]:
    """Play one shard and write its games and events files (or, for a counts rule set, count its
    deals into the journal); return their manifest entries, after its journal record (what
    --resume keeps)."""
    out = run_count_shard(shard, tick) if shard.log == "counts" else _played_shard(shard, tick)
    if shard.journal is not None:
        record_shard(shard.journal, shard.part, out, durable=shard.durable)
    return out


def _played_shard(shard: Shard, tick: Callable[[int], None] | None) -> list[dict]:
    rules = RuleSet.model_validate_json(shard.rules_json)
    deals = None
    if shard.deals is not None:  # checked again here: a Plan's deals may be Deals a caller made
        deals = [check_deal(rules, [list(p) for p in piles], list(aside)) for piles, aside in shard.deals]
    elif shard.all_deals:
        deals = AllDeals(rules, shard.start, shard.stop)
    events, games = shard_tables(rules, shard.ordinal, shard.seed, shard.start, shard.stop,
                                 deals, shard.policies, tick, shard.rules_id, events=shard.log == "events",
                                 seeds=shard.seeds, compiled_in=interrupts_deferred)
    root = location(shard.root)
    out = []
    events, games = (None if t is None else as_version(t, shard.schema_version) for t in (events, games))
    tables = (("events", events, ("game_id", "seq")), ("games", games, ("game_id",)))
    for table_name, table, key in tables if events is not None else tables[1:]:
        rel = part_path(table_name, rules.variant, shard.part)
        digest = write_parquet(table, root / rel, key, durable=shard.durable)  # else made durable before the manifest
        out.append({"path": rel, "table": table_name, "rule_set": shard.ordinal,
                    "first_game": shard.start, "games": shard.stop - shard.start,
                    "rows": table.num_rows, "sha256": digest})
    return out


def plan_entries(plans: list[Plan], seed: int, shard_size: int, first_ordinal: int = 0) -> list[RuleSetEntry]:
    return [RuleSetEntry(ordinal=ordinal, rules_id=plan.rules.rules_id, rules_id_version=RULES_ID_VERSION,
                         rules=plan.rules,
                         policies=list(plan.policies), seed=seed, games=plan.games,
                         shard_size=shard_size if plan.log != "counts" else count_shard_size(
                             plan.deal_range[1] - plan.deal_range[0]),
                         deal_range=list(plan.deal_range) if plan.deal_range else None,
                         deals=f"deals/rule_set-{ordinal}.jsonl" if plan.deals is not None else None,
                         all_deals=plan.all_deals, log=plan.log,
                         seeds=f"seeds/rule_set-{ordinal}.jsonl" if plan.seeds is not None else None,
                         name=plan.name, source=plan.source, keep=plan.keep)
            for ordinal, plan in enumerate(plans, first_ordinal)]


def iter_shards(plans: list[Plan], entries: list[RuleSetEntry], seed: int, root, shard_size: int,
                first_part: int = 0, journal: str | None = None, version: int = SCHEMA_VERSION) -> Iterator[Shard]:
    """The shards of `plans`, one at a time: a billion games are half a million shards, which
    are made as workers take them, never all at once."""
    part = first_part
    for entry, plan in zip(entries, plans):
        rules_json = plan.rules.model_dump_json()
        ranges = plan_ranges(plan, shard_size)
        end = plan.deal_range[1] if plan.log == "counts" else plan.games
        for start in ranges:
            stop = min(start + ranges.step, end)
            deals = None
            if plan.deals is not None:
                deals = tuple((d.piles, d.set_aside) for d in plan.deals[start:stop])
            yield Shard(entry.ordinal, rules_json, tuple(plan.policies), seed, start, stop, part,
                        str(root), deals, journal, rules_id=entry.rules_id, all_deals=plan.all_deals, log=plan.log,
                        seeds=tuple(plan.seeds[start:stop]) if plan.seeds is not None else None,
                        schema_version=version)
            part += 1


DEFAULT_WAIT = 600.0  # seconds an append waits for another writer of its dataset


def generate(out: str | Path, plans: list[Plan], seed: int | None = None, workers: int = 1,
             overwrite: bool = False, shard_size: int = DEFAULT_SHARD_SIZE,
             progress: Callable[[int], None] | None = None, append: bool = False,
             resume: bool = False, scheduler: str | None = None, wait: float = DEFAULT_WAIT,
             on_wait: Callable[[dict, float], None] | None = None,
             resumed: Callable[[int], None] | None = None) -> Manifest:
    """Generate a dataset into `out` (a folder or a URI) from `plans` with the master seed
    `seed` (default 0, or the dataset's with `append`); the manifest is written last, atomically.
    Returns the manifest.

    `append` adds rule sets to a finished dataset (its files stay as they are; a new manifest
    lists old and new together). Appends to one dataset take turns: one that finds another
    writer there waits for it up to `wait` seconds (`on_wait(holder, wait)` is called when it
    starts waiting), then reads the manifest that writer left; an append that stops before any
    of its shards is done (refused, Ctrl-C, a failure) leaves the dataset as it was. `resume`
    finishes a run that was interrupted, skipping the shards it finished, with the same bytes
    as an uninterrupted run (`resumed(games)` is told how many games those shards hold, which
    `progress` hears of too, before any is played). `scheduler` runs the shards on a Dask distributed cluster instead
    of local processes (reached before anything is written)."""
    check_arguments(plans, seed, workers, shard_size)
    if resume and overwrite:
        raise DatasetError("`resume` and `overwrite` do not go together", params=("resume", "overwrite"))
    if append and overwrite:
        raise DatasetError("`append` and `overwrite` do not go together", params=("append", "overwrite"))
    check_wait(wait)
    root = location(out)
    refuse_inside_dataset(root)
    made = False  # whether this run makes the output folder
    with dask_client(scheduler) as client:
        if append:
            Dataset.open(root)  # a finished dataset, before a journal is made in it
            if resume:
                _check_append_resumable(root, plans)
            target = root
        elif resume:
            _check_resumable(root)
            target = root
        else:
            made = isinstance(root, Path) and not root.exists()
            target = prepare_output(root, overwrite)
        journal = RunJournal(target)
        journal.acquire(resume, wait=wait if append else 0.0, on_wait=on_wait)
        kept_sets: list[RuleSetEntry] = []
        kept_files: list[DataFile] = []
        first_part = 0
        version = SCHEMA_VERSION
        exits: list = []  # the workers, ending beside the run's tail (run_tasks): waited for last
        try:
            if append:  # under the lock: the manifest every append before this one left
                seed, kept_sets, kept_files, first_part, version = _appended_to(root, plans, seed)
            elif seed is None:
                seed = 0
            if resume:
                journal.sweep()
            manifest = _generate(target, journal, plans, seed, workers, shard_size, progress, resume,
                                 client, kept_sets, kept_files, first_part, version, resumed, exits)
        except BaseException as err:
            _wait_for(exits)
            with interrupts_deferred():  # a second Ctrl-C must not leave half a staging folder
                if append and journal.planned and not journal.has_records():
                    roll_back(root, journal)  # nothing finished: the dataset as it was
                elif isinstance(err, PluginError) and not resume:
                    # a plugin's policy or engine failed: its games would fail again the same way,
                    # so the run is not one to resume; what it wrote goes (an append's dataset is
                    # as it was, a new dataset's folder is gone)
                    roll_back(target, journal)
                    if target == root and not append and made:
                        remove_tree(root)
                else:
                    journal.release()
                if target != root:
                    remove_tree(target)
            raise
        try:
            with interrupts_deferred():  # between the two renames there is no dataset under `root`
                journal.close()
                if target != root:
                    swap_in(target, root)
        finally:
            _wait_for(exits)
    return manifest


def _wait_for(exits: list) -> None:
    """Wait for the workers that run_tasks left to end (its `exits`)."""
    while exits:
        exits.pop()()


def check_wait(wait: float) -> None:
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not 0 <= wait <= MAX_WAIT:
        raise DatasetError(f"`wait` must be between 0 and {MAX_WAIT:,} seconds, got {wait!r}", params=("wait",))


MAX_WAIT = 86_400


def _check_resumable(root) -> None:
    """`resume` needs an interrupted run of a new dataset at `root`. A finished dataset's
    journal is an interrupted append (resumed with `append`), or the leftover of a run killed
    after its manifest (removed here, being nobody's work)."""
    if (root / MANIFEST).exists():
        journal = RunJournal(root)
        if journal.exists():
            if journal.writing():
                journal.refuse()
            if journal.has_plan() and not finished(journal.plan(), root):
                raise DatasetError(f"{str(root)!r} holds an interrupted append, which `resume` finishes with "
                                   f"`append`: {journal.finish_command()}", params=("resume", "append"))
            journal.clear_if_stale()
        raise DatasetError(f"dataset {str(root)!r} is finished; there is nothing to resume")
    if not (root / WORK_DIR).exists():
        raise DatasetError(f"nothing to resume in {str(root)!r}: no interrupted run there")


def _check_append_resumable(root, plans: list[Plan]) -> None:
    """`append` with `resume` after an append killed once its manifest was written: its journal
    (a dead lock, or a finished plan) is removed, and a run whose rule sets are all in the
    dataset already is said to be finished rather than refused as a rule set given twice."""
    journal = RunJournal(root)
    if not journal.exists() or journal.writing() or (journal.has_plan() and not finished(journal.plan(), root)):
        return
    journal.clear_if_stale()
    entries = Dataset.open(root).manifest.rule_sets
    if all(any(e.rules == plan.rules and e.policies == list(plan.policies) for e in entries) for plan in plans):
        raise DatasetError(f"the append to {str(root)!r} is finished; there is nothing to resume")


def _appended_to(root, plans: list[Plan], seed: int | None):
    """The seed, rule sets, files, first part number and schema version an append to the
    finished dataset at `root` continues from, read under its lock (its new files are written in
    the dataset's own version); refuses another seed and a rule set already there."""
    existing = Dataset.open(root).manifest
    if seed is None:
        seed = existing.master_seed
    if seed != existing.master_seed:
        raise DatasetError(f"dataset {str(root)!r} has master seed {existing.master_seed}; appended "
                           f"rule sets play the same seeds (leave out `seed` or give that one)",
                           params=("seed",))
    for plan in plans:
        for entry in existing.rule_sets:
            if entry.rules == plan.rules and entry.policies == list(plan.policies) \
                    and entry.deals is None and plan.deals is None:
                raise DatasetError(f"rule set {plan.rules.rules_id} ({plan.rules.variant}) is already "
                                   f"in {str(root)!r} as rule set {entry.ordinal}")
    check_names(plans, existing.rule_sets)
    first_part = 1 + max((int(f.path.rsplit("part-", 1)[1].split(".")[0]) for f in existing.files
                          if "part-" in f.path), default=-1)
    # the new manifest names this war's engine: each kept rule set keeps the one that played it
    kept = [e if e.engine_version or existing.engine_version == ENGINE_VERSION
            else e.model_copy(update={"engine_version": existing.engine_version}) for e in existing.rule_sets]
    return seed, kept, existing.files, first_part, existing.schema_version


def _generate(target, journal: RunJournal, plans, seed, workers, shard_size, progress, resume,
              client, kept_sets, kept_files, first_part, version: int = SCHEMA_VERSION,
              resumed: Callable[[int], None] | None = None, exits: list | None = None) -> Manifest:
    first_ordinal = 1 + max((e.ordinal for e in kept_sets), default=-1)
    entries = plan_entries(plans, seed, shard_size, first_ordinal)
    shards = iter_shards(plans, entries, seed, target, shard_size, first_part, str(journal.dir), version)
    count = sum(len(plan_ranges(plan, shard_size)) for plan in plans)
    journal.check_plan({"seed": seed, "shard_size": shard_size,
                        "rule_sets": [e.model_dump(mode="json") for e in entries],
                        "kept": [f.model_dump(mode="json") for f in kept_files],
                        "first_part": first_part}, resume)
    files: list[dict] = []
    for entry, plan in zip(entries, plans):
        if entry.deals is not None:
            data = "".join(deal_line(d) + "\n" for d in plan.deals).encode()
            digest = atomic_write_bytes(target / entry.deals, data, dataset=True)
            files.append({"path": entry.deals, "table": "deals", "rule_set": entry.ordinal,
                          "first_game": 0, "games": plan.games, "rows": plan.games, "sha256": digest})
        if entry.seeds is not None:
            sources = plan.sources or [None] * plan.games
            dealt = plan.deal_indexes or [None] * plan.games
            data = "".join(json.dumps({"seed": s, "from": g, **({} if d is None else {"deal_index": d})},
                                      separators=(",", ":")) + "\n"
                           for s, g, d in zip(plan.seeds, sources, dealt)).encode()
            digest = atomic_write_bytes(target / entry.seeds, data, dataset=True)
            files.append({"path": entry.seeds, "table": "seeds", "rule_set": entry.ordinal,
                          "first_game": 0, "games": plan.games, "rows": plan.games, "sha256": digest})
    finished = {}
    if resume:
        games_before = 0
        for shard in iter_shards(plans, entries, seed, target, shard_size, first_part):
            done = journal.done(shard.part)
            if done and all(_intact(target / f["path"], f["sha256"]) for f in done):
                finished[shard.part] = done
                files.extend(done)
                games_before += shard.stop - shard.start
                if progress:
                    progress(shard.stop - shard.start)
        if resumed is not None:
            resumed(games_before)
    todo = (shard for shard in shards if shard.part not in finished)
    if client is not None:  # other machines write these files: each worker waits for its own
        results = run_tasks_dask(run_shard, (replace(shard, durable=True) for shard in todo), client,
                                 progress, lambda s: s.stop - s.start)
    else:
        results = run_tasks(run_shard, todo, workers, progress, warm=partial(_warm, [plan.rules for plan in plans]),
                            fork=not is_remote(target), count=count - len(finished), exits=exits)
    for result in results:
        files.extend(result)
    if exits and any(plan.log == "counts" for plan in plans):
        _wait_for(exits)  # a counts rule set's kept games are played on workers again (summed_counts)
    entries, files = summed_counts(target, plans, entries, files, workers,
                                   lambda ordinal: [s for s in iter_shards(plans, entries, seed, target, shard_size,
                                                                           first_part) if s.ordinal == ordinal])
    files.sort(key=lambda f: (f["rule_set"], f["table"], f["first_game"]))
    manifest = Manifest(schema_version=version, master_seed=seed, rule_sets=kept_sets + entries,
                        files=kept_files + [DataFile(**f) for f in files])
    make_durable(target, [f["path"] for f in files])
    atomic_write_bytes(target / MANIFEST, (manifest.model_dump_json(indent=2) + "\n").encode(), dataset=True)
    return manifest


def _intact(path, sha256: str) -> bool:
    try:
        return sha256_file(path) == sha256
    except OSError:
        return False


def _warm(rule_sets) -> None:
    """Load the compiled engine builds that play `rule_sets` in this process, so that forked
    workers have them ready."""
    warm(engines=engines_for(rule_sets))


