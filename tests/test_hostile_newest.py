"""Hostile tests of war's newest surfaces: a solution folder of `war solve --out` as its writers
leave it (a killed write, a second writer, flags that did nothing) and as `war validate` checks
it (a tamper re-signed in each column a reader shows), its SQL page and `vs_exact`; the rule
option `deal` (first_short) kept by what writes and reads a rule set. Each test was a defect
found by trying it; small decks only (2 suits of 3 ranks solved, one suit of 7 ranks played)."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction

import pytest

import pipeline as war
from clikit import run_main
from solutionkit import changed_copy, rules
from pipeline.solve.solver import solve


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """2 suits of 3 ranks, open wars, exact, every position stored (426 positions)."""
    out = tmp_path_factory.mktemp("solved") / "s23"
    solution = solve(rules(3, 2), exact=True)
    war.write_solution(out, solution, positions=True)
    return out


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
    bad = changed_copy(solved, tmp_path / "bad", file, column, row, change)
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
    bad = changed_copy(solved, tmp_path / "bad", file, column, 3, lambda v: "one half")
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


# ---------------------------------------------------------------- war solve --out: writers


@pytest.fixture(scope="module")
def small():
    """The solution of one suit of 4 ranks (a handful of rows), to write again and again."""
    return solve(rules(4, 1), exact=True)


def _killed_while_writing(monkeypatch, out, solution, overwrite):
    """write_solution stopped by Ctrl-C as it writes distribution.parquet (deals written)."""
    import pipeline.solve.dataset as dataset

    real = dataset.write_parquet

    def stopped(table, path, **kw):
        if path.name == "distribution.parquet":
            (path.parent / f".{path.name}.999999.tmp").write_bytes(b"half")  # as a SIGKILL leaves it
            raise KeyboardInterrupt
        return real(table, path, **kw)

    monkeypatch.setattr(dataset, "write_parquet", stopped)
    with pytest.raises(KeyboardInterrupt):
        war.write_solution(out, solution, overwrite=overwrite)
    monkeypatch.setattr(dataset, "write_parquet", real)


@pytest.mark.parametrize("first", [False, True], ids=["killed-first-write", "killed-overwrite"])
def test_a_killed_write_leaves_no_solution_and_overwrite_replaces_it(small, tmp_path, monkeypatch, capsys, first):
    """Killed mid-write, the folder is no solution a reader would take (no manifest); the same
    command again with --overwrite replaces it. Before, --overwrite said the folder 'holds
    something other than a solution' and the user had to delete it by hand."""
    out = tmp_path / "s"
    if first:
        war.write_solution(out, small)
    _killed_while_writing(monkeypatch, out, small, overwrite=first)
    code, _, err = run_main(monkeypatch, capsys, "query", out, "solved_deck")
    assert code != 0 and err.count("\n") == 1
    code, _, err = run_main(monkeypatch, capsys, "solve", "--set", "ranks=4", "--set", "suits=1", "--set",
                            "war_down=0", "--out", out)
    assert code != 0 and "unfinished" in err and "--overwrite" in err, err
    war.write_solution(out, small, overwrite=True)
    assert war.validate_solution(out).ok
    assert sorted(p.name for p in out.iterdir()) == ["deals.parquet", "distribution.parquet", "solution.json"]


def test_a_folder_with_other_files_is_still_not_replaced(small, tmp_path):
    out = tmp_path / "s"
    out.mkdir()
    (out / "deals.parquet").write_bytes(b"x")
    (out / "notes.txt").write_text("mine")
    with pytest.raises(war.DatasetError, match="other than a solution"):
        war.write_solution(out, small, overwrite=True)
    assert (out / "notes.txt").read_text() == "mine"


