"""A run of generate as its journal keeps it: the plan written, or on `resume` held to the
interrupted run's with each argument that differs named; and the command that finishes an
interrupted run, said from its plan. storage.journal is the mechanism (the lock, the plan's
file, the shards' records) and knows no command; what a run's arguments are, and their
defaults (the shard sizes), is known here.
"""

from __future__ import annotations

import json
import shlex

from ..engines.game import policy_specs
from ..errors import DatasetError, RulesError
from ..model.inputs import loads_json
from ..model.rules import build_rules
from ..model.schema import RuleSet
from ..storage.journal import FINISH as GENERIC
from ..storage.journal import Journal

DEFAULT_SHARD_SIZE = 2000  # games a shard when a run does not say (`war generate --shard-size`)
# ... when it stores the games table alone: a shard of 2,000 games is 40 KB, and writing a part
# file cost more than a seventh of a games-only run's time
GAMES_ONLY_SHARD_SIZE = 20_000

PLAN_PARAMS = ("seed", "shard_size", "games", "variant", "options", "policies", "deals", "names", "keep", "log",
               "all_deals", "deal_range")


class RunJournal(Journal):
    """The journal of a run of generate: a Journal that says how to finish its run, and checks a
    resumed run's plan against the interrupted one's."""

    def finish_command(self) -> str:
        return finish_command(self.root, self.plan())

    def check_plan(self, plan: dict, resume: bool) -> None:
        """Write the plan, or on resume check that it is the interrupted run's plan."""
        text = json.dumps(plan, sort_keys=True, indent=1)
        old = self.plan_text() if resume else None
        if old is None:
            self.write_plan(text)
            return
        if old != text:
            try:
                differences = plan_differences(loads_json(old), plan)
            except (ValueError, KeyError, TypeError, AttributeError):
                differences = []
            said = "; ".join(differences) if differences else "the plan differs"
            raise DatasetError(f"the arguments differ from those of the interrupted run in "
                               f"{str(self.root)!r}: {said}; resume with the same arguments", params=PLAN_PARAMS)
        self.planned = True


def finish_command(root, plan: dict | None) -> str:
    """The `war generate` command that finishes the interrupted run in `root` whose plan is
    `plan`; the generic advice when the plan cannot be said as one command (explicit deals,
    policies other than the defaults, rule sets with different options)."""
    if not plan or not plan.get("rule_sets"):
        return GENERIC
    args = ["war", "generate"]
    options, games, variants = None, set(), []
    for entry in plan["rule_sets"]:
        rules = entry["rules"]
        try:
            default = build_rules(rules["variant"]).model_dump(mode="json")
            actual = RuleSet.model_validate(rules)
        except (RulesError, ValueError):
            return GENERIC
        changed = {k: v for k, v in rules.items() if k != "variant" and default.get(k) != v}
        if entry.get("deals") or entry.get("seeds") or entry.get("all_deals") or entry.get("log", "events") != "events" \
                or list(entry.get("policies") or []) != list(policy_specs(actual, ())) \
                or (options is not None and changed != options):
            return GENERIC
        options = changed
        games.add(entry["games"])
        variants.append(rules["variant"])
        args += ["-v", rules["variant"]]
    if len(games) != 1 or len(set(variants)) != len(variants):
        return GENERIC
    args += [a for k, v in (options or {}).items() for a in ("--set", f"{k}={v}")]
    args += ["--games", str(games.pop())]
    if plan.get("shard_size") != DEFAULT_SHARD_SIZE:
        args += ["--shard-size", str(plan.get("shard_size"))]
    append = bool(plan.get("kept"))
    if not append and plan.get("seed"):
        args += ["--seed", str(plan["seed"])]
    args += ["--out", str(root)] + (["--append"] if append else []) + ["--resume"]
    return shlex.join(args)


