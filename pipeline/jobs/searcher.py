"""One searcher of a record search (jobs.search): its state and its rounds.

A searcher's state is its generator, a pool of the best deals it has played (ranks, card i to
seat i mod n, distinct by their ranks) and its counters; a round plays a fixed number of random
deals into the pool, then, where open play allows it, gives the best deal of the pool not yet
polished a longer past (engines.table.unplay). The state after r rounds is a function of the
search's arguments alone, however the rounds were split between tasks, workers or sessions:
that is what makes a search of a number of rounds deterministic and a stopped one resumable.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np

from ..engines.choice import compiled_engine
from ..engines.compiled.layout import OUTCOMES
from ..engines.compiled.state import Deals, Workspace
from ..engines.table import open_duel, open_search, unplay
from ..model.deal import deck_of
from ..model.rng import Xoshiro256
from ..model.schema import RuleSet

GOALS = ("longest", "cycle")
MEASURES = ("battles", "cards")
ROUND_OPEN = 1 << 14     # deals a round on the open duel's search kernel
ROUND_COMPILED = 1 << 10  # deals a round on another compiled engine (a call of play_arrays)
LEAST_POOL = 16           # a searcher keeps at least this many deals
POLISH_TOP = 4            # only the best few deals of a pool are polished
POLISH_WIDTH = 3000       # positions the beam keeps a battle back (docs/decisions.md has the trials)


@dataclass
class SearcherState:
    """What a searcher is after some rounds (module docstring); JSON as it is."""

    number: int
    rng: list[int]
    pool: list[list[int]]
    rows: list[list[int]]   # score, battles, cards laid, outcome code, winner (open_search.ROW_*)
    polished: list[bool]
    rounds: int = 0
    deals: int = 0          # games played, polishing's included
    taken_back: int = 0     # positions the polishing's beam took back
    grafts: list[int] = field(default_factory=list)  # what each graft kept added to its deal's score

    @classmethod
    def fresh(cls, number: int, seed: int, size: int, pool: int) -> "SearcherState":
        rng = Xoshiro256(seed)
        return cls(number, [rng.s0, rng.s1, rng.s2, rng.s3], [[0] * size for _ in range(pool)],
                   [[open_search.EMPTY] + [0] * (open_search.ROW_COLUMNS - 1) for _ in range(pool)],
                   [False] * pool)

    @classmethod
    def from_json(cls, data: dict) -> "SearcherState":
        return cls(**data)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Task:
    """Rounds of one searcher on a worker: until it has played `rounds` in all (None: no end)
    or `seconds` have passed, whichever comes first (at least one round)."""

    rules_json: str
    goal: str
    measure: str
    state: dict
    rounds: int | None
    seconds: float


def on_open_duel(rules: RuleSet) -> bool:
    """Whether the open duel's search kernel plays this search's deals (open_duel.fits), else the
    rule set's compiled engine does."""
    return open_duel.fits(rules) and compiled_engine(rules) is not None


def sorted_ranks(rules: RuleSet) -> np.ndarray:
    """The deck's ranks in ascending order, the deal a searcher shuffles."""
    ranks = sorted(deck_of(rules).rank)
    return np.array(ranks, np.uint8 if max(ranks) < 256 else np.int16)


def run_task(task: Task, tick=None) -> dict:
    """Play the task's rounds; its searcher's state after them (SearcherState.to_json)."""
    rules = RuleSet.model_validate_json(task.rules_json)
    state = SearcherState.from_json(task.state)
    deck = sorted_ranks(rules)
    rng = np.array(state.rng, np.uint64)
    pool = np.array(state.pool, deck.dtype)
    rows = np.array(state.rows, np.int64)
    polished = np.array(state.polished, np.bool_)
    goal = GOALS.index(task.goal)
    measure = MEASURES.index(task.measure)
    play = _open_round if on_open_duel(rules) else _compiled_round(rules)
    stop = time.monotonic() + task.seconds
    while task.rounds is None or state.rounds < task.rounds:
        played, taken, graft = play(rules, deck, rng, goal, measure, pool, rows, polished)
        state.rounds += 1
        state.deals += played
        state.taken_back += taken
        if graft > 0:
            state.grafts.append(graft)
        if tick is not None:
            tick(1)
        if time.monotonic() >= stop:
            break
    state.rng = [int(x) for x in rng]
    state.pool = pool.tolist()
    state.rows = rows.tolist()
    state.polished = polished.tolist()
    return state.to_json()