def test_a_users_lone_deals_file_is_no_unfinished_solution(small, tmp_path, monkeypatch, capsys):
    """A folder holding only a deals.parquet of the user's (a query's export) was called "an
    unfinished solution (a war solve stopped before it finished)", and --overwrite replaced it:
    a stopped war solve leaves its mark, which the user's folder has not (hostile-i 6)."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / "deals.parquet").write_bytes(b"the user's")
    for extra in ([], ["--overwrite"]):
        code, _, err = run_main(monkeypatch, capsys, "solve", "--set", "ranks=4", "--set", "suits=1", "--set",
                                "war_down=0", "--out", out, *extra)
        assert code != 0 and "other than a solution" in err and "unfinished" not in err, err
    assert (out / "deals.parquet").read_bytes() == b"the user's"


def test_a_second_writer_is_refused_not_mixed_in(small, tmp_path, monkeypatch):
    """Two war solve --out into one folder: the second, arriving while the first writes, is
    refused; the folder holds the first's solution whole. Before, the second wrote its files
    between the first's and the first's manifest then named files of the other rules (a query
    showed one solution's deck beside the other's deals)."""
    import pipeline.solve.dataset as dataset

    other = solve(rules(4, 1, war_down=1), exact=True)
    out = tmp_path / "s"
    real = dataset.write_parquet
    said = []

    def meanwhile(table, path, **kw):
        if path.name == "distribution.parquet" and not said:
            try:
                war.write_solution(out, other, overwrite=True)
                said.append("written")
            except war.DatasetError as err:
                said.append(str(err))
        return real(table, path, **kw)

    monkeypatch.setattr(dataset, "write_parquet", meanwhile)
    war.write_solution(out, small)
    monkeypatch.setattr(dataset, "write_parquet", real)
    assert "another war solve" in said[0], said
    assert war.validate_solution(out).ok
    assert json.loads((out / "solution.json").read_text())["rules"]["war_down"] == 0


@pytest.mark.parametrize("args, said", [
    (["--set", "ranks=4", "--set", "suits=1", "--positions"], "--out"),
    (["--set", "ranks=4", "--set", "suits=1", "--overwrite"], "--out"),
    (["--set", "ranks=4", "--set", "suits=1", "--query", "deal", "--deal", "3"], "--from"),
    (["--from", "{out}", "--set", "ranks=9"], "--set"),
    (["--from", "{out}", "--out", "{out}2"], "--out"),
    (["--from", "{out}", "--exact"], "--exact"),
    (["--from", "{out}", "--deal", "3"], "--deal"),
])
def test_a_flag_that_would_do_nothing_is_refused(small, tmp_path, monkeypatch, capsys, args, said):
    """Before, each ran as if the flag were not given: `--positions` without `--out` solved and
    wrote nothing, `--query deal --deal 3` without `--from` printed the deck, `--from` with
    `--set ranks=9` answered the solution's own rules."""
    out = tmp_path / "s"
    war.write_solution(out, small)
    code, text, err = run_main(monkeypatch, capsys, "solve", *[a.format(out=out) for a in args])
    assert code != 0 and said in err and err.count("\n") == 1 and not text, (code, text, err)


# ---------------------------------------------------------------- a solution's SQL page, vs_exact


def test_a_solutions_sql_page_says_solution(solved):
    """The page's header said 'dataset X · a query may only read the dataset' of a solution."""
    from pipeline.present.solution_site import SolutionSite, sql

    page = sql(SolutionSite(solved), {}).body.decode()
    meta = page.split("<main", 1)[0] if "<main" in page else page
    assert f"solution <code>{solved}</code>" in page and "read the solution" in page
    assert f"dataset <code>{solved}</code>" not in meta


def test_vs_exact_opens_the_sample_once(tmp_path, monkeypatch):
    """vs_exact opened the sample's manifest twice: once to find the solution's rules among its
    rule sets, again for the session."""
    from pipeline.storage.dataset import Dataset

    out, sample = tmp_path / "s", tmp_path / "g"
    war.write_solution(out, solve(rules(4, 1), exact=True))
    war.generate(sample, [war.Plan(rules(4, 1), 50, log="games")], seed=3)
    opened = []
    real = Dataset.open.__func__

    def counted(cls, *args, **kw):
        opened.append(args[0] if args else kw)
        return real(cls, *args, **kw)

    monkeypatch.setattr(Dataset, "open", classmethod(counted))
    rows = war.query(sample, name="vs_exact", params={"solution": str(out)}).to_pylist()
    assert rows and len(opened) == 1, opened
    other = tmp_path / "g2"
    war.generate(other, [war.Plan(rules(4, 1, war_down=1), 20, log="games")], seed=3)
    with pytest.raises(war.QueryError, match="no rule set of the solution's rules"):
        war.query(other, name="vs_exact", params={"solution": str(out)})


def test_an_odd_first_short_deck_is_refused_for_what_it_is(monkeypatch, capsys):
    """Under deal=first_short no card is set aside: the refusal said it was."""
    code, _, err = run_main(monkeypatch, capsys, "solve", "--set", "ranks=7", "--set", "suits=1", "--set",
                            "deal=first_short")
    assert code != 0 and "first_short" in err and "set aside" not in err and err.count("\n") == 1, err
    code, _, err = run_main(monkeypatch, capsys, "solve", "--set", "ranks=7", "--set", "suits=1")
    assert code != 0 and "sets a card aside" in err


