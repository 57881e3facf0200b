"""`war solve`: the exact game of a 2-seat rule set under shuffled pickup (docs/solve.md).

build_chain enumerates the positions the deals reach and each one's battle; solve gives every
position's and every deal's values: the chances of each outcome, the expected battles and cards
laid, and quantiles of the number of battles, in float64 with a stated bound, and in Fractions
when the chain is small enough.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..errors import RulesError
from ..model.all_deals import multinomial as count_sequences
from ..model.all_deals import rank_counts
from ..model.deal import deck_of
from ..model.families import registry
from ..model.schema import RuleSet
from . import chain as ch
from .folder import QUANTILES

# The family whose battle this solver models (the table engine, engines.table.reference), by the
# package of its declaration: its variants are read from there (solvable_variants).
MODELED_FAMILY = "pipeline.engines.table"
EXACT_ROWS = 100_000  # the largest chain (rows: positions up to the seat swap) solved in Fractions by default (docs/solve.md)
MAX_INDICES = 2**31 - 1  # positions (both piles held) of the deck: rows are int32
MOST_TABLE_ORDERS = 1_000_000  # distinct orders of one battle's table, the most a row may have
MIRRORED = {"p_win0": "p_win1", "p_win1": "p_win0"}  # the values a seat swap exchanges
UNIT = 2.0**-53  # float64's unit roundoff
# Units of roundoff one sweep may add to a value: a compensated sum (2u, and u^2 terms), the
# division by D (u), the subtraction 1 - F in the bound (u): 4, with a margin of 2.
ROUNDING = 6


def solvable_variants() -> tuple[str, ...]:
    """The variants of the family this solver models, as its declaration lists them."""
    return tuple(v.name for f in registry().families.values() if f.module == MODELED_FAMILY for v in f.variants)


def check_solvable(rules: RuleSet) -> None:
    """Refuse, in one line, a rule set this solver does not model."""
    problems = []
    variants = solvable_variants()
    if rules.variant not in variants:
        problems.append(f"variant {rules.variant} (the table family: {', '.join(variants)})")
    if rules.players != 2:
        problems.append(f"players={rules.players} (it needs 2)")
    if rules.pickup != "shuffled":
        problems.append(f"pickup={rules.pickup} (it needs shuffled: under a fixed order the deal decides the game, `war generate --all-deals`)")
    if not isinstance(rules.war_down, int):
        problems.append(f"war_down={rules.war_down} (it needs a number of cards)")
    if rules.win != "all_cards":
        problems.append(f"win={rules.win} (it needs all_cards)")
    if getattr(rules, "hand_size", 0):
        problems.append(f"hand_size={rules.hand_size} (it needs 0)")
    size = deck_of(rules).size
    if size % 2:
        odd = "deals one seat a card more (deal=first_short)" if getattr(rules, "deal", "even") == "first_short" \
            else "sets a card aside"
        problems.append(f"a deck of {size} cards (it needs an even deck: an odd one {odd})")
    if problems:
        raise RulesError("war solve plays 2 seats, shuffled pickup, all cards to win, no choices; this rule set has "
                         + "; ".join(problems), params=("rules",))
    counts = game_counts(rules)
    indices = (size - 1) * count_sequences(counts)
    if indices > MAX_INDICES:
        sized = {"ranks", "suits"} <= set(registry().variants[rules.variant].options)
        raise RulesError(f"a deck of {size} cards has {indices:,} positions, more than {MAX_INDICES:,}: "
                         + ("solve a smaller deck (`ranks`, `suits`)" if sized else
                            f"{rules.variant}'s deck is fixed, so war solve cannot solve it"), params=("rules",))


def game_counts(rules: RuleSet) -> tuple[int, ...]:
    """The cards of each rank as the game orders ranks (aces low moves the Ace below the 2)."""
    to_game = rank_map(rules)
    counts = [0] * (max(to_game) + 1)
    for r, c in enumerate(rank_counts(rules)):
        counts[to_game[r]] += c
    return tuple(counts)


def rank_map(rules: RuleSet) -> tuple[int, ...]:
    """Each rank index of the deck (model.all_deals's) as the game orders ranks (the table
    engine's ranks_of: under aces=low the Ace below the 2)."""
    from ..engines.table.ranks import ranks_of

    order, deck = ranks_of(rules), deck_of(rules).rank
    to_game = {}
    for code in range(len(deck)):
        to_game[deck[code]] = order[code]
    return tuple(to_game[r] for r in range(len(to_game)))


@dataclass
class Chain:
    """The reached positions (rows) and each one's battle: its kind (chain.GOES_ON or how it
    ends the game), the cards it lays and its equally likely successors (succ[start[r]:start[r+1]])."""

    rules: RuleSet
    counts: np.ndarray
    sequences: int  # M: distinct sequences of the deck's ranks
    cards: int
    ids: np.ndarray  # row -> position index
    kind: np.ndarray
    laid: np.ndarray
    start: np.ndarray
    succ: np.ndarray
    deal_rows: np.ndarray  # deal i -> its starting row
    seconds: float = 0.0
    deal_flips: np.ndarray | None = None  # deal i starts at its row's twin (the seats swapped)
    halved: bool = False  # a row stands for a position and its twin (chain.py's docstring)

    def __post_init__(self):
        if self.deal_flips is None:
            self.deal_flips = np.zeros(len(self.deal_rows), np.bool_)

    @property
    def rows(self) -> int:
        return int(self.ids.shape[0])

    def locate(self, index: int) -> tuple[int, bool]:
        """The row of a reached position, and whether the position is the row's twin."""
        flip = False
        if self.halved and ch.twin_index(index, self.counts, self.sequences, self.cards) < index:
            index, flip = int(ch.twin_index(index, self.counts, self.sequences, self.cards)), True
        row = int(np.searchsorted(self.ids, index))
        if row >= self.rows or int(self.ids[row]) != index:
            raise RulesError(f"position {index} is not reached from any deal", params=("position",))
        return row, flip

    def row_of(self, index: int) -> int:
        """The row of a reached position that is a row (not a twin)."""
        row, flip = self.locate(index)
        if flip:
            raise RulesError(f"position {index} is the twin of row {row}, not a row", params=("position",))
        return row

    def twin(self, row: int) -> int:
        """The index of a row's twin (the same index when the position is symmetric)."""
        return int(ch.twin_index(int(self.ids[row]), self.counts, self.sequences, self.cards))

    def position(self, row: int, flip: bool = False) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Both piles of a row (of its twin with `flip`), top first, as ranks."""
        index = int(self.ids[row])
        seq = np.empty(self.cards, np.int8)
        ch.seq_unrank(index % self.sequences, self.counts, self.sequences, seq)
        k = index // self.sequences + 1
        piles = tuple(int(v) for v in seq[:k]), tuple(int(v) for v in seq[k:])
        return (piles[1], piles[0]) if flip else piles

    def index_of(self, pile0, pile1) -> int:
        """The index of a position (both piles, top first, as ranks of the deck)."""
        seq = np.array(list(pile0) + list(pile1), np.int8)
        if not pile0 or not pile1 or sorted(seq.tolist()) != sorted(
                r for r, c in enumerate(self.counts.tolist()) for _ in range(c)):
            raise RulesError("a position is two piles, neither empty, of the deck's ranks", params=("position",))
        return (len(pile0) - 1) * self.sequences + int(ch.seq_rank(seq, self.counts, self.sequences))


def build_chain(rules: RuleSet, halve: bool = True) -> Chain:
    """Every position the deals reach, and each one's battle; with `halve` (the default) one
    row for a position and its twin, the seats swapped (chain.py's docstring)."""
    check_solvable(rules)
    began = time.process_time()
    counts = np.array(game_counts(rules), np.int64)
    n = int(counts.sum())
    m_all = count_sequences(counts.tolist())
    down, single_up, lose = rules.war_down, rules.war_tiebreak == "single_up", rules.shortfall == "lose"
    starts = ch.all_deal_positions(np.array(rank_counts(rules), np.int64), np.array(rank_map(rules), np.int8),
                                   counts, m_all, n, halve)
    seen, reached = ch.reachable(starts, counts, m_all, n, down, single_up, lose, MOST_TABLE_ORDERS, halve)
    if reached < 0:
        raise RulesError(f"a battle of this deck lays a table with more than {MOST_TABLE_ORDERS:,} orders: "
                         "solve a smaller deck or fewer cards down", params=("rules",))
    ids = np.flatnonzero(seen).astype(np.int64)
    del seen
    compact = np.full((n - 1) * m_all, -1, np.int32)
    compact[ids] = np.arange(ids.shape[0], dtype=np.int32)
    bounds = np.linspace(0, ids.shape[0], min(ids.shape[0], 1024) + 1).astype(np.int64)
    kind, laid, start, succ = ch.transitions(ids, compact, counts, m_all, n, down, single_up, lose,
                                             MOST_TABLE_ORDERS, halve, bounds)
    deal_rows = compact[starts >> 1].astype(np.int64)
    del compact
    return Chain(rules, counts, m_all, n, ids, kind, laid, start, succ, deal_rows,
                 seconds=time.process_time() - began, deal_flips=(starts & 1).astype(np.bool_), halved=halve)


@dataclass
class Solution:
    """Every row's values (float64; Fractions in `exact` when solved exactly) and the deck's."""

    chain: Chain
    p_win0: np.ndarray
    p_win1: np.ndarray
    p_draw: np.ndarray
    p_end: np.ndarray
    battles: np.ndarray  # E[N]; inf where the game may never end
    laid: np.ndarray  # E[cards laid]; inf likewise
    quantiles: np.ndarray  # rows x QUANTILES: the least t with P(N <= t) >= q (-1: past the sweeps)
    never_ends: np.ndarray  # the row cannot reach an end (a closed class of its own)
    may_not_end: np.ndarray  # the row can reach such a class: P(end) < 1
    over_cap: np.ndarray  # P(N > max_battles): the engine stops such a game as `capped`
    cdf: np.ndarray  # the deck's P(N <= t) over its deals, t = 0 .. sweeps
    sweeps: int
    bound: float  # on every probability above
    battles_bound: np.ndarray  # on each row's E[N]
    laid_bound: np.ndarray  # on each row's E[cards laid]
    exact: dict | None = None  # name -> list of Fractions by row
    seconds: dict = field(default_factory=dict)
    # Where solved exactly, the values as they are written and printed: each fraction's value as a
    # float (name -> array by row), and the bounds that go with them (rounding); the arrays above
    # stay the iteration's, within `bound` (docs/solve.md, "Error bound").
    figures: dict = field(default_factory=dict)

    @property
    def chances_bound(self) -> float:
        """The bound on each chance as written and printed: a float's rounding where the chances
        are the exact fractions' values, else the iteration's `bound`. `bound` itself stays the
        bound on what only the iteration gives: P(capped) and the distribution of battles."""
        if self.figures and not self.may_not_end.any():
            return UNIT
        return self.bound

    def at(self, name: str, rows, flips=None) -> np.ndarray:
        """A value of some rows as written and printed (the exact fraction's value where solved
        exactly), each of the row's twin where `flips` says (the seats swapped: P(seat 0 wins) is
        the row's P(seat 1 wins), every other value the row's own)."""
        source = self.figures.get(name, getattr(self, name))
        values = source[rows]
        if flips is not None and name in MIRRORED and np.any(flips):
            other = self.figures.get(MIRRORED[name], getattr(self, MIRRORED[name]))
            values = np.where(flips, other[rows], values)
        return values

    def exact_at(self, name: str, rows, flips=None) -> list:
        """Exact values (Fractions, None where there is none) of some rows or their twins."""
        flips = np.zeros(len(rows), np.bool_) if flips is None else flips
        mine, theirs = self.exact[name], self.exact[MIRRORED.get(name, name)]
        return [theirs[r] if f else mine[r] for r, f in zip(np.asarray(rows).tolist(), np.asarray(flips).tolist())]

    def deal_values(self, name: str) -> np.ndarray:
        """Every deal's value of `name`, in deal order."""
        return self.at(name, self.chain.deal_rows, self.chain.deal_flips)

    def deck(self) -> dict:
        """The deck's figures: each value averaged over its deals (each deal equally likely)."""
        rows = self.chain.deal_rows
        out = {name: float(np.mean(self.deal_values(name)))
               for name in ("p_win0", "p_win1", "p_draw", "battles", "laid", "over_cap")}
        out["battles_bound"] = float(np.max(self.at("battles_bound", rows)))
        out["laid_bound"] = float(np.max(self.at("laid_bound", rows)))
        if self.exact is not None:
            deals = len(rows)
            for name in self.exact:
                values = self.exact_at(name, rows, self.chain.deal_flips)
                if any(v is None for v in values):
                    out[f"exact_{name}"] = None
                    continue
                out[f"exact_{name}"] = sum(values, Fraction(0)) / deals
                out[name] = float(out[f"exact_{name}"])  # the float printed is the fraction's value
            if all(out.get(f"exact_{k}") is not None for k in ("p_win0", "p_win1", "battles")):
                out["p_draw"] = float(1 - out["exact_p_win0"] - out["exact_p_win1"])
        return out


def solve(rules: RuleSet, exact: bool | None = None, tol: float = 1e-13, most_sweeps: int = 10**6,
          chain: Chain | None = None, interrupted=lambda: None, progress=None) -> Solution:
    """Solve the chain of `rules`: floats always (iterated to `tol`), Fractions too when `exact`
    (default: when it has at most EXACT_ROWS rows). `progress(sweeps, worst)`, if given, hears
    how far the float iteration is every 50 sweeps."""
    chain = chain or build_chain(rules)
    with _threads_for(chain.succ.shape[0]):
        return _solved(rules, chain, exact, tol, most_sweeps, interrupted, progress)


THREADED_MOVES = 1_000_000  # moves of a sweep (about 9 ms of one core) below which one thread sweeps


@contextmanager
def _threads_for(moves: int):
    """One thread for a small chain's sweeps: they take microseconds, and each waits at its end
    for every thread; on a machine whose other core is busy that wait is a time slice, which made
    2x4's exact solve 10 to 35 times slower on two threads than on one. The result is the same
    either way (iterate.py)."""
    import numba

    before = numba.get_num_threads()
    if moves >= THREADED_MOVES or before == 1:
        yield
        return
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def _solved(rules, chain, exact, tol, most_sweeps, interrupted, progress) -> Solution:
    from .exact import MOST_STEPS, NotCertified, solve_exact
    from .iterate import iterate

    began = time.process_time()
    rstart, pred = ch.reverse(chain.start, chain.succ, chain.rows)
    ends_here = chain.kind != ch.GOES_ON
    can_end = ch.backward_closure(ends_here, rstart, pred)
    never_ends = ~can_end
    may_not_end = ch.backward_closure(never_ends, rstart, pred)
    del rstart, pred
    sure = ~may_not_end
    weights = np.bincount(chain.deal_rows, minlength=chain.rows).astype(np.float64)
    it = iterate(chain, sure, tol, most_sweeps, QUANTILES, rules.max_battles, weights, progress)
    t, worst = it["sweeps"], it["worst"]
    rounding = t * ROUNDING * UNIT  # each sweep's compensated means, rounded (docs/solve.md)
    bound = worst + rounding
    # E[(N - t)+] <= P(N > t) * t / (1 - worst): every t battles end the game with probability
    # >= 1 - worst from any row (docs/solve.md, "Error bound")
    tail = (1.0 - it["F"]) * (t / (1.0 - worst)) if worst < 1 else np.full(chain.rows, np.inf)
    most_laid = float(chain.laid.max()) if chain.rows else 0.0
    battles = it["S"] + 0.0
    laid = it["L"] + 0.0
    battles[may_not_end] = np.inf
    laid[may_not_end] = np.inf
    p_win0, p_win1 = it["W0"], it["W1"]
    p_end = it["F"].copy()
    if may_not_end.any():  # not iterated: their chances, to the same tolerance, come from the exact or float solve below
        p_win0, p_win1, p_end = _chances_beyond(chain, can_end, may_not_end, p_win0, p_win1, p_end, tol, most_sweeps)
    solution = Solution(
        chain, p_win0, p_win1, p_end - p_win0 - p_win1, p_end, battles, laid, it["quant"], never_ends, may_not_end,
        it["over_cap"], it["cdf"], t, bound,
        tail + (t * (t + 1) / 2 * ROUNDING + t) * UNIT,  # S sums t values of 1 - F, the u-th off by u sweeps' rounding
        most_laid * tail + rounding * np.where(np.isfinite(laid), laid, 0.0))
    solution.seconds["iterate"] = time.process_time() - began
    forced = bool(exact)
    if exact is None:
        exact = chain.rows <= EXACT_ROWS
    if exact:
        began = time.process_time()
        floats = np.stack([p_win0, p_win1, battles, laid], axis=1)
        try:
            w0, w1, n, laid_exact = solve_exact(chain, can_end, sure, floats, interrupted)
        except NotCertified:
            if forced:
                raise RulesError(f"no exact fractions certified for this deck's {chain.rows:,} rows (positions up to "
                                 f"the seat swap) within {MOST_STEPS} refinement steps: solve it with --float", params=("exact",)) from None
        else:
            solution.exact = {"p_win0": w0, "p_win1": w1, "battles": n, "laid": laid_exact}
            solution.figures = _exact_figures(solution)
        solution.seconds["exact"] = time.process_time() - began
    solution.seconds["chain"] = chain.seconds
    return solution


def _exact_figures(solution: Solution) -> dict:
    """The values as written and printed where solved exactly: each fraction as a float (rounded
    once, so within half a unit in the last place of it), a row without a fraction keeping the
    iteration's; P(draw) 1 less the two wins where the game surely ends; E[battles] and E[cards
    laid] bounded by their rounding (a unit in the last place) where exact."""
    def floats(name):
        raw = getattr(solution, name)
        return np.array([raw[r] if v is None else float(v) for r, v in enumerate(solution.exact[name])], np.float64)

    out = {name: floats(name) for name in ("p_win0", "p_win1", "battles", "laid")}
    draw = solution.p_end - out["p_win0"] - out["p_win1"]
    for r, (n, w0, w1) in enumerate(zip(solution.exact["battles"], solution.exact["p_win0"], solution.exact["p_win1"])):
        if n is not None and w0 is not None and w1 is not None:
            draw[r] = float(1 - w0 - w1)
    out["p_draw"] = draw
    for name, bound in (("battles", "battles_bound"), ("laid", "laid_bound")):
        known = np.array([v is not None for v in solution.exact[name]], np.bool_)
        out[bound] = np.where(known, np.spacing(np.where(known, np.abs(out[name]), 0.0)), getattr(solution, bound))
    return out


def _chances_beyond(chain, can_end, may_not_end, p_win0, p_win1, p_end, tol, most_sweeps):
    """The outcome chances of rows that may never end: iterated (Jacobi) over them with the rows
    that surely end held at their values, until a sweep changes none by more than `tol` (no
    proven bound: say so)."""
    from .iterate import blocks_of, sweep

    live = may_not_end & can_end
    V = np.stack([p_end, p_win0, p_win1, np.zeros(chain.rows)], axis=1)
    nV = V.copy()
    bounds, S = blocks_of(chain.start), np.zeros(chain.rows)
    quant, qs = np.zeros((chain.rows, 1), np.int32), np.zeros(1)
    for t in range(most_sweeps):
        sweep(chain.kind, chain.laid, chain.start, chain.succ, V, nV, live, bounds, S, quant, qs, t)
        change = float(np.max(np.abs(nV[:, 0] - V[:, 0]))) if live.any() else 0.0
        V, nV = nV, V.copy()
        if change <= tol:
            break
    W0, W1, F = V[:, 1].copy(), V[:, 2].copy(), V[:, 0].copy()
    return W0, W1, F
