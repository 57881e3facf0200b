"""One searcher of a record search (jobs.search): its state and its rounds.

A searcher's state is its generator, a pool of the best deals it has played (ranks, card i to
seat i mod n, distinct by their ranks) and its counters; a round plays a fixed number of random
deals into the pool, then, on a fast path that searches (Family.fast: the table family's in
open play, engines.table.open_search), gives the best deal of the pool not yet polished a longer
past. The state after r rounds is a function of the search's arguments alone, however the
rounds were split between tasks, workers or sessions:
that is what makes a search of a number of rounds deterministic and a stopped one resumable.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, fields

import numpy as np

from ..engines.choice import compiled_engine, fast_path
from ..engines.compiled.layout import (
    OUTCOMES, SUMMARY_BATTLES, SUMMARY_CARDS_LAID, SUMMARY_OUTCOME, SUMMARY_WINNER,
)
from ..engines.compiled.search_pool import EMPTY, ROW_COLUMNS, ROW_SCORE, offer, score_of, shuffles
from ..engines.compiled.state import Deals, Workspace
from ..engines.play import FIXED_PICKUPS
from ..model.deal import deal_plan, deck_of, pile_sizes
from ..model.rng import Xoshiro256
from ..model.schema import RuleSet

GOALS = ("longest", "cycle")
MEASURES = ("battles", "cards")
ROUND_COMPILED = 1 << 10  # deals a round on a compiled engine (a call of play_arrays)
LEAST_POOL = 16           # a searcher keeps at least this many deals


@dataclass
class SearcherState:
    """What a searcher is after some rounds (module docstring); JSON as it is."""

    number: int
    rng: list[int]
    pool: list[list[int]]
    rows: list[list[int]]   # score, battles, cards laid, outcome code, winner (search_pool.ROW_*)
    polished: list[bool]
    rounds: int = 0
    deals: int = 0          # games played, polishing's included
    taken_back: int = 0     # positions the polishing's beam took back
    grafts: list[int] = field(default_factory=list)  # what each graft kept added to its deal's score

    @classmethod
    def fresh(cls, number: int, seed: int, size: int, pool: int) -> "SearcherState":
        rng = Xoshiro256(seed)
        return cls(number, [rng.s0, rng.s1, rng.s2, rng.s3], [[0] * size for _ in range(pool)],
                   [[EMPTY] + [0] * (ROW_COLUMNS - 1) for _ in range(pool)],
                   [False] * pool)

    @classmethod
    def from_json(cls, data: dict) -> "SearcherState":
        return cls(**data)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def checked(cls, data, number: int, deck: list[int], players: int, most: int) -> "SearcherState":
        """Searcher `number`'s state as a save holds it, checked to be one a search could have
        made with the deck's ranks `deck` (sorted) and at most `most` deals in its pool: every
        field there, of its type and in its range, nothing else. A ValueError says what is
        not. Whether its scores are its deals' games is misplayed's to say."""
        if not isinstance(data, dict):
            raise ValueError(f"searcher {number} is {_kind(data)}, not an object")
        names = [f.name for f in fields(cls)]
        missing = [n for n in names if n not in data]
        unknown = [str(k) for k in data if k not in names]
        if missing or unknown:
            said = ([f"no {', '.join(missing)}"] if missing else []) + ([f"unknown {_shown(', '.join(unknown))}"]
                                                                      if unknown else [])
            raise ValueError(f"searcher {number}: " + "; ".join(said))
        at = f"searcher {number}'s"
        if data["number"] != number or not _count(data["number"]):
            raise ValueError(f"the state in place {number} says it is searcher {_shown(data['number'])}")
        rng = data["rng"]
        if not isinstance(rng, list) or len(rng) != 4 or not all(_count(x, 1 << 64) for x in rng) or not any(rng):
            raise ValueError(f"{at} rng is not a generator's state (4 numbers of 64 bits, not all 0)")
        for name in ("rounds", "deals", "taken_back"):
            if not _count(data[name]):
                raise ValueError(f"{at} {name} is {_shown(data[name])}, not a count")
        if not isinstance(data["grafts"], list) or not all(_count(g) and g > 0 for g in data["grafts"]):
            raise ValueError(f"{at} grafts are not a list of counts above 0")
        pool, rows, polished = data["pool"], data["rows"], data["polished"]
        if not all(isinstance(x, list) for x in (pool, rows, polished)) \
                or not LEAST_POOL <= len(pool) == len(rows) == len(polished) <= max(most, LEAST_POOL):
            raise ValueError(f"{at} pool, rows and polished are not lists of one length "
                             f"from {LEAST_POOL} to {max(most, LEAST_POOL):,}")
        empty = [EMPTY] + [0] * (ROW_COLUMNS - 1)
        for i, (ranks, row, done) in enumerate(zip(pool, rows, polished)):
            if not isinstance(row, list) or len(row) != ROW_COLUMNS or not all(_number(x) for x in row):
                raise ValueError(f"{at} row {i} is not {ROW_COLUMNS} numbers")
            if not isinstance(done, bool):
                raise ValueError(f"{at} polished {i} is {_shown(done)}, not true or false")
            if not isinstance(ranks, list) or len(ranks) != len(deck) or not all(_count(r, 1 << 16) for r in ranks):
                raise ValueError(f"{at} deal {i} is not {len(deck)} ranks")
            if row[0] == EMPTY:
                if row != empty or any(ranks) or done:
                    raise ValueError(f"{at} row {i} holds no deal, but its deal, numbers or polish say otherwise")
            elif sorted(ranks) != deck:
                raise ValueError(f"{at} deal {i} is not an order of the deck's ranks")
            elif row[0] < 0 or row[3] not in range(len(OUTCOMES)) or not -1 <= row[4] < players:
                raise ValueError(f"{at} row {i} is not a game's score, length, outcome and winner")
        return cls(**data)


def _count(value, below: int = 1 << 63) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < below


def _number(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -(1 << 63) <= value < 1 << 63


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true or false", type(None): "null"}.get(
        type(value), "a number")


def _shown(value) -> str:
    from ..errors import brief

    return brief(value)


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


def fast_search(rules: RuleSet):
    """The family's fast path when its search kernel plays this search's deals (Family.fast, its
    `searches`: for the open duel, the seats dealt as many cards), else None: the rule set's
    compiled engine does."""
    fast = fast_path(rules, None, (), events=False)
    return fast if fast is not None and hasattr(fast, "search_round") and fast.searches(rules) else None


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
    fast = fast_search(rules)
    play = fast.search_round if fast is not None else _compiled_round(rules)
    stop = time.monotonic() + task.seconds
    while task.rounds is None or state.rounds < task.rounds:
        played, taken, graft = play(rules, deck, rng, goal, measure, pool, rows, polished, state.deals)
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


def _compiled_round(rules: RuleSet):
    """A round on the rule set's compiled engine: ROUND_COMPILED random deals (each a shuffle of
    the deck's ranks, dealt as the cards of those ranks in code order), played in one call."""
    engine = compiled_engine(rules)
    deck = deck_of(rules)
    by_rank = np.argsort(np.array(deck.rank), kind="stable")  # codes in order of rank
    workspace = Workspace()

    def play(rules, ranks, rng, goal, measure, pool, rows, polished, deals=0):
        decks = shuffles(ranks, rng, ROUND_COMPILED)
        codes = np.empty(decks.shape, np.int64)
        np.put_along_axis(codes, np.argsort(decks, axis=1, kind="stable"), by_rank[None, :], axis=1)
        summaries = engine.play_arrays(rules, 0, 0, len(decks), deals=deals_of(codes, rules),
                                       workspace=workspace).summaries
        for g in range(len(decks)):
            score = score_of(summaries[g], goal, measure)
            if score > rows[:, ROW_SCORE].min():
                offer(pool, rows, polished, decks[g], score, summaries[g], True)
        return len(decks), 0, 0

    return play


