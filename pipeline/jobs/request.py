"""A `generate` run as a command line asks for it (GenerateArgs): rule sets from variant names,
OPTION=VALUE options and rule files; each seat's policy from SEAT=POLICY; the executor; the
dataset's default place. Every argument is checked before anything is touched
(generate_request). The run, when Ctrl-C or a failing disk stops it, says what is left and how
to finish; the sizes of the files it wrote.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from ..engines.choice import compiled_plays
from ..engines.families import family_of
from ..engines.game import chance_in_games
from ..engines.policies import parse_seating, profile_reading
from ..errors import Interrupted, RulesError, StorageError, WarError, interrupted, storage_error
from ..model.rules import build_rules, check_name, load_rules_file, parse_sets, read_rules_file
from ..model.schema import Manifest, RuleSet
from ..storage.dataset import WORK_DIR
from ..storage.location import StorePath, location
from .generate import (
    DEFAULT_SHARD_SIZE, DEFAULT_WAIT, Plan, check_arguments, check_wait, default_shard_size, generate, make_plans,
)
from .materialize import check_not_source, materialize_plans
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
    # how an argument was read where it reads two ways (a profile's name); every deal played where the seed
    # still decides the game
    warnings: tuple[str, ...] = ()

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


def rules_of(label: str) -> RuleSet:
    """The rule set a label names (RuleSet.label, as a records line keeps it: the variant, then
    OPTION=VALUE)."""
    variant, *options = label.split()
    return rule_set(variant, options)


@dataclass(frozen=True)
class GenerateArgs:
    """A run of `generate` as a command line asks for it, unchecked (generate_request checks it).

    What to play: a rule set per name of `variants` with `options` (OPTION=VALUE texts)
    applied, one per file of `rule_files` (options go in the file), else Classic War with
    `options`; `names` name the rule sets of `variants` (or the one of `options`), one each, in
    order (a rule file gives its own, `name = "..."`; a name is not a rule). `games` each, from
    explicit `deals` (a JSON Lines file) or `all_deals` of the deck; each seat's `policies` as
    SEAT=POLICY texts, or a `tournament`; `log`, `deal_range` (FIRST:STOP, or a pair) and `keep`
    as make_plans. Or `source`, a dataset, whose
    games that `where` chooses are played again with their whole log (jobs.materialize): rule
    sets, games and seeds then come from the source.

    Where and how: the master `seed`; `out` (by default data/VARIANT-sSEED, the variants joined
    by dashes; `append` needs it) with `overwrite`, `append` or `resume`; `wait`, how long an
    append waits for another writer of its dataset; `discard` asks for no games but the
    roll-back of the interrupted run in `out`, and takes no other argument. `workers`;
    `shard_size`, games a part file (by default 2,000, or 20,000 where only the games table is
    stored: generate.default_shard_size); `executor` local (processes) or dask (with the
    `scheduler` address)."""

    variants: Sequence[str] = ()
    options: Sequence[str] = ()
    rule_files: Sequence[str | Path] = ()
    names: Sequence[str] = ()
    games: int | None = None
    deals: str | Path | None = None
    all_deals: bool = False
    policies: Sequence[str] = ()
    tournament: Sequence[str] = ()
    log: str = "events"
    source: str | Path | None = None
    where: str | None = None
    seed: int | None = None
    out: str | Path | None = None
    overwrite: bool = False
    append: bool = False
    resume: bool = False
    wait: float = DEFAULT_WAIT
    discard: bool = False
    workers: int = 1
    shard_size: int | None = None
    executor: str = "local"
    scheduler: str | None = None
    deal_range: str | tuple[int, int] | None = None
    keep: str | None = None

    def given(self, *names: str) -> list[str]:
        """Those of the arguments `names` that this run gives (`log` other than events), by
        the names a message says them with (`from` for `source`)."""
        return [_SAID.get(name, name) for name in names
                if (self.log != "events" if name == "log" else getattr(self, name))]


_SAID = {"source": "from"}  # an argument that a message names otherwise (the flag --from)


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


def generate_request(args: GenerateArgs) -> GenerateRequest:
    """A checked run of `generate` from what a command line asks for (GenerateArgs), each
    argument checked before anything is touched."""
    check_wait(args.wait)
    if args.discard:
        given = args.given("variants", "options", "rule_files", "games", "deals", "policies", "tournament", "seed",
                           "append", "resume", "overwrite", "all_deals", "log", "source", "where", "scheduler",
                           "names", "deal_range", "keep")
        if given or args.out is None:
            raise RulesError("`discard` rolls back the interrupted run in `out` and takes nothing else"
                             + (": drop " + ", ".join(f"`{n}`" for n in given) if given else ": give `out`"),
                             params=("discard", "out", *given))
        return GenerateRequest([], location(args.out), discard=True)
    if args.source is not None or args.where is not None:
        return _materialize_request(args)
    parsed = parse_sets(list(args.options))
    rule_sets = [build_rules(name, parsed) for name in args.variants]
    if args.rule_files and parsed:
        also = "; give a variant's options in a rule file too" if args.variants else ""
        raise RulesError(f"`options` cannot be combined with `rule_files`: a rule file's options go in the file{also}",
                         params=("options", "variants", "rule_files"))
    if not rule_sets and not args.rule_files:
        rule_sets = [build_rules("classic", parsed)]
    given = [check_name(n) for n in args.names]
    if given and len(given) != len(rule_sets):
        in_file = "; a rule file names its rule set with `name = ...`" if args.rule_files else ""
        raise RulesError(f"`names` gives {len(given)} name{'s' * (len(given) > 1)} for {len(rule_sets)} "
                         f"rule set{'s' * (len(rule_sets) != 1)} of `variants`: one each, in order{in_file}",
                         params=("names", "variants"))
    given = given or [None] * len(rule_sets)
    givers = [f"`names` for {rules.variant}" for rules in rule_sets]
    for path in args.rule_files:
        rules, name = read_rules_file(path)
        rule_sets.append(rules)
        given.append(name)
        givers.append(f"rule file {str(path)!r}")
    _check_given_names(rule_sets, given, givers)
    _check_executor(args)
    if (args.executor == "dask") != (args.scheduler is not None):
        raise RulesError("`executor` dask needs `scheduler` ADDRESS (and `scheduler` needs `executor` dask)",
                         params=("executor", "scheduler"))
    plans = make_plans(rule_sets, args.games, args.deals, parse_seating(args.policies), args.tournament,
                       args.all_deals, args.log, given, parse_deal_range(args.deal_range), args.keep)
    if args.append and args.out is None:
        raise RulesError("`append` needs `out`, the dataset to add to", params=("append", "out"))
    shard_size = default_shard_size(plans) if args.shard_size is None else args.shard_size
    check_arguments(plans, args.seed, args.workers, shard_size)
    out = args.out
    if out is None:
        out = Path("data") / f"{'-'.join(dict.fromkeys(r.variant for r in rule_sets))}-s{args.seed or 0}"
    return GenerateRequest(plans, location(out), args.seed, args.workers, shard_size, args.overwrite, args.append,
                           args.resume, args.scheduler, args.wait,
                           warnings=_readings(args, rule_sets) + _drawn_every_deal(plans))


def _readings(args: GenerateArgs, rule_sets: Sequence[RuleSet]) -> tuple[str, ...]:
    """How a policy given by a name of two readings was read, once each (profile_reading):
    `war generate --tournament random` plays the profile random, whose every decision is random."""
    texts = list(args.tournament) + list(parse_seating(args.policies).values())
    said = []
    for rules in rule_sets:
        kinds = family_of(rules).decision_names
        said += [profile_reading(text, kinds) for text in texts]
    return tuple(dict.fromkeys(s for s in said if s))


def _drawn_every_deal(plans: Sequence[Plan]) -> tuple[str, ...]:
    """A warning for each rule set that plays every deal (`all_deals`) but whose games the seed
    decides besides the deal (chance_in_games: a pickup or a policy that draws): the run is
    legitimate, but its one game a deal is a sample of the deck's games, not exact shares, and
    `--all-deals` alone gives no hint of it."""
    said = []
    for plan in plans:
        drawn = chance_in_games(plan.rules, plan.policies) if plan.all_deals else None
        if drawn is not None:
            why, advice = drawn
            fix = f"; {advice[2:]} makes each deal decide its game" if advice.startswith(": ") else ""
            said.append(f"--all-deals: in {plan.name or plan.rules.label!r}, {why}, so each game depends on --seed "
                        f"besides its deal: its one game a deal is a sample, not exact shares{fix}")
    return tuple(dict.fromkeys(said))


def _materialize_request(args: GenerateArgs) -> GenerateRequest:
    """The run of `source`'s games that `where` chooses (jobs.materialize)."""
    given = args.given("variants", "options", "rule_files", "games", "deals", "policies", "tournament", "seed",
                       "append", "all_deals", "log", "names", "deal_range", "keep")
    if given:
        raise RulesError("`from` takes its rule sets, games and seeds from the source dataset: give none of "
                         + ", ".join(f"`{n}`" for n in given), params=("from", *given))
    if args.source is None or args.where is None or args.out is None:
        raise RulesError("`from` needs `where` (which of its games) and `out` (the new dataset)",
                         params=("from", "where", "out"))
    _check_executor(args)
    check_not_source(args.source, args.out)
    plans, master = materialize_plans(args.source, args.where)
    shard_size = default_shard_size(plans) if args.shard_size is None else args.shard_size
    check_arguments(plans, master, args.workers, shard_size)
    return GenerateRequest(plans, location(args.out), master, args.workers, shard_size, args.overwrite, False,
                           args.resume, args.scheduler, args.wait)


def _check_given_names(rule_sets, names, givers) -> None:
    """A name given to two rule sets of one command line, refused naming who gives it each time
    (`names` for a variant, or a rule file's `name =`), before make_plans' check of the same,
    which knows the plans alone."""
    first: dict[str, tuple[str, str]] = {}
    for rules, name, who in zip(rule_sets, names, givers):
        if name is None:
            continue
        name = check_name(name)
        before = first.setdefault(name, (who, rules.rules_id))
        if before[1] != rules.rules_id and "rule file" in before[0] + who:  # `names` alone: check_names says it
            raise RulesError(f"{before[0]} and {who} both give the name {name!r}, to two different rule sets; "
                             f"give each rule set its own name", params=("names",) if "`names`" in before[0] + who
                             else ("rule_files",))


def _check_executor(args: GenerateArgs) -> None:
    if args.executor not in EXECUTORS:
        raise RulesError(f"`executor` is local or dask, got {args.executor!r}", params=("executor",))
