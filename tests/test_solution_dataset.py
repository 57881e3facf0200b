"""A solution of war solve read by the rest of war (issue 53, item 2): war query's named queries
and SQL over its views, a sample of the same rules beside it (vs_exact), war validate by the
balance equations, war report's exact block and war serve. Small decks: one suit of 4 ranks and
2 suits of 3 ranks, solved in seconds."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction

import pytest

import pipeline as war
from clikit import ok, run_main
from solutionkit import changed_copy, rules
from pipeline.model.all_deals import enumerated_deal
from pipeline.solve.solver import solve


@pytest.fixture(scope="module")
def one_suit(tmp_path_factory):
    """One suit of 4 ranks, exact, every position stored."""
    out = tmp_path_factory.mktemp("solved") / "s14"
    solution = solve(rules(4, 1), exact=True)
    war.write_solution(out, solution, positions=True)
    return out, solution


@pytest.fixture(scope="module")
def two_suits(tmp_path_factory):
    """2 suits of 3 ranks with 1 card down, exact, deals only (no positions)."""
    out = tmp_path_factory.mktemp("solved") / "s23"
    solution = solve(rules(3, 2, war_down=1), exact=True)
    war.write_solution(out, solution)
    return out, solution


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """2,000 games of one suit of 4 ranks: the rules of `one_suit`, sampled."""
    out = tmp_path_factory.mktemp("sample") / "g14"
    war.generate(out, [war.Plan(rules(4, 1), 2000, log="games")], seed=5)
    return out


# ---------------------------------------------------------------- war query


def test_the_deck_query_gives_the_fractions_in_full(one_suit):
    out, solution = one_suit
    deck = war.query(out, name="solved_deck").to_pylist()[0]
    figures = solution.deck()
    assert Fraction(deck["exact_mean_battles"]) == figures["exact_battles"] == 4  # (n/2)^2, published
    assert Fraction(deck["exact_p_win0"]) == figures["exact_p_win0"]
    assert Fraction(deck["exact_p_draw"]) == 1 - figures["exact_p_win0"] - figures["exact_p_win1"]
    assert deck["deals"] == len(solution.chain.deal_rows) and deck["exact"] is True
    assert abs(deck["mean_battles"] - 4) <= deck["battles_bound"]
    assert deck["rules_id"] == rules(4, 1).rules_id


def test_a_deal_is_its_piles_and_its_values(one_suit):
    out, solution = one_suit
    counts = solution.chain.counts
    for d in range(len(solution.chain.deal_rows)):
        row = war.query(out, name="solved_deal", params={"deal": str(d)}).to_pylist()
        assert len(row) == 1 and row[0]["deal"] == d
        dealt = enumerated_deal(rules(4, 1), d)
        ranks = [[c // 1 for c in pile] for pile in dealt.piles]  # one suit: a card's code is its rank
        assert [row[0]["pile0"], row[0]["pile1"]] == [" ".join(map(str, p)) for p in ranks]
        r, flip = solution.chain.deal_rows[d:d + 1], solution.chain.deal_flips[d:d + 1]
        assert Fraction(row[0]["exact_mean_battles"]) == solution.exact_at("battles", r, flip)[0]
    assert len(counts) == 4
    with pytest.raises(war.QueryError, match="not a deal of this deck"):
        war.query(out, name="solved_deal", params={"deal": "24"})


def test_the_odds_by_top_cards_are_the_deals_grouped(one_suit):
    out, _ = one_suit
    deals = war.query(out, sql="SELECT top_cards, p_win0, mean_battles FROM deals").to_pylist()
    tops = war.query(out, name="solved_by_top_cards").to_pylist()
    assert sum(t["deals"] for t in tops) == len(deals)
    assert sum(Fraction(t["share_exact"]) for t in tops) == 1
    for t in tops:
        mine = [d for d in deals if d["top_cards"] == t["top_cards"]]
        assert len(mine) == t["deals"]
        assert t["p_win0"] == pytest.approx(sum(d["p_win0"] for d in mine) / len(mine), abs=1e-15)


def test_the_distribution_is_the_solvers(one_suit):
    out, solution = one_suit
    dist = war.query(out, name="solved_distribution").to_pylist()
    assert [d["cdf"] for d in dist] == solution.cdf.tolist()
    assert dist[-1]["cdf"] >= 1 - solution.bound


def test_solve_from_is_the_same_named_query(one_suit):
    out, _ = one_suit
    assert war.solution_query(out, "by_top_cards").equals(war.query(out, name="solved_by_top_cards"))
    result = ok("solve", "--from", out, "--query", "deal", "--deal", "3")
    assert result.output.splitlines()[0].startswith("deal\tposition\ttop_cards\tpile0")


def test_list_of_a_solution_is_its_queries(one_suit):
    out, _ = one_suit
    names = [line.split()[0] for line in ok("query", out, "--list").output.splitlines()]
    assert {"solved_deck", "solved_deal", "solved_by_top_cards", "solved_distribution"} == set(names)
    assert not set(names) & set(war.named_queries())
    # vs_exact asks games beside a solution: listed with the games' queries, not the solution's
    games = [line.split()[0] for line in ok("query", "--list").output.splitlines()]
    assert "vs_exact" in games and set(war.named_queries()) <= set(games)


def test_list_of_a_folder_that_is_not_there_is_refused(tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app

    result = CliRunner().invoke(app, ["query", str(tmp_path / "nowhere"), "--list"])
    assert isinstance(result.exception, war.DatasetError) and "does not exist" in str(result.exception)


@pytest.mark.parametrize("args, said", [
    (["outcomes"], "asks games"),
    (["--sql", "SELECT * FROM games"], "no games view"),
    (["solved_deal", "--param", "deal=99"], "not a deal of this deck"),
])
def test_a_solution_refuses_what_it_cannot_answer(one_suit, monkeypatch, capsys, args, said):
    out, _ = one_suit
    code, _, err = run_main(monkeypatch, capsys, "query", out, *args)
    assert code != 0 and said in err and err.count("\n") == 1, err


def test_positions_of_a_solution_without_them_is_refused(two_suits, monkeypatch, capsys):
    out, _ = two_suits
    code, _, err = run_main(monkeypatch, capsys, "query", out, "--sql", "SELECT count(*) FROM positions")
    assert code != 0 and "--positions" in err and err.count("\n") == 1


def test_a_solution_query_over_games_or_nothing_is_refused(sample, tmp_path, monkeypatch, capsys):
    code, _, err = run_main(monkeypatch, capsys, "query", sample, "solved_deck")
    assert code != 0 and "not one" in err and err.count("\n") == 1
    (tmp_path / "neither").mkdir()
    for args in (["solved_deck"], ["outcomes"]):
        code, _, err = run_main(monkeypatch, capsys, "query", tmp_path / "neither", *args)
        assert code != 0 and err.count("\n") == 1, err


# ---------------------------------------------------------------- a sample beside the exact game


def test_a_sample_beside_the_exact_game(one_suit, sample):
    out, solution = one_suit
    rows = war.query(sample, name="vs_exact", params={"solution": str(out)}).to_pylist()
    games = war.query(sample, sql="SELECT outcome, winner, battles, cards_laid FROM games").to_pylist()
    n = len(games)
    by = {r["measure"]: r for r in rows}
    deck = solution.deck()
    win0 = by["P(seat 0 wins)"]
    assert win0["games"] == n and win0["exact"] == deck["p_win0"] and Fraction(win0["exact_fraction"]) == Fraction(1, 2)
    assert win0["estimate"] == sum(g["outcome"] == "win" and g["winner"] == 0 for g in games) / n
    assert by["E[battles]"]["estimate"] == pytest.approx(sum(g["battles"] for g in games) / n, rel=1e-12)
    assert Fraction(by["E[battles]"]["exact_fraction"]) == 4
    for r in rows:
        assert r["ci_low"] <= r["estimate"] <= r["ci_high"], r["measure"]
        assert r["within"] == (r["ci_low"] <= r["exact"] <= r["ci_high"]), r["measure"]
    median = next(r for r in rows if r["measure"].startswith("P(battles <="))
    t = int(median["measure"].split("<= ")[1].rstrip(")"))
    assert median["estimate"] == sum(g["battles"] <= t for g in games) / n


def test_a_sample_of_other_rules_or_no_solution_is_refused(two_suits, sample, tmp_path, monkeypatch, capsys):
    out, _ = two_suits
    code, _, err = run_main(monkeypatch, capsys, "query", sample, "vs_exact", "--param", f"solution={out}")
    assert code != 0 and "no rule set of the solution's rules" in err and "war generate -v classic" in err
    code, _, err = run_main(monkeypatch, capsys, "query", sample, "vs_exact", "--param", f"solution={tmp_path}")
    assert code != 0 and "not a solution" in err and err.count("\n") == 1
    code, _, err = run_main(monkeypatch, capsys, "query", sample, "vs_exact")
    assert code != 0 and "--param solution=" in err


def test_show_tells_the_columns_without_a_dataset():
    for name in ("solved_deck", "vs_exact"):
        text = ok("query", "--show", name).output
        assert "Columns:" in text and "exact" in text


# ---------------------------------------------------------------- war validate


def test_a_file_of_another_solution_copied_in_is_refused(one_suit, two_suits, tmp_path):
    """Another solution's deals.parquet copied in was answered from (its deals, draws and odds by
    top cards), beside this one's figures from solution.json; only validate noticed."""
    copy = tmp_path / "s14"
    shutil.copytree(one_suit[0], copy)
    assert war.query(copy, sql="SELECT count(*) FROM deals").column(0).to_pylist() == [24]
    shutil.copyfile(two_suits[0] / "deals.parquet", copy / "deals.parquet")
    for ask in ({"sql": "SELECT count(*) FROM deals"}, {"name": "solved_by_top_cards"}):
        with pytest.raises(war.DatasetError, match="deals.parquet is not the file its solution.json lists"):
            war.query(copy, **ask)


