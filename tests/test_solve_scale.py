"""war solve at scale (docs/solve.md): one row for a position and its seat-swapped twin, sweeps
spread over threads, exact fractions certified from the floats. Each is held against the plainer
way it replaces, on small decks where both run."""

from __future__ import annotations

from fractions import Fraction

import numba
import numpy as np
import pytest

import pipeline as war
from pipeline.solve import chain as ch
from pipeline.solve.exact import solve_by_elimination
from pipeline.solve.figures import positions_reached, symmetric_rows
from pipeline.solve.solver import build_chain, solve

VARIANTS = [dict(war_down=0), dict(war_down=1), dict(war_down=2, shortfall="lose"),
            dict(war_down=1, war_tiebreak="single_up"), dict(war_down=0, aces="low")]


def rules(ranks, suits, **options):
    return war.build_rules("classic", {"ranks": ranks, "suits": suits, "war_down": 0, **options})


@pytest.mark.parametrize("options", VARIANTS)
def test_halving_keeps_every_value(options):
    """Every position's values are the same whether the chain keeps one row a pair of twins or
    a row a position: the twin's P(seat 0 wins) is its row's P(seat 1 wins), the rest equal."""
    r = rules(3, 2, **options)
    half, whole = solve(r, exact=False), solve(r, exact=False, chain=build_chain(r, halve=False))
    assert half.chain.rows < whole.chain.rows == positions_reached(half.chain)
    assert half.chain.succ.shape[0] < whole.chain.succ.shape[0]
    ids = whole.chain.ids
    located = [half.chain.locate(int(x)) for x in ids]
    rows = np.array([r for r, _ in located])
    flips = np.array([f for _, f in located])
    for name in ("p_win0", "p_win1", "p_draw", "battles", "laid"):
        got = half.at(name, rows, flips)
        assert np.all(np.abs(got - getattr(whole, name)) <= 4e-16 * np.maximum(1, np.abs(got))), name
    assert np.array_equal(half.quantiles[rows], whole.quantiles)
    for name in ("p_win0", "p_win1", "p_draw", "battles", "laid"):
        assert abs(half.deck()[name] - whole.deck()[name]) <= 1e-15 * max(1, whole.deck()[name])


def test_a_symmetric_position_is_its_own_twin():
    """A position whose piles are the same sequence is one row, its own twin, with even chances
    exactly; every other row's twin is another position, not a row."""
    s = solve(rules(3, 2), exact=True)
    chain = s.chain
    sym = symmetric_rows(chain)
    assert sym.any() and not sym.all()
    for row in np.flatnonzero(sym).tolist():
        a, b = chain.position(row)
        assert a == b and chain.twin(row) == int(chain.ids[row]) and chain.locate(chain.twin(row)) == (row, False)
        assert s.exact["p_win0"][row] == s.exact["p_win1"][row]
    for row in np.flatnonzero(~sym)[:20].tolist():
        assert chain.locate(chain.twin(row)) == (row, True)
    assert positions_reached(chain) == 2 * chain.rows - int(sym.sum())


@pytest.mark.parametrize("options", VARIANTS)
def test_certified_fractions_are_the_elimination_s(options):
    """The fractions refined from the floats and certified are exactly Gaussian elimination's in
    Fractions over the whole chain, position by position."""
    r = rules(3, 2, **options)
    half = solve(r, exact=True)
    whole = build_chain(r, halve=False)
    every = np.ones(whole.rows, np.bool_)
    w0, w1, n, laid = solve_by_elimination(whole, every, every)
    for row in range(whole.rows):
        h, flip = half.chain.locate(int(whole.ids[row]))
        assert half.exact_at("p_win0", [h], [flip])[0] == w0[row]
        assert half.exact_at("p_win1", [h], [flip])[0] == w1[row]
        assert half.exact_at("battles", [h], [flip])[0] == n[row]
        assert half.exact_at("laid", [h], [flip])[0] == laid[row]


def test_the_bound_holds_where_the_error_shows():
    """Stopped early (tol 1e-5), the floats are visibly off the exact fractions, and by no more
    than the stated bound: on every chance and every E[battles] and E[cards laid]."""
    s = solve(rules(4, 2), exact=True, tol=1e-5)
    off = {}
    for name in ("p_win0", "p_win1", "battles", "laid"):
        exact = np.array([float(v) for v in s.exact[name]])
        bound = s.bound if name.startswith("p_") else getattr(s, f"{name}_bound")
        error = np.abs(getattr(s, name) - exact)
        assert np.all(error <= bound), name
        off[name] = error.max()
    assert off["p_win0"] > 1e-9 and off["battles"] > 1e-8  # the check is not vacuous


def test_two_by_four_is_exact_by_default():
    """2 suits of 4 ranks (17,400 positions) is solved in fractions without being asked, and
    they agree with the floats within the bound."""
    s = solve(rules(4, 2))
    deck = s.deck()
    assert s.exact is not None and isinstance(deck["exact_p_win0"], Fraction)
    assert deck["exact_p_win0"] == deck["exact_p_win1"]
    assert abs(float(deck["exact_battles"]) - deck["battles"]) <= deck["battles_bound"]
    assert abs(float(deck["exact_p_win0"]) - deck["p_win0"]) <= s.bound


def test_one_thread_or_two_give_the_same_bytes():
    """Every row of a sweep is computed the same whichever thread takes it."""
    r = rules(4, 2)
    chain = build_chain(r)
    numba.set_num_threads(1)
    try:
        one = solve(r, exact=False, chain=chain)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    two = solve(r, exact=False, chain=chain)
    for name in ("p_win0", "p_win1", "p_draw", "battles", "laid", "quantiles", "cdf", "over_cap"):
        assert getattr(one, name).tobytes() == getattr(two, name).tobytes(), name


def test_canonical_codes_name_the_smaller_twin():
    """A position's code is its own index (flip 0) or its twin's when that is smaller (flip 1);
    without halving, always its own."""
    counts = np.array([2, 2, 2], np.int64)
    m = ch.multinomial(counts)
    seq, twin = np.empty(6, np.int8), np.empty(6, np.int8)
    for i in range(0, m, 3):
        ch.seq_unrank(i, counts, m, seq)
        for k in (1, 3, 5):
            x = (k - 1) * m + i
            other = ch.twin_index(x, counts, m, 6)
            assert ch.twin_index(other, counts, m, 6) == x
            code = ch.canonical(seq, k, counts, m, True, twin)
            assert code == (2 * other + 1 if other < x else 2 * x)
            assert ch.canonical(seq, k, counts, m, False, twin) == 2 * x
