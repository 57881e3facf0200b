"""Hostile tests of war's newest surfaces: a solution folder of `war solve --out` as its writers
leave it (a killed write, a second writer, flags that did nothing) and as `war validate` checks
it (a tamper re-signed in each column a reader shows), its SQL page and `vs_exact`; the rule
option `deal` (first_short) kept by what writes and reads a rule set. Each test was a defect
found by trying it; small decks only (2 suits of 3 ranks solved, one suit of 7 ranks played)."""

from __future__ import annotations

import hashlib
import json
import shutil
from fractions import Fraction

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pipeline as war
from clikit import run_main
from pipeline.solve.solver import solve


def rules(ranks, suits, **options):
    return war.build_rules("classic", {"ranks": ranks, "suits": suits, "war_down": 0, **options})


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """2 suits of 3 ranks, open wars, exact, every position stored (426 positions)."""
    out = tmp_path_factory.mktemp("solved") / "s23"
    solution = solve(rules(3, 2), exact=True)
    war.write_solution(out, solution, positions=True)
    return out


def _resign(root) -> None:
    body = json.loads((root / "solution.json").read_text())
    for f in body["files"]:
        f["sha256"] = hashlib.sha256((root / f["path"]).read_bytes()).hexdigest()
    (root / "solution.json").write_text(json.dumps(body))


def _tampered(src, dst, file, column, row, change):
    """A copy of a solution with one value changed and its checksum written again."""
    shutil.copytree(src, dst)
    table = pq.read_table(dst / file)
    values = table.column(column).to_pylist()
    values[row] = change(values[row])
    table = table.set_column(table.column_names.index(column), column, pa.array(values, table.schema.field(column).type))
    pq.write_table(table, dst / file)
    _resign(dst)
    return dst


def _other_rank_order(piles: str) -> str:
    ranks = piles.split()
    return " ".join(ranks[1:] + ranks[:1]) if len(set(ranks)) > 1 else piles


# ---------------------------------------------------------------- war validate of a solution


@pytest.mark.parametrize("file, column, row, change", [
    ("deals.parquet", "deal", 5, lambda v: v + 1),            # deal 5 gone, deal 6 twice: solved_deal
    ("deals.parquet", "top_cards", 5, lambda v: v + 1),       # solved_by_top_cards groups by it
    ("deals.parquet", "pile0", 7, _other_rank_order),         # solved_deal shows the piles
    ("deals.parquet", "pile1", 7, _other_rank_order),
    ("deals.parquet", "exact_p_draw", 7, lambda v: str(Fraction(v) + Fraction(1, 7))),
    ("positions.parquet", "exact_p_draw", 40, lambda v: str(Fraction(v) + Fraction(1, 7))),
    ("deals.parquet", "p_capped", 7, lambda v: v + 0.25),      # not its position's
    ("deals.parquet", "battles_q50", 7, lambda v: v + 1),
    ("deals.parquet", "battles_q99", 7, lambda v: v + 1),
    ("deals.parquet", "never_ends", 7, lambda v: not v),
    ("distribution.parquet", "battles", 5, lambda v: v + 1),
])
def test_a_resigned_tamper_a_reader_shows_is_caught(solved, tmp_path, file, column, row, change):
    """Each column a named query shows, changed and its file's SHA-256 written again: validate
    --deep says a problem (before, each of these passed as good)."""
    bad = _tampered(solved, tmp_path / "bad", file, column, row, change)
    report = war.validate_solution(bad, deep=True)
    assert not report.ok, f"{file} {column} changed, yet validated good"


@pytest.mark.parametrize("key, change", [
    ("quantiles", lambda q: {**q, "0.5": q["0.5"] + 3}),       # the deck view's battles_median
    ("cards", lambda v: v + 2),
    ("positions", lambda v: v + 10),
    ("rules_label", lambda v: "classic ranks=13 suits=4"),     # the deck view's rule_set
    ("sweeps", lambda v: v + 50),
    ("deck", lambda d: {**d, "over_cap": 0.125}),              # the deck view's p_capped
])
def test_a_tampered_manifest_figure_is_caught(solved, tmp_path, key, change):
    """solution.json has no checksum of its own: each figure it gives that the deck view shows
    is checked against the files and the chain."""
    bad = tmp_path / "bad"
    shutil.copytree(solved, bad)
    body = json.loads((bad / "solution.json").read_text())
    body[key] = change(body[key])
    (bad / "solution.json").write_text(json.dumps(body))
    report = war.validate_solution(bad, deep=True)
    assert not report.ok, f"solution.json {key} changed, yet validated good"


@pytest.mark.parametrize("file, column", [("deals.parquet", "exact_p_win0"), ("positions.parquet", "exact_mean_laid"),
                                          ("deals.parquet", "exact_p_draw")])
def test_an_exact_value_that_is_no_fraction_is_a_problem_not_a_traceback(solved, tmp_path, monkeypatch, capsys,
                                                                        file, column):
    bad = _tampered(solved, tmp_path / "bad", file, column, 3, lambda v: "one half")
    report = war.validate_solution(bad, deep=True)
    assert any(column in p and "fraction" in p for p in report.problems), report.problems
    code, out, err = run_main(monkeypatch, capsys, "validate", bad, "--deep")
    assert code == 1 and "Traceback" not in err and "BAD" in out


def test_a_solution_stopped_early_validates_without_its_positions(tmp_path):
    """`--tol 1e-3 --float` and no positions: each deal is solved again and compared within
    both bounds; a deal's cards laid was held to twice the new solve's bound (1e-8) rather
    than its own (the stored deck's laid_bound), so a good solution was said BAD."""
    out = tmp_path / "loose"
    war.write_solution(out, solve(rules(3, 2, war_down=1), exact=False, tol=1e-3))
    report = war.validate_solution(out)
    assert report.resolved and report.ok, report.problems