def test_a_solution_validates(one_suit, two_suits):
    for out, deep in ((one_suit[0], True), (two_suits[0], False)):
        report = war.validate_solution(out, deep=deep)
        assert report.ok, report.problems
    result = ok("validate", one_suit[0])
    assert "balance equations" in result.output and "good" in result.output


@pytest.mark.parametrize("file, column, row, change, said", [
    ("positions.parquet", "p_win0", 10, lambda v: v + 0.01, "p_win0"),
    ("positions.parquet", "exact_mean_battles", 30, lambda v: str(Fraction(v) + Fraction(1, 3)), "exact_mean_battles"),
    ("deals.parquet", "mean_laid", 3, lambda v: v + 1e-6, "deal 3: mean_laid"),
])
def test_a_tampered_value_is_named(one_suit, tmp_path, monkeypatch, capsys, file, column, row, change, said):
    out, _ = one_suit
    bad = changed_copy(out, tmp_path / "bad", file, column, row, change)
    report = war.validate_solution(bad, deep=True)
    assert not report.ok and any(said in p for p in report.problems), report.problems
    code, text, _ = run_main(monkeypatch, capsys, "validate", bad, "--deep")
    assert code == 1 and any(line.startswith("BAD ") and said in line for line in text.splitlines())


def test_a_tampered_file_fails_its_checksum(one_suit, tmp_path):
    out, _ = one_suit
    bad = changed_copy(out, tmp_path / "bad", "positions.parquet", "p_win1", 5, lambda v: v, resign=False)
    shutil.copy(out / "positions.parquet", bad / "positions.parquet")  # the same values...
    with open(bad / "positions.parquet", "ab") as fh:
        fh.write(b"\0")  # ...and a byte more
    problems = war.validate_solution(bad).problems
    assert any("positions.parquet: its SHA-256" in p for p in problems)