def polish_starts(size: int) -> np.ndarray:
    """The battles of a deal's game from whose positions the beam looks for a longer past: the
    first battles, where the deal's own past is short enough for the beam to reach round it."""
    return np.unique(np.array([0, size // 4, size // 2, size, 2 * size, 3 * size], np.int64))


def _open_round(rules, deck, rng, goal, measure, pool, rows, polished):
    """A round on the open duel's kernel: ROUND_OPEN random deals, then one polish. Returns the
    games played, the positions taken back and what the polish added to its deal's score."""
    pickup = np.int64(open_duel.PICKUPS_CODE[rules.pickup])
    cap = np.int64(rules.max_battles)
    played = open_search.sample(deck, rng, ROUND_OPEN, pickup, cap, goal, measure, pool, rows, polished)
    if goal != open_search.GOAL_LONGEST or not unplay.takes_back(rules.pickup):
        return played, 0, 0
    scores = rows[:, open_search.ROW_SCORE]
    top = [i for i in np.argsort(-scores, kind="stable")[:POLISH_TOP] if scores[i] != open_search.EMPTY]
    row = next((int(i) for i in top if not polished[i]), -1)
    if row < 0:
        return played, 0, 0
    before = int(scores[row])
    more, taken, found = open_search.polish(row, pool, rows, polished, pickup, cap, goal, measure,
                                            polish_starts(deck.shape[0]), POLISH_WIDTH, rng)
    return played + more, taken, max(int(found) - before, 0)


def _compiled_round(rules: RuleSet):
    """A round on the rule set's compiled engine: ROUND_COMPILED random deals (each a shuffle of
    the deck's ranks, dealt as the cards of those ranks in code order), played in one call."""
    engine = compiled_engine(rules)
    deck = deck_of(rules)
    by_rank = np.argsort(np.array(deck.rank), kind="stable")  # codes in order of rank
    workspace = Workspace()

    def play(rules, ranks, rng, goal, measure, pool, rows, polished):
        decks = open_search.shuffles(ranks, rng, ROUND_COMPILED)
        codes = np.empty(decks.shape, np.int64)
        np.put_along_axis(codes, np.argsort(decks, axis=1, kind="stable"), by_rank[None, :], axis=1)
        summaries = engine.play_arrays(rules, 0, 0, len(decks), deals=deals_of(codes, rules.players),
                                       workspace=workspace).summaries
        for g in range(len(decks)):
            score = open_search.score_of(summaries[g], goal, measure)
            if score > rows[:, open_search.ROW_SCORE].min():
                open_search.offer(pool, rows, polished, decks[g], score, summaries[g], True)
        return len(decks), 0, 0

    return play


def deals_of(decks: np.ndarray, players: int) -> Deals:
    """Deck orders (one a row, card codes) dealt as a shuffled deck is (docs/rules.md 1.4), as the
    compiled engines' deal arrays."""
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


@dataclass(frozen=True)
class Record:
    """A deal found: its score (battles or cards laid of a game that ends; 1 for a cycle), its
    game's battles, cards laid, outcome and winner (-1: none), and the deck order that deals it
    (card codes, top first: card i to seat i mod n)."""

    score: int
    battles: int
    cards_laid: int
    outcome: str
    winner: int
    deck: tuple[int, ...]


def records_of(rules: RuleSet, states: list[SearcherState], keep: int) -> list[Record]:
    """The best `keep` deals of the searchers' pools, distinct by ranks, best first (ties by the
    ranks), each dealt as the cards of its ranks in code order."""
    deck = deck_of(rules)
    by_rank = np.argsort(np.array(deck.rank), kind="stable")
    best: dict[tuple, list[int]] = {}
    for state in states:
        for ranks, row in zip(state.pool, state.rows):
            if row[0] != open_search.EMPTY and (tuple(ranks) not in best or best[tuple(ranks)][0] < row[0]):
                best[tuple(ranks)] = row
    chosen = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))[:keep]
    records = []
    for ranks, row in chosen:
        codes = np.empty(len(ranks), np.int64)
        codes[np.argsort(np.array(ranks), kind="stable")] = by_rank
        records.append(Record(int(row[0]), int(row[1]), int(row[2]), OUTCOMES[row[3]], int(row[4]),
                              tuple(int(c) for c in codes)))
    return records