def deals_of(decks: np.ndarray, rules: RuleSet) -> Deals:
    """Deck orders (one a row, card codes) dealt as a shuffled deck is (docs/rules.md 1.4,
    model.deal.deal_plan), as the compiled engines' deal arrays."""
    games, size = decks.shape
    players = rules.players
    dealt, start = deal_plan(rules)
    counts = pile_sizes(rules)
    cards = np.empty((games, size), np.int32)
    at = 0
    for s in range(players):
        cards[:, at:at + counts[s]] = decks[:, (s - start) % players:dealt:players]
        at += counts[s]
    cards[:, at:] = decks[:, dealt:]
    sizes = np.empty((games, players + 1), np.int64)
    sizes[:] = counts
    return Deals(cards, sizes)


@dataclass(frozen=True)
class Record:
    """A deal found: its score (battles or cards laid of a game that ends; 1 for a cycle), its
    game's battles, cards laid, outcome and winner (-1: none), and the deck order that deals it
    (card codes, top first, dealt as the rule set deals: card i to seat i mod n under `deal =
    even`, model.deal.deal_plan)."""

    score: int
    battles: int
    cards_laid: int
    outcome: str
    winner: int
    deck: tuple[int, ...]


def records_of(rules: RuleSet, states: list[SearcherState], keep: int, goal: str = "longest",
               measure: str = "battles", seed: int = 0) -> list[Record]:
    """The best `keep` deals of the searchers' pools, distinct by ranks, best first (ties by the
    ranks), each dealt as the cards of its ranks in code order. Each record's numbers are its
    deal played again as game i of master seed `seed` (the dataset write_records makes of them
    with that seed), never the pool's: where a game draws from its seed (the won cards
    shuffled), the search's own draw is not the dataset's."""
    best: dict[tuple, list[int]] = {}
    for state in states:
        for ranks, row in zip(state.pool, state.rows):
            if row[0] != EMPTY and (tuple(ranks) not in best or best[tuple(ranks)][0] < row[0]):
                best[tuple(ranks)] = row
    chosen = [ranks for ranks, _ in sorted(best.items(), key=lambda item: (-item[1][0], item[0]))[:keep]]
    decks = codes_of(rules, chosen)
    rows = played_again(rules, decks, goal, measure, seed)
    return [Record(int(row[0]), int(row[1]), int(row[2]), OUTCOMES[row[3]], int(row[4]), tuple(int(c) for c in codes))
            for codes, row in zip(decks, rows)]


