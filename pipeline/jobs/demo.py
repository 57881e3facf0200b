"""The demo: the main job on a small default, as steps a front end shows one after another
(generate a dataset, replay one game, answer a few questions, validate the dataset), each with
the `war` command that does the same; then the commands to try next (next_commands).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable, Iterator

from ..errors import UsageError
from ..model.rules import build_rules
from ..model.schema import RuleSet
from ..storage.dataset import MANIFEST, WORK_DIR, Dataset
from .generate import DEFAULT_SHARD_SIZE, Plan, check_arguments, generate
from .query import run
from .replay import replay_game
from .validate import validate

SEED = 42
QUESTIONS = ("outcomes", "game_length", "seat_win_rate", "war_depth")
# the game to replay: the shortest that a player won with at least one war on the way
SHOWN_GAME = ("SELECT game_id FROM games ORDER BY outcome = 'win' AND war_battles > 0 DESC, "
              "battles, game_id LIMIT 1")


@dataclass(frozen=True)
class DemoStep:
    """One step: `kind` (generate, replay, query or validate), the `war` `command` that does the
    same, and `run`, which does it and returns its result: the manifest (generate; it takes a
    progress callback), a jobs.replay.GameReplay (replay), a pyarrow Table (query), a
    jobs.validate.Report (validate). `games` and `rule_sets` are what generate plays."""

    kind: str
    command: str
    run: Callable[..., object]
    games: int = 0
    rule_sets: tuple[RuleSet, ...] = ()


def demo(out: str | Path = "data/demo", games: int = 2000) -> Iterator[DemoStep]:
    """The demo's steps, in order: `games` games of Classic War with seed 42 into `out`
    (replacing the dataset there), the replay of the shortest game won with a war, the named
    queries of QUESTIONS, then validation. Run each step before asking for the next: a step is
    made from what the ones before it wrote."""
    plans = [Plan(build_rules("classic"), games)]
    check_arguments(plans, SEED, 1, DEFAULT_SHARD_SIZE)
    _check_replaceable(out, plans[0].rules)
    yield DemoStep("generate", f"war generate --variant classic --games {games} --seed {SEED} --out {out} --overwrite",
                   partial(_generate, out, plans), games, tuple(p.rules for p in plans))
    shown = run(out, sql=SHOWN_GAME).to_pylist()[0]["game_id"]
    yield DemoStep("replay", f"war replay {out} {shown}", partial(replay_game, out, shown))
    for name in QUESTIONS:
        yield DemoStep("query", f"war query {out} {name}", partial(run, out, name=name))
    yield DemoStep("validate", f"war validate {out}", partial(validate, out))


def _check_replaceable(out, rules: RuleSet) -> None:
    """The demo replaces a dataset at `out`, finished or not, only when it is a demo's (Classic
    War, seed SEED, one rule set of seeded games): `war demo --out` given a dataset of the user's,
    or an interrupted run that `--resume` would finish, would have lost it."""
    manifest, plan = Path(out) / MANIFEST, Path(out) / WORK_DIR / "plan.json"
    if manifest.is_file():
        try:
            found = Dataset.open(out).manifest
            seed, entries = found.master_seed, [e.model_dump() for e in found.rule_sets]
        except Exception:  # noqa: BLE001 - unreadable: not the demo's, which is always whole
            seed, entries = None, []
        what = "a dataset"
    elif plan.is_file():
        try:
            body = json.loads(plan.read_bytes())
            seed, entries = body.get("seed"), list(body.get("rule_sets", []))
        except (OSError, ValueError, AttributeError):
            seed, entries = None, []
        what = "an unfinished dataset (`war generate --resume` finishes it, `--discard` removes it)"
    else:
        return  # nothing there, or not a dataset: generate says what it says of it
    if not _demos(seed, entries, rules):
        raise UsageError(f"{str(out)!r} holds {what} the demo did not write, and the demo replaces only its own: "
                         f"give another --out, or remove it first")


def _demos(seed, entries: list, rules: RuleSet) -> bool:
    """Whether a manifest's or a journal's plan's rule sets (as dicts) are the demo's."""
    if seed != SEED or len(entries) != 1 or not isinstance(entries[0], dict):
        return False
    entry = entries[0]
    try:
        same = RuleSet.model_validate(entry.get("rules")) == rules
    except Exception:  # noqa: BLE001 - rules no war reads: not the demo's
        return False
    return (same and entry.get("log", "events") == "events" and entry.get("name") is None
            and entry.get("deals") is None and entry.get("seeds") is None and not entry.get("all_deals"))


def _generate(out, plans: list[Plan], progress: Callable[[int], None] | None = None):
    return generate(out, plans, SEED, overwrite=True, progress=progress)


def next_commands(out: str | Path = "data/demo") -> list[tuple[str, str]]:
    """The three commands a newcomer tries after the demo, on its dataset, each with what it
    shows: the report, the explorer, the named queries."""
    out = str(out)
    return [(f"war report {out}", "the report: findings and charts on one page (report.html)"),
            (f"war serve {out}", "explore it in a browser: the report, every game, SQL"),
            (f"war query {out} --list", "the named queries; `war query DATASET NAME` runs one")]