def plan_differences(old: dict, new: dict) -> list[str]:
    """Each argument that differs between an interrupted run's plan and a resumed one, with
    both values, named as `generate`'s parameters (`seed`, `games`, `options`, `log`...). A
    shard size that differs only as the default of another `log` does (2,000 a shard, 20,000
    where only the games table is kept) is the `log`'s difference, said once as it."""
    out = []
    before, after = old.get("rule_sets", []), new.get("rule_sets", [])
    if old.get("seed") != new.get("seed"):
        out.append(f"`seed` {new.get('seed')} (the interrupted run: {old.get('seed')})")
    if old.get("shard_size") != new.get("shard_size") and not (
            old.get("shard_size") == _default_shard_size(before) and new.get("shard_size") == _default_shard_size(after)):
        out.append(f"`shard_size` {new.get('shard_size')} (the interrupted run: {old.get('shard_size')})")
    if [e["rules"]["variant"] for e in before] != [e["rules"]["variant"] for e in after]:
        out.append(f"`variant` {', '.join(e['rules']['variant'] for e in after)} (the interrupted run: "
                   f"{', '.join(e['rules']['variant'] for e in before)})")
    elif len(before) == len(after):
        out += _run_wide(before, after, "log", lambda v: v or "events")
        out += _run_wide(before, after, "all_deals", lambda v: "given" if v else "not given")
        for a, b in zip(before, after):
            name = b["rules"]["variant"]
            if a.get("games") != b.get("games"):
                out.append(f"`games` {b.get('games')} for {name} (the interrupted run: {a.get('games')})")
            changed = [f"{k}={b['rules'].get(k)} (the interrupted run: {a['rules'].get(k)})"
                       for k in sorted(set(a["rules"]) | set(b["rules"])) if a["rules"].get(k) != b["rules"].get(k)]
            if changed:
                out.append(f"`options` for {name}: {', '.join(changed)}")
            if a.get("policies") != b.get("policies"):
                out.append(f"`policies` for {name}: {' '.join(b.get('policies') or []) or 'none'} "
                           f"(the interrupted run: {' '.join(a.get('policies') or []) or 'none'})")
            if a.get("deals") != b.get("deals"):
                out.append(f"`deals` for {name}")
            if a.get("deal_range") != b.get("deal_range"):
                out.append(f"`deal_range` {_range(b.get('deal_range'))} for {name} (the interrupted run: "
                           f"{_range(a.get('deal_range'))})")
            if a.get("keep") != b.get("keep"):
                out.append(f"`keep` {_condition(b.get('keep'))} for {name} (the interrupted run: "
                           f"{_condition(a.get('keep'))})")
            if a.get("name") != b.get("name"):
                out.append(f"`names` for {name}: {_name(b.get('name'))} (the interrupted run: {_name(a.get('name'))})")
    if not out and (old.get("kept") != new.get("kept") or old.get("first_part") != new.get("first_part")):
        out.append("the dataset appended to has changed since the interrupted run")
    return out


def _default_shard_size(entries: list[dict]) -> int:
    """The shard size of a run that does not say (generate.default_shard_size), from its plan's
    rule sets: more when none stores its events."""
    if entries and all(e.get("log") == "games" for e in entries):
        return GAMES_ONLY_SHARD_SIZE
    return DEFAULT_SHARD_SIZE


def _run_wide(before: list[dict], after: list[dict], key: str, say) -> list[str]:
    """The difference in `key` between two plans' rule sets, said once when the argument gives
    one value for the whole run (`log` games (the interrupted run: events)), else for each
    rule set that differs."""
    old, new = [say(e.get(key)) for e in before], [say(e.get(key)) for e in after]
    if old == new:
        return []
    if len(set(old)) == 1 and len(set(new)) == 1:
        return [f"`{key}` {new[0]} (the interrupted run: {old[0]})"]
    return [f"`{key}` {n} for {e['rules']['variant']} (the interrupted run: {o})"
            for o, n, e in zip(old, new, after) if o != n]


def _range(pair) -> str:
    """A `deal_range` as a command line gives it (FIRST:STOP), or none."""
    return "none" if not pair else f"{pair[0]}:{pair[1]}"


def _name(name: str | None) -> str:
    """A rule set's name as a message says it: quoted, or no name."""
    return "no name" if name is None else repr(name)


def _condition(keep: str | None) -> str:
    """A `keep` condition as a message says it: quoted, or none."""
    return "none" if keep is None else repr(keep)
