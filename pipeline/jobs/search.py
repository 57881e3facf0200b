"""Records by search: deals of a deck too big to play whole that give the longest game that ends,
or a game that cycles, found by random deals and then local search, on the compiled engine.

A searcher starts from a random deck order (its own generator, seeded from the search's seed and
its number) and plays, a batch at a time, neighbours of its best deal so far: the deck with two
cards of different ranks swapped. It moves to the best neighbour when it is at least as good (so
it walks along plateaus), and starts again from a new random deal when no neighbour has been as
good for a while. A deal's score is its game's length when the game ends (a win or a draw; the
longest wins) or, looking for a cycle, 1 when it cycles; a search for a cycle climbs on the
game's length (a game that lasts is nearer a loop than one that ends at once), with a cycle
above any length, since a score of 0 or 1 gives the local search nothing to climb. Searchers
run on every worker (or on a Dask cluster), each a task; the best deals of them all are the
records, written as a dataset of explicit deals, which replays and validates like any other.

With a number of `rounds`, a search is a pure function of its arguments; with `seconds`, each
searcher stops at that time, after the round it is in.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..engines.choice import compiled_engine
from ..engines.compiled.layout import OUTCOME_CYCLE, OUTCOME_DRAW, OUTCOME_WIN, SUMMARY_BATTLES, SUMMARY_OUTCOME
from ..engines.compiled.state import Deals, Workspace
from ..errors import RulesError
from ..model.deal import check_deal, deck_of
from ..model.rng import SplitMix64, Xoshiro256
from ..model.schema import Manifest, RuleSet
from ..storage.location import location
from .generate import Plan, check_seed, generate
from .parallel import check_workers, dask_client, run_tasks, run_tasks_dask
from .place import check_new_output

GOALS = ("longest", "cycle")
BATCH = 256  # neighbours played a round, in one call of the compiled engine
PATIENCE = 40  # rounds without a neighbour as good as the best before a searcher starts again
MAX_SEARCHERS = 100_000  # each is a task held in memory until it is run
MAX_KEEP = 1_000_000  # the records become a dataset's games


@dataclass(frozen=True)
class Searcher:
    """One searcher's task: a rule set (as JSON), its goal, its seed, and its budget."""

    rules_json: str
    goal: str
    seed: int
    rounds: int | None
    seconds: float | None
    keep: int


@dataclass(frozen=True)
class Record:
    """A deal found: its score (the game's battles, or 1 for a cycle), its battles and outcome,
    and the deck order that deals it (top first)."""

    score: int
    battles: int
    outcome: str
    deck: tuple[int, ...]


def _deals(decks: np.ndarray, players: int) -> Deals:
    """Deck orders (one a row) dealt as a shuffled deck is (1.4), as the engines' deal arrays."""
    games, size = decks.shape
    each = size // players
    cards = np.empty((games, size), np.int32)
    at = 0
    for s in range(players):
        cards[:, at:at + each] = decks[:, s:each * players:players]
        at += each
    cards[:, at:] = decks[:, each * players:]
    sizes = np.empty((games, players + 1), np.int64)
    sizes[:, :players] = each
    sizes[:, players] = size - each * players
    return Deals(cards, sizes)


def _scores(engine, rules: RuleSet, decks: np.ndarray, workspace: Workspace, goal: str):
    """Each deck's score, what the search climbs on (the score, or looking for a cycle the
    battles, a cycle above them all), battles and outcome code, played on the compiled engine."""
    arrays = engine.play_arrays(rules, 0, 0, decks.shape[0], deals=_deals(decks, rules.players),
                                workspace=workspace)
    outcomes = arrays.summaries[:, SUMMARY_OUTCOME]
    battles = arrays.summaries[:, SUMMARY_BATTLES]
    if goal == "cycle":
        scores = (outcomes == OUTCOME_CYCLE).astype(np.int64)
        climb = np.where(outcomes == OUTCOME_CYCLE, CYCLE_CLIMB, battles)
    else:
        scores = climb = np.where((outcomes == OUTCOME_WIN) | (outcomes == OUTCOME_DRAW), battles, -1)
    return scores, climb, battles.copy(), outcomes.copy()


CYCLE_CLIMB = np.int64(1) << 40  # a cycle, above any game's length


OUTCOME_NAMES = {OUTCOME_WIN: "win", OUTCOME_DRAW: "draw", OUTCOME_CYCLE: "cycle"}


