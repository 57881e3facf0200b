"""A QA pass's findings on war solve (hostile-d, items 2 and 3), small decks (6 and 8 cards).

2. Stopped early (`--tol 0.5`), an exact solution printed and stored the iteration's floats
   (P(seat 0 wins) 0.348) beside their fractions (55439/138780 = 0.3995), marked exact, and war
   validate called it good. The floats written and printed are now the fractions' values, with
   the bound of their rounding, and the iteration's bound stays on what only it gives (P(capped),
   the distribution of battles); validate holds each float to its fraction within the stated bound.
3. vs_exact compared the solved game (no cap) with games stopped at max_battles=5 (P(capped) 0.331)
   and flagged a correct sample by hundreds of standard errors: it now refuses in one line.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pyarrow.parquet as pq
import pytest

import pipeline as war
from clikit import run_main
from solutionkit import changed_copy, rules
from pipeline.solve.figures import lines
from pipeline.solve.solver import solve

LOOSE = 0.5


@pytest.fixture(scope="module")
def loose(tmp_path_factory):
    """2 suits of 3 ranks solved exactly but iterated only to tol 0.5, every position stored."""
    out = tmp_path_factory.mktemp("solved") / "loose"
    solution = solve(rules(3, 2), exact=True, tol=LOOSE)
    war.write_solution(out, solution, positions=True)
    return out, solution


def test_a_loose_tol_prints_and_writes_the_fractions_values(loose):
    out, solution = loose
    deck = solution.deck()
    assert deck["exact_p_win0"] == Fraction(55439, 138780)
    for name in ("p_win0", "p_win1", "battles", "laid"):
        assert deck[name] == float(deck[f"exact_{name}"]), name
    assert deck["p_draw"] == float(1 - deck["exact_p_win0"] - deck["exact_p_win1"])
    printed = next(line for line in lines(solution) if "P(seat 0 wins)" in line)
    assert float(printed.split()[3]) == pytest.approx(float(Fraction(55439, 138780)), abs=1e-14), printed
    bound_line = next(line for line in lines(solution) if "error bound" in line)
    assert "fractions' values" in bound_line and "distribution" in bound_line
    body = json.loads((out / "solution.json").read_text())
    assert body["exact"] and body["deck"]["p_win0"] == float(Fraction(body["deck"]["exact_p_win0"]))
    assert body["bound"] < 1e-15 and body["distribution_bound"] >= body["deck"]["over_cap"] > 0.1
    for file in ("deals.parquet", "positions.parquet"):
        table = pq.read_table(out / file).to_pydict()
        for column in ("p_win0", "p_win1", "p_draw", "mean_battles", "mean_laid"):
            floats = np.array(table[column])
            fractions = np.array([float(Fraction(v)) for v in table[f"exact_{column}"]])
            assert np.array_equal(floats, fractions), (file, column)
    row = war.query(out, name="solved_deck").to_pylist()[0]
    assert row["p_win0"] == float(Fraction(row["exact_p_win0"])) and row["distribution_bound"] > 0.1
    # without fractions the floats are the iteration's, 0.05 off, and the bound printed covers that
    s = solve(rules(3, 2), exact=False, tol=LOOSE, chain=solution.chain)
    floats = s.deck()
    assert abs(floats["p_win0"] - deck["p_win0"]) > 0.01
    for name in ("p_win0", "p_win1", "p_draw"):
        assert abs(floats[name] - deck[name]) <= s.bound, name
    assert abs(floats["battles"] - deck["battles"]) <= floats["battles_bound"]
    assert abs(floats["laid"] - deck["laid"]) <= floats["laid_bound"]
    assert f"{s.bound:.2g} on each probability" in next(line for line in lines(s) if "error bound" in line)


def test_validate_holds_the_floats_to_their_fractions(loose, tmp_path):
    """Two deals' p_win0 moved 0.05 apart (the deck's mean kept): within the old stated bound
    (0.45, the iteration's), so validate said good; they are not their fractions' values."""
    out, solution = loose
    assert war.validate_solution(out, deep=True).ok
    deals = tmp_path / "deals"
    war.write_solution(deals, solution)
    assert war.validate_solution(deals).ok
    once = changed_copy(deals, tmp_path / "once", "deals.parquet", "p_win0", 3, lambda v: v - 0.05)
    bad = changed_copy(once, tmp_path / "bad", "deals.parquet", "p_win0", 4, lambda v: v + 0.05)
    report = war.validate_solution(bad)
    assert not report.ok and any("p_win0" in p and "fraction" in p for p in report.problems), report.problems


@pytest.fixture(scope="module")
def capped(tmp_path_factory):
    """2 suits of 3 ranks with max_battles=5 (P(capped) 0.331): its solution and a sample."""
    base = tmp_path_factory.mktemp("capped")
    solution = solve(rules(3, 2, max_battles=5), exact=True)
    war.write_solution(base / "solved", solution)
    war.generate(base / "sample", [war.Plan(rules(3, 2, max_battles=5), 4000, log="games")], seed=3)
    return base, solution


def test_vs_exact_refuses_a_cap_the_game_reaches(capped, monkeypatch, capsys):
    base, solution = capped
    assert solution.deck()["over_cap"] > 0.3
    with pytest.raises(war.QueryError, match=r"P\(capped\) at max_battles=5 is 0\.331"):
        war.query(base / "sample", name="vs_exact", params={"solution": str(base / "solved")})
    for columns in (["-c", "measure"], []):  # asked for one column or all, refused alike
        code, out, err = run_main(monkeypatch, capsys, "query", base / "sample", "vs_exact", "--param",
                                  f"solution={base / 'solved'}", *columns)
        assert code != 0 and "no cap" in err and "max_battles" in err and err.count("\n") == 1, (out, err)


def test_vs_exact_refuses_a_solution_that_only_bounds_its_cap(loose, tmp_path, monkeypatch, capsys):
    """Stopped at tol 0.5 (9 battles), the solution knows only P(capped) <= 0.139."""
    out, _ = loose
    sample = tmp_path / "sample"
    war.generate(sample, [war.Plan(rules(3, 2), 3000, log="games")], seed=11)
    code, _, err = run_main(monkeypatch, capsys, "query", sample, "vs_exact", "--param", f"solution={out}",
                            "-c", "measure")
    assert code != 0 and "--tol" in err and "<= 0.139" in err and err.count("\n") == 1, err