def test_without_positions_the_deals_are_solved_again(two_suits, tmp_path):
    out, _ = two_suits
    bad = changed_copy(out, tmp_path / "bad", "deals.parquet", "p_win1", 5, lambda v: v + 1e-4)
    report = war.validate_solution(bad)
    assert report.resolved and any(p.startswith("deal 5: p_win1") for p in report.problems), report.problems


def test_a_broken_manifest_is_one_line(one_suit, tmp_path, monkeypatch, capsys):
    out, _ = one_suit
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    (bad / "solution.json").write_text("{not json")
    code, _, err = run_main(monkeypatch, capsys, "validate", bad)
    assert code != 0 and "not a finished solution" in err and err.count("\n") == 1


# ---------------------------------------------------------------- war report, war serve


def test_the_report_has_the_exact_block(two_suits, tmp_path):
    import html
    import re

    out, solution = two_suits
    ok("report", out, "-o", tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text()
    deck = solution.deck()
    block = page.split('class="numbers figures"', 1)[1].split("</table>", 1)[0]  # the exact block's table
    cells = dict(re.findall(r'data-col="(exact_[a-z_0-9]+)" data-value="([^"]*)"', block))
    assert Fraction(json.loads(html.unescape(cells["exact_p_win0"]))) == deck["exact_p_win0"]
    assert Fraction(json.loads(html.unescape(cells["exact_mean_battles"]))) == deck["exact_battles"]
    assert "ci_low" not in page and "interval" in page  # it says why there is none
    assert f"war query {out} solved_deck" in html.unescape(page)


def test_the_server_browses_a_solution(one_suit):
    """`war serve SOLUTION` as a user starts it: its report, its SQL and named queries, a games
    page that says it has none; nothing a games dataset asks, and no other folder read."""
    from servekit import get, war_serve

    out, _ = one_suit
    with war_serve(out) as (url, _):
        status, home = get(url)
        assert status == 200 and b"War solved" in home and b'data-col="exact_mean_battles"' in home
        assert b"No games" in get(url + "games")[1]
        status, deal = get(url + "queries/solved_deal?deal=3")
        assert status == 200 and b'data-rows="1"' in deal
        status, deck = get(url + "queries/solved_deck?format=json")
        assert status == 200 and json.loads(deck)[0]["exact_mean_battles"] == "4"
        assert get(url + "sql?q=SELECT+count(*)+AS+n+FROM+positions")[0] == 200
        assert get(url + "sql?q=SELECT+*+FROM+games")[0] == 400
        assert get(url + "queries/outcomes")[0] == 404
        assert get(url + "queries/vs_exact?solution=/")[0] == 404  # no other folder read
        from browser import chromium, clean_tab

        with chromium() as browser, clean_tab(browser, allowed=(url,)) as tab:
            tab.page.goto(url)
            assert tab.page.locator("table.figures tr").count() == 6  # the header and five figures
            assert tab.page.locator("svg.distribution rect").count() > 3
            tab.page.click("text=SQL")
            tab.page.fill("#q", "SELECT deal, exact_mean_battles FROM deals ORDER BY deal")
            tab.page.click("button:has-text('Run')")
            assert tab.page.locator("table.sql-result tbody tr").count() == 24