def run_searcher(task: Searcher, tick=None) -> tuple[list[Record], int]:
    """One searcher's best `keep` deals (distinct by their ranks), best first, and how many
    deals it played."""
    rules = RuleSet.model_validate_json(task.rules_json)
    engine = compiled_engine(rules)
    rank = np.array(deck_of(rules).rank, np.int64)
    size = rank.shape[0]
    rng = Xoshiro256(task.seed)
    workspace = Workspace()
    stop = None if task.seconds is None else time.monotonic() + task.seconds
    found: dict[tuple, Record] = {}

    def remember(deck, score, battles, outcome) -> None:
        if score < (1 if task.goal == "cycle" else 0):
            return
        key = tuple(rank[deck])  # suits never decide a game: one record a rank sequence
        if key not in found or found[key].score < score:
            found[key] = Record(int(score), int(battles), OUTCOME_NAMES.get(int(outcome), "capped"),
                                tuple(int(c) for c in deck))

    def fresh() -> np.ndarray:
        deck = list(range(size))
        rng.shuffle(deck)
        return np.array(deck, np.int64)

    current = fresh()
    best = int(_scores(engine, rules, current[None, :], workspace, task.goal)[1][0])
    played = 1
    idle = 0
    rounds = 0
    while (task.rounds is None or rounds < task.rounds) and (stop is None or time.monotonic() < stop):
        rounds += 1
        decks = np.repeat(current[None, :], BATCH, axis=0)
        for row in range(BATCH):  # swap two cards of different ranks
            while True:
                i, j = rng.bounded(size), rng.bounded(size)
                if rank[decks[row, i]] != rank[decks[row, j]]:
                    break
            decks[row, i], decks[row, j] = decks[row, j], decks[row, i]
        scores, climb, battles, outcomes = _scores(engine, rules, decks, workspace, task.goal)
        played += BATCH
        top = int(np.argmax(climb))
        for row in np.argsort(scores)[-task.keep:]:
            remember(decks[row], scores[row], battles[row], outcomes[row])
        if climb[top] >= best:
            idle = 0 if climb[top] > best else idle + 1
            current, best = decks[top].copy(), int(climb[top])
        else:
            idle += 1
        if idle >= PATIENCE:
            current = fresh()
            best, idle = int(_scores(engine, rules, current[None, :], workspace, task.goal)[1][0]), 0
            played += 1
        if tick is not None:
            tick(1)
    return sorted(found.values(), key=lambda r: (-r.score, r.deck))[:task.keep], played


def check_search(rules: RuleSet, goal: str = "longest", rounds: int | None = 200, seconds: float | None = None,
                 searchers: int = 2, keep: int = 10, workers: int = 1, scheduler: str | None = None,
                 seed: int = 0) -> None:
    """A search's arguments, checked before the engine is compiled or a deal played (a seed that
    the records' dataset cannot take was refused after the search, which may take hours)."""
    if goal not in GOALS:
        raise RulesError(f"`goal` is {' or '.join(GOALS)}, got {goal!r}", params=("goal",))
    if compiled_engine(rules) is None:
        raise RulesError(f"rule set {rules.variant} {rules.rules_id}: the compiled engine does not play it, "
                         f"and a search needs it", params=("rules",))
    if (rounds is None) == (seconds is None):
        raise RulesError("give `rounds` or `seconds`, one of them", params=("rounds", "seconds"))
    for name, value, low in (("searchers", searchers, 1), ("keep", keep, 1), ("rounds", rounds, 1)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
            raise RulesError(f"`{name}` must be an integer of at least {low}, got {value!r}", params=(name,))
    for name, value, high in (("searchers", searchers, MAX_SEARCHERS), ("keep", keep, MAX_KEEP)):
        if value > high:
            raise RulesError(f"`{name}` must be at most {high:,}, got {value:,}", params=(name,))
    check_seed(seed)
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                or not 0 < seconds < float("inf")):
        raise RulesError(f"`seconds` must be a number of seconds above 0, got {seconds!r}", params=("seconds",))
    if scheduler is None:
        check_workers(workers)


def search(rules: RuleSet, goal: str = "longest", rounds: int | None = 200, seconds: float | None = None,
           searchers: int = 2, seed: int = 0, keep: int = 10, workers: int = 1, scheduler: str | None = None,
           progress=None) -> list[Record]:
    """The best `keep` deals `searchers` searchers found (distinct by their ranks), best first:
    the longest games that end (`goal` longest), or deals that cycle (`goal` cycle). Each
    searcher plays `rounds` rounds of BATCH neighbours (or, with `seconds`, until then), seeded
    from `seed` and its number; they run on `workers` processes, or on the Dask cluster at
    `scheduler`."""
    check_search(rules, goal, rounds, seconds, searchers, keep, workers, scheduler, seed)
    seeds = SplitMix64(seed)
    spec = rules.model_dump_json()
    tasks = [Searcher(spec, goal, seeds.next(), rounds, seconds, keep) for _ in range(searchers)]
    if scheduler is not None:
        with dask_client(scheduler) as client:
            found = run_tasks_dask(run_searcher, tasks, client, None, lambda t: 0)
    else:
        found = run_tasks(run_searcher, tasks, workers, progress)
    found = list(found)
    if not any(records for records, _ in found):
        played = sum(n for _, n in found)
        raise RulesError(f"the search played {played:,} deals and found "
                         f"{'none that cycles' if goal == 'cycle' else 'no game that ends'}; nothing written "
                         f"(more `rounds` or `seconds` search further)", params=("rounds", "seconds"))
    best: dict[tuple, Record] = {}
    rank = deck_of(rules).rank
    for record in (r for records, _ in found for r in records):
        key = tuple(rank[c] for c in record.deck)
        if key not in best or best[key].score < record.score:
            best[key] = record
    return sorted(best.values(), key=lambda r: (-r.score, r.deck))[:keep]


def check_records_out(out: str | Path, overwrite: bool = False) -> None:
    """Refuse, before a search, an `out` that write_records would refuse after it (a folder
    holding data without `overwrite`, a dataset's own files...): a search may run for hours."""
    check_new_output(location(out), overwrite)


def write_records(out: str | Path, rules: RuleSet, records: list[Record], seed: int = 0, overwrite: bool = False,
                  progress=None) -> Manifest:
    """The records as a dataset of explicit deals (game i plays record i), which replays and
    validates like any other dataset."""
    if not records:
        raise RulesError("the search found no deal to keep", params=("goal",))
    n = rules.players
    deals = []
    for record in records:
        deck = list(record.deck)
        dealt = len(deck) // n * n
        deals.append(check_deal(rules, [deck[s:dealt:n] for s in range(n)], deck[dealt:], "a record"))
    return generate(out, [Plan(rules, len(deals), deals)], seed, overwrite=overwrite, progress=progress)