def codes_of(rules: RuleSet, ranks) -> np.ndarray:
    """Deals by their ranks (one a row, card i to seat i mod n) as card codes: each rank's cards
    in code order."""
    by_rank = np.argsort(np.array(deck_of(rules).rank), kind="stable")
    ranks = np.array(ranks, np.int64).reshape(len(ranks), len(by_rank))
    codes = np.empty(ranks.shape, np.int64)
    np.put_along_axis(codes, np.argsort(ranks, axis=1, kind="stable"), by_rank[None, :], axis=1)
    return codes


def played_again(rules: RuleSet, decks: np.ndarray, goal: str, measure: str, seed: int = 0) -> np.ndarray:
    """Deck orders (card codes, one a row) played on the rule set's compiled engine as games
    0.. of master seed `seed`: a pool row for each (ROW_*: its score, battles,
    cards laid, outcome code and winner)."""
    rows = np.zeros((len(decks), ROW_COLUMNS), np.int64)
    if len(decks) == 0:
        return rows
    summaries = compiled_engine(rules).play_arrays(rules, seed, 0, len(decks),
                                                   deals=deals_of(decks, rules)).summaries
    for g, summary in enumerate(summaries):
        rows[g] = (score_of(summary, GOALS.index(goal), MEASURES.index(measure)),
                   summary[SUMMARY_BATTLES], summary[SUMMARY_CARDS_LAID], summary[SUMMARY_OUTCOME],
                   summary[SUMMARY_WINNER])
    return rows


def played_alike(rules: RuleSet) -> bool:
    """Whether a deal's game is a function of the deal alone (a fixed pickup order: docs/rules.md
    2.4), so that a search's scores can be held to its deals played again."""
    return rules.pickup in FIXED_PICKUPS


def misplayed(rules: RuleSet, states: list[SearcherState], goal: str, measure: str) -> str | None:
    """Where the searchers' pools hold a deal whose numbers are not its game's, played again
    (rule sets whose games are their deal's alone: played_alike); None when every one is."""
    if not played_alike(rules):
        return None
    held = [(state.number, i, ranks, row) for state in states
            for i, (ranks, row) in enumerate(zip(state.pool, state.rows)) if row[0] != EMPTY]
    rows = played_again(rules, codes_of(rules, [ranks for _, _, ranks, _ in held]), goal, measure)
    for (number, i, _, row), again in zip(held, rows):
        if list(row) != again.tolist():
            if list(row[1:]) == again.tolist()[1:]:  # the game as saved, its score not: say the score
                return (f"searcher {number}'s deal {i} scores {again[0]:,} (its game of {again[1]:,} battles, "
                        f"{again[2]:,} cards laid), not the {row[0]:,} saved with it")
            return (f"searcher {number}'s deal {i} plays {again[1]:,} battles, {again[2]:,} cards laid "
                    f"({OUTCOMES[again[3]]}), not the {row[1]:,}, {row[2]:,} ({_outcome(row[3])}) saved with it")
    return None


def _outcome(code: int) -> str:
    return OUTCOMES[code] if 0 <= code < len(OUTCOMES) else f"outcome {code}"