@pytest.mark.parametrize("change", [
    lambda b: b["deck"].pop("p_win0"),
    lambda b: b.__setitem__("deck", 5),
    lambda b: b.__setitem__("quantiles", [1, 2]),
    lambda b: b["deck"].__setitem__("exact_p_win0", "abc"),
    lambda b: b.__setitem__("deals", "many"),
    lambda b: b.__setitem__("bound", "x"),
    lambda b: b["files"][0].__setitem__("rows", "x"),
    lambda b: b["deck"].__setitem__("exact_p_win0", "1/0"),
    lambda b: b["deck"].__setitem__("exact_p_win0", [1]),
    lambda b: b.__setitem__("bound", -1.0),
    lambda b: b["deck"].__setitem__("battles_bound", -0.5),
], ids=["deck-figure-missing", "deck-not-figures", "quantiles-a-list", "deck-fraction-not-one", "deals-text",
        "bound-text", "rows-text", "fraction-over-zero", "fraction-a-list", "bound-below-zero",
        "battles-bound-below-zero"])
@pytest.mark.parametrize("command", ["query", "report", "validate"])
def test_a_manifest_of_the_wrong_shape_is_one_line(solved, tmp_path, monkeypatch, capsys, change, command):
    """A solution.json edited by hand into the wrong shape: each reader said 'internal error:
    KeyError' (or AttributeError, ValueError, ZeroDivisionError for "1/0", TypeError for a list),
    validate passed a deck without p_win0, and a bound below 0 (the checks' tolerance) made
    validate blame the data files."""
    bad = tmp_path / "bad"
    shutil.copytree(solved, bad)
    body = json.loads((bad / "solution.json").read_text())
    change(body)
    (bad / "solution.json").write_text(json.dumps(body))
    args = {"query": ["solved_deck"], "report": ["-o", tmp_path / "r.html"], "validate": []}[command]
    code, _, err = run_main(monkeypatch, capsys, command, bad, *args)
    assert code == 2 and err.count("\n") == 1 and "internal error" not in err and "solution.json" in err, err


# ---------------------------------------------------------------- war search, records, the option deal


@pytest.mark.parametrize("pickup", ["shuffled", "pooled"])
def test_a_search_for_a_cycle_under_a_drawn_pickup_is_refused_before_it_plays(tmp_path, monkeypatch, capsys, pickup):
    """No game cycles under a drawn pickup (the engine does not look: ruling 7), yet the search
    played its rounds (hours with --seconds) and then said 'found none that cycles; more
    rounds search further'."""
    code, _, err = run_main(monkeypatch, capsys, "search", "--set", "ranks=7", "--set", "suits=1",
                            "--set", f"pickup={pickup}", "--goal", "cycle", "--rounds", "1", "--searchers", "1",
                            "-q", "-o", tmp_path / "found")
    assert code != 0 and f"pickup={pickup}" in err and "fixed pickup" in err and err.count("\n") == 1, err
    assert not (tmp_path / "found.search.json").exists()


@pytest.mark.parametrize("inside", [".war", "games/variant=classic/x"])
def test_a_solution_is_not_written_inside_a_datasets_own_files(small, tmp_path, inside):
    """`war solve --out DS/.war` wrote there and the next `war generate --append` of DS removed
    it with the journal (lost); `--out DS/games/...` made DS fail validate (a file it does not
    list). Refused as every other writer refuses it; beside the dataset's files is fine."""
    ds = tmp_path / "ds"
    war.generate(ds, [war.Plan(rules(4, 1), 10, log="games")], seed=1)
    with pytest.raises(war.DatasetError, match="of the dataset"):
        war.write_solution(ds / inside, small)
    assert not (ds / inside / "solution.json").exists()
    war.write_solution(ds / "solved", small)
    assert war.validate(ds).ok


def test_vs_exact_takes_only_a_sample_of_the_deck(tmp_path, monkeypatch, capsys):
    """vs_exact set the deck's exact figures beside any games of its rules: one explicit deal
    played 300 times, or the long games `--from --where` copied, were compared with the whole
    deck as if dealt at random (a z-score of a biased sample, silently). Only games dealt at
    random (not copies) or every deal of the deck once are a sample of it."""
    out = tmp_path / "s"
    war.write_solution(out, solve(rules(4, 1), exact=True))
    from pipeline.model.deal import check_deal

    deal = check_deal(rules(4, 1), [[3, 1], [0, 2]])
    explicit, random_, every, copied = (tmp_path / n for n in ("explicit", "random", "every", "copied"))
    war.generate(explicit, [war.Plan(rules(4, 1), 300, deals=[deal] * 300, log="games")], seed=2)
    war.generate(random_, [war.Plan(rules(4, 1), 300, log="games")], seed=2)
    war.generate(every, [war.Plan(rules(4, 1), 24, all_deals=True, log="games")], seed=2)
    code, _, err = run_main(monkeypatch, capsys, "generate", "--from", random_, "--where", "battles > 4",
                            "--out", copied, "-q")
    assert code == 0, err

    def rows(sample):
        return war.query(sample, name="vs_exact", params={"solution": str(out)}).to_pylist()

    assert rows(random_) and rows(every)
    assert rows(explicit) == [] and rows(copied) == []


