"""A `generate` run as a command line asks for it: rule sets from variant names, OPTION=VALUE
options and rule files; each seat's policy from SEAT=POLICY; the executor; the dataset's
default place. Every argument is checked before anything is touched. The run, when Ctrl-C or
a failing disk stops it, says what is left and how to finish; the sizes of the files it wrote.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from ..engines.choice import compiled_plays
from ..engines.policies import parse_seating
from ..errors import Interrupted, RulesError, StorageError, WarError, interrupted, storage_error
from ..model.rules import build_rules, check_name, load_rules_file, parse_sets, read_rules_file
from ..model.schema import Manifest, RuleSet
from ..storage.journal import WORK_DIR
from ..storage.location import StorePath, location
from .generate import (
    DEFAULT_SHARD_SIZE, DEFAULT_WAIT, Plan, check_arguments, check_wait, default_shard_size, generate, make_plans,
)
from .materialize import materialize_plans
from .place import Discarded, discard

EXECUTORS = ("local", "dask")


@dataclass
class GenerateRequest:
    """A checked run of `generate`: its plans, where it writes, and how."""

    plans: list[Plan]
    out: Path | StorePath
    seed: int | None = None
    workers: int = 1
    shard_size: int = DEFAULT_SHARD_SIZE
    overwrite: bool = False
    append: bool = False
    resume: bool = False
    scheduler: str | None = None
    wait: float = DEFAULT_WAIT
    discard: bool = False  # roll back the interrupted run in `out` instead (run_discard)

    def run_discard(self) -> Discarded:
        """Roll back the interrupted run in `out` (jobs.place.discard): what it removed."""
        return discard(self.out)

    @property
    def games(self) -> int:
        """Games in the run, over every rule set (a counts rule set's: the deals it counts)."""
        return sum(p.deal_range[1] - p.deal_range[0] if p.log == "counts" else p.games for p in self.plans)

    @property
    def compiled_rule_sets(self) -> list[RuleSet]:
        """The rule sets whose games the compiled engine plays: those to warm before the run."""
        return [p.rules for p in self.plans if compiled_plays(p.rules, p.deals, p.policies)]

    def run(self, progress: Callable[[int], None] | None = None, command: Sequence[str] | None = None,
            on_wait: Callable[[dict, float], None] | None = None,
            resumed: Callable[[int], None] | None = None) -> Manifest:
        """Generate the dataset; the manifest. Stopped by Ctrl-C or a failing disk (or any other
        refusal of the operating system: too many open files, no memory), it raises Interrupted
        or a StorageError that names the path and says how to finish: `command`, the `war`
        arguments of the run (as typed after `war`), again with --resume; without it, the same
        command with --resume. `on_wait` as generate's, for an append that waits its turn;
        `resumed(games)` as generate's, the games a resumed run finds done."""
        try:
            return generate(self.out, self.plans, self.seed, workers=self.workers, overwrite=self.overwrite,
                            shard_size=self.shard_size, progress=progress, append=self.append,
                            resume=self.resume, scheduler=self.scheduler, wait=self.wait, on_wait=on_wait,
                            resumed=resumed)
        except BaseException as err:
            stopped = interrupted(err) and not isinstance(err, Interrupted)
            if isinstance(err, OSError) and not isinstance(err, WarError) and not stopped:
                err = storage_error(err, err.filename or self.out, doing="write" if err.filename else "write to")
            if stopped or isinstance(err, StorageError):
                raise self._unfinished(err if not stopped else None, command) from None
            raise

    def _unfinished(self, err: StorageError | None, command: Sequence[str] | None) -> WarError:
        """The one line for a run stopped by Ctrl-C (err None) or a failing disk: what happened,
        and the command that finishes the run when it left a journal to finish from."""
        out = self.out
        what = "interrupted" if err is None else str(err)
        if (out / WORK_DIR).exists():
            args = [a for a in (command or []) if a != "--overwrite"]
            if "--resume" not in args:
                args.append("--resume")
            how = f"war {shlex.join(args)}" if args[:1] == ["generate"] else "the same command with --resume"
            text = f"{what}; finish with: {how}"
        elif (out / "manifest.json").exists():
            text = f"{what}; the dataset in {str(out)!r} is as it was"
        else:
            text = f"{what}; nothing was written to {str(out)!r}"
        if err is None:
            return Interrupted(text)
        return StorageError(text, exit_code=err.exit_code)

    def sizes(self, manifest: Manifest) -> dict[str, int]:
        """Bytes of the `games` and `events` files of this run's rule sets, in `manifest`."""
        new = {e.ordinal for e in manifest.rule_sets[-len(self.plans):]}
        return {t: sum((self.out / f.path).stat().st_size for f in manifest.files if f.table == t and f.rule_set in new)
                for t in ("games", "events")}


def rule_set(variant: str | None = None, options: Sequence[str] = (), rule_file: str | Path | None = None) -> RuleSet:
    """One rule set from a command line's arguments: a variant (Classic War by default) with
    OPTION=VALUE `options`, or a rule file (options go in the file)."""
    if rule_file is not None:
        if variant is not None or options:
            raise RulesError("give a `rule_file` or a variant and its `options`, not both",
                             params=("rule_file", "options"))
        return load_rules_file(rule_file)
    return build_rules(variant or "classic", parse_sets(list(options)))


def parse_deal_range(text: str | tuple[int, int] | None) -> tuple[int, int] | None:
    """FIRST:STOP (deal numbers, `_` allowed between digits) as a pair; a pair as it is."""
    if text is None or isinstance(text, tuple):
        return text
    first, colon, stop = str(text).partition(":")
    try:
        if not colon:
            raise ValueError
        return int(first.strip()), int(stop.strip())
    except ValueError:
        raise RulesError(f"`deal_range` is FIRST:STOP, two deal numbers (0:1000000), got {text!r}",
                         params=("deal_range",)) from None


def generate_request(variants: Sequence[str] = (), options: Sequence[str] = (), rule_files: Sequence[str | Path] = (),
                     games: int | None = None, deals: str | Path | None = None, policies: Sequence[str] = (),
                     tournament: Sequence[str] = (), seed: int | None = None, out: str | Path | None = None,
                     workers: int = 1, shard_size: int | None = None, overwrite: bool = False,
                     append: bool = False, resume: bool = False, executor: str = "local",
                     scheduler: str | None = None, all_deals: bool = False, log: str = "events",
                     source: str | Path | None = None, where: str | None = None, wait: float = DEFAULT_WAIT,
                     discard: bool = False, names: Sequence[str] = (),
                     deal_range: str | tuple[int, int] | None = None) -> GenerateRequest:
    """A run of `generate` from a command line's arguments, each checked before anything is
    touched: a rule set per name of `variants` with `options` (OPTION=VALUE texts) applied,
    one per file of `rule_files` (options go in the file), else Classic War with `options`;
    `policies` as SEAT=POLICY texts (or a `tournament`), as in make_plans; `executor` local
    (processes) or dask (with the `scheduler` address). `out` defaults to data/VARIANT-sSEED
    (the variants joined by dashes); `append` needs it. `all_deals`, `log` and `deal_range`
    (FIRST:STOP, or a pair) as make_plans.
    With `source`, a dataset, the run plays again the games of it that `where` chooses, with
    their whole log (jobs.materialize): rule sets, games and seeds come from the source.
    `wait`: how long an append waits for another writer of its dataset. `discard` asks for no
    games but the roll-back of the interrupted run in `out`, and takes no other argument.
    `shard_size`: games a part file, by default 2,000, or 20,000 where only the games table is
    stored (generate.default_shard_size).
    `names` name the rule sets of `variants` (or the one of `options`), one each, in order; a
    rule file gives its own (`name = "..."`). A name is what the report and the `rule_set`
    column show instead of the variant and its options; it is not a rule."""
    check_wait(wait)
    if discard:
        given = [name for name, value in (("variants", variants), ("options", options), ("rule_files", rule_files),
                                          ("games", games), ("deals", deals), ("policies", policies),
                                          ("tournament", tournament), ("seed", seed), ("append", append),
                                          ("resume", resume), ("overwrite", overwrite), ("all_deals", all_deals),
                                          ("log", log != "events"), ("from", source), ("where", where),
                                          ("scheduler", scheduler), ("names", names),
                                          ("deal_range", deal_range)) if value]
        if given or out is None:
            raise RulesError("`discard` rolls back the interrupted run in `out` and takes nothing else"
                             + (": drop " + ", ".join(f"`{n}`" for n in given) if given else ": give `out`"),
                             params=("discard", "out", *given))
        return GenerateRequest([], location(out), discard=True)
    if source is not None or where is not None:
        given = [name for name, value in (("variants", variants), ("options", options), ("rule_files", rule_files),
                                          ("games", games), ("deals", deals), ("policies", policies),
                                          ("tournament", tournament), ("seed", seed), ("append", append),
                                          ("all_deals", all_deals), ("log", log != "events"),
                                          ("names", names), ("deal_range", deal_range)) if value]
        if given:
            raise RulesError("`from` takes its rule sets, games and seeds from the source dataset: give none of "
                             + ", ".join(f"`{n}`" for n in given), params=("from", *given))
        if source is None or where is None or out is None:
            raise RulesError("`from` needs `where` (which of its games) and `out` (the new dataset)",
                             params=("from", "where", "out"))
        if executor not in EXECUTORS:
            raise RulesError(f"`executor` is local or dask, got {executor!r}", params=("executor",))
        plans, master = materialize_plans(source, where)
        shard_size = default_shard_size(plans) if shard_size is None else shard_size
        check_arguments(plans, master, workers, shard_size)
        return GenerateRequest(plans, location(out), master, workers, shard_size, overwrite, False, resume, scheduler, wait)
    parsed = parse_sets(list(options))
    rule_sets = [build_rules(name, parsed) for name in variants]
    if rule_files and parsed:
        raise RulesError("`options` applies to `variants`; put options for a `rule_files` file in the file",
                         params=("options", "variants", "rule_files"))
    if not rule_sets and not rule_files:
        rule_sets = [build_rules("classic", parsed)]
    given = [check_name(n) for n in names]
    if given and len(given) != len(rule_sets):
        where_ = "; a rule file names its rule set with `name = ...`" if rule_files else ""
        raise RulesError(f"`names` gives {len(given)} name{'s' * (len(given) > 1)} for {len(rule_sets)} "
                         f"rule set{'s' * (len(rule_sets) != 1)} of `variants`: one each, in order{where_}",
                         params=("names", "variants"))
    given = given or [None] * len(rule_sets)
    for path in rule_files:
        rules, name = read_rules_file(path)
        rule_sets.append(rules)
        given.append(name)
    if executor not in EXECUTORS:
        raise RulesError(f"`executor` is local or dask, got {executor!r}", params=("executor",))
    if (executor == "dask") != (scheduler is not None):
        raise RulesError("`executor` dask needs `scheduler` ADDRESS (and `scheduler` needs `executor` dask)",
                         params=("executor", "scheduler"))
    plans = make_plans(rule_sets, games, deals, parse_seating(policies), tournament, all_deals, log, given,
                       parse_deal_range(deal_range))
    if append and out is None:
        raise RulesError("`append` needs `out`, the dataset to add to", params=("append", "out"))
    shard_size = default_shard_size(plans) if shard_size is None else shard_size
    check_arguments(plans, seed, workers, shard_size)
    if out is None:
        out = Path("data") / f"{'-'.join(dict.fromkeys(r.variant for r in rule_sets))}-s{seed or 0}"
    return GenerateRequest(plans, location(out), seed, workers, shard_size, overwrite, append, resume, scheduler, wait)
