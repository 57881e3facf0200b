"""A sixth QA pass on war solve's solutions (hostile-i): what `war validate` now holds a solution
to, whatever its own manifest says.

- An exact solution's floats are held to their fractions' rounding, not to the manifest's `bound`
  (raised with the values, 0.1 off passed); a bound that is not finite is refused.
- P(capped) and the distribution of battles against each other and the deck: a manifest whose
  max_battles was edited to 5 (P(capped) 2.7e-14 kept) passed; mass moved between two lengths
  passed; a quantile set to 1, or to -1, passed.
- The manifest's `exact` against the files' columns.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pipeline as war
from solutionkit import changed_copy, rules
from pipeline.solve.solver import solve


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """2 suits of 3 ranks, exact, with and without its positions."""
    base = tmp_path_factory.mktemp("checked")
    solution = solve(rules(3, 2), exact=True)
    war.write_solution(base / "all", solution, positions=True)
    war.write_solution(base / "deals", solution)
    return base


def edited(src, dst, change) -> object:
    """A copy of the solution with its manifest changed by change(body) (files untouched)."""
    shutil.copytree(src, dst)
    body = json.loads((dst / "solution.json").read_text())
    change(body)
    (dst / "solution.json").write_text(json.dumps(body))
    return dst


def problems(root) -> list[str]:
    report = war.validate_solution(root)
    assert not report.ok, report.summary()
    return report.problems


def test_untouched_solutions_are_good(solved):
    for name in ("all", "deals"):
        assert war.validate_solution(solved / name, deep=True).ok, name


def test_an_exact_solutions_floats_are_held_to_their_fractions_whatever_bound_it_states(solved, tmp_path):
    loose = edited(solved / "all", tmp_path / "loose", lambda b: b.update(bound=0.2))
    moved = changed_copy(loose, tmp_path / "moved", "deals.parquet", "p_win0", 2, lambda v: v + 0.1)
    assert any("p_win0" in p and "fraction" in p for p in problems(moved))
    with pytest.raises(war.DatasetError, match="bound"):
        war.validate_solution(edited(solved / "all", tmp_path / "inf", lambda b: b.update(bound=float("inf"))))


def test_a_cap_edited_in_the_manifest_is_found(solved, tmp_path):
    def cap(body):
        body["rules"]["max_battles"] = 5
        body["rules_label"] += " max_battles=5"
    found = problems(edited(solved / "all", tmp_path / "cap", cap))
    assert any("P(capped)" in p and "P(N > 5)" in p for p in found), found
    assert any("quantile" in p and "max_battles 5" in p for p in found), found


def test_mass_moved_between_lengths_is_found(solved, tmp_path):
    dst = shutil.copytree(solved / "all", tmp_path / "moved")
    table = pq.read_table(dst / "distribution.parquet")
    p = np.array(table.column("p").to_pylist())
    p[4], p[5] = p[4] - 0.06, p[5] + 0.06
    table = table.set_column(table.column_names.index("p"), "p", pa.array(p))
    table = table.set_column(table.column_names.index("cdf"), "cdf", pa.array(np.cumsum(p)))
    pq.write_table(table, dst / "distribution.parquet")
    body = json.loads((dst / "solution.json").read_text())
    from pipeline.solve.figures import deck_quantiles
    from pipeline.solve.folder import sha256
    body["quantiles"] = {str(q): t for q, t in deck_quantiles(np.cumsum(p)).items()}
    for f in body["files"]:
        f["sha256"] = sha256(dst / f["path"])
    (dst / "solution.json").write_text(json.dumps(body))
    assert any("distribution.parquet: its mean" in p for p in problems(dst))


def test_quantiles_are_held_to_the_game(solved, tmp_path):
    # a deal's own and its position's set to 1: its battle's successors say otherwise
    deal = 2
    position = pq.read_table(solved / "all" / "deals.parquet").column("position")[deal].as_py()
    row = pq.read_table(solved / "all" / "positions.parquet").column("position").to_pylist().index(position)
    one = changed_copy(solved / "all", tmp_path / "one", "positions.parquet", "battles_q50", row, lambda v: 1)
    one = changed_copy(one, tmp_path / "one2", "deals.parquet", "battles_q50", deal, lambda v: 1)
    assert any("battles_q50" in p and "successors" in p for p in problems(one))
    # without positions, against the chain solved again; and a -1 among known ones does not rise
    minus = changed_copy(solved / "deals", tmp_path / "minus", "deals.parquet", "battles_q90", deal, lambda v: -1)
    assert any("do not rise" in p for p in problems(minus))


def test_the_word_exact_is_the_files(solved, tmp_path):
    found = problems(edited(solved / "all", tmp_path / "no", lambda b: b.update(exact=False)))
    assert any("exact false" in p and "exact_* columns" in p for p in found), found


def test_the_report_of_a_float_solution_stopped_early_says_what_it_knows(tmp_path):
    """`--float --tol 0.5` (9 sweeps, no positions stored): the report said P(capped) "is 0.139"
    (a bound), "90 % of games end within None battles", that the chain was too large for
    fractions (216 rows), and that validate checks the positions' balance equations."""
    from pipeline.present.solution_page import render_solution_report

    out = tmp_path / "loose"
    war.write_solution(out, solve(rules(3, 2), exact=False, tol=0.5))
    page = render_solution_report(out)
    assert "None" not in page and "too large" not in page and "The deck, exactly" not in page
    assert "is at most 0.139" in page and "fewer than 90 % of games end within the 9 battles solved" in page
    assert "solves the chain again" in page and "balance equations" not in page


def test_the_servers_report_follows_a_rewritten_solution(tmp_path):
    """`war serve SOL`, then `war solve ... --out SOL --overwrite` with another deck: the page
    kept the old deck while /sql answered from the new one (hostile-i 3)."""
    from pipeline.present.solution_site import SolutionSite

    out = tmp_path / "live"
    war.write_solution(out, solve(rules(3, 2), exact=True))
    site = SolutionSite(out)
    assert "ranks=3 suits=2" in site.report()
    war.write_solution(out, solve(rules(4, 1), exact=True), overwrite=True)
    page = site.report()
    assert "ranks=4 suits=1" in page and "ranks=3 suits=2" not in page
    assert site.report() is page  # unchanged since: not built again


def test_a_solution_that_is_not_there_is_said_so(tmp_path, monkeypatch, capsys):
    """`war solve --from MISSING` said "not a finished solution (no readable solution.json)"."""
    from clikit import run_main

    code, _, err = run_main(monkeypatch, capsys, "solve", "--from", tmp_path / "missing")
    assert code == 2 and "the folder does not exist" in err and err.count("\n") == 1, err