def test_an_out_that_cannot_be_made_is_refused_before_the_solve(tmp_path, monkeypatch, capsys):
    """`--out FILE/x` solved the whole deck (45 minutes for 2x6) and only then said it could not
    make the folder: the work was lost."""
    (tmp_path / "file").write_text("x")
    code, out, err = run_main(monkeypatch, capsys, "solve", "--set", "ranks=2", "--set", "suits=2",
                              "--out", tmp_path / "file" / "x")
    assert code != 0 and "is a file" in err and err.count("\n") == 1 and not out, (out, err)


# ---------------------------------------------------------------- war solve's output and its threads


def test_a_solution_is_written_when_stdout_is_closed_early(tmp_path):
    """`war solve --out DIR | true`: the figures were printed before the solution was written,
    so a closed pipe ended the command, with exit 0 and no DIR."""
    import subprocess
    import sys

    out = tmp_path / "s"
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "solve", "-q", "--set", "ranks=3", "--set", "suits=2",
                             "--set", "war_down=0", "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before the first line
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert war.validate_solution(out).ok


def test_a_reader_of_games_given_a_solution_says_so(solved):
    """war.validate (of games) said a solution folder had "no manifest.json (nor solution.json)"."""
    with pytest.raises(war.DatasetError, match="is a solution of war solve, not a dataset of games"):
        war.validate(solved)


def test_p_capped_is_said_a_bound_when_the_sweeps_stop_before_the_cap():
    from pipeline.solve.figures import lines

    short = [line for line in lines(solve(rules(2, 2), tol=0.9999)) if "P(capped)" in line][0]
    assert "<= 0.167" in short and "a bound" in short and "3 battles" in short
    capped = [line for line in lines(solve(rules(2, 2, max_battles=3))) if "P(capped)" in line][0]
    assert "<=" not in capped and "0.167" in capped


def test_a_small_chain_is_swept_on_one_thread_and_the_threads_are_given_back():
    import numba

    from pipeline.solve.solver import THREADED_MOVES, _threads_for

    before = numba.get_num_threads()
    with _threads_for(THREADED_MOVES - 1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before
    with _threads_for(THREADED_MOVES):
        assert numba.get_num_threads() == before


@pytest.mark.parametrize("args", [["solve", "--from", "{out}", "--query", "deal", "--deal", "999"],
                                  ["query", "{out}", "solved_deal", "--param", "deal=-1"]], ids=["solve", "query"])
def test_a_deal_out_of_range_is_said_without_sql(solved, monkeypatch, capsys, args):
    """It was `error: SQL error: Invalid Input Error: deal 999 is not a deal of this deck ...`."""
    code, _, err = run_main(monkeypatch, capsys, *[a.format(out=solved) for a in args])
    assert code == 2 and err.count("\n") == 1 and "not a deal of this deck" in err and "SQL" not in err, err


@pytest.mark.parametrize("name", ["solution.json", "deals.parquet"])
def test_a_solutions_own_files_are_no_output(small, tmp_path, monkeypatch, capsys, name):
    """`war query ... -o SOL/solution.json --overwrite` replaced a solution's manifest (and a
    report or a query's Parquet its files), where the same over a games dataset's manifest was
    refused: a solution's own files are war solve's alone (hostile-i 5). Beside them is the user's."""
    out = tmp_path / "s"
    war.write_solution(out, small)
    before = (out / name).read_bytes()
    for args in (["query", out, "solved_deck", "-f", "json"], ["report", out]):
        code, _, err = run_main(monkeypatch, capsys, *args, "-o", out / name, "--overwrite")
        assert code != 0 and "only war solve writes" in err and err.count("\n") == 1, err
    assert (out / name).read_bytes() == before and war.validate_solution(out).ok
    code, _, err = run_main(monkeypatch, capsys, "query", out, "solved_deck", "-f", "json", "-o", out / "mine.json")
    assert code == 0, err
