"""The notebook face, used as a hostile pass used it (/work/runs/hostile-a.md): each wrong argument
is a one-line WarError naming it, before anything is read or written, never a silently wrong answer,
a raw Python error or a killed process."""

from __future__ import annotations

import pytest

import pipeline as war
from pipeline.errors import DatasetError, QueryError, RulesError

pytest.importorskip("numba")

OUTSIDE = "SELECT count(*) AS n FROM read_text('/etc/hostname')"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    out = tmp_path_factory.mktemp("face") / "ds"
    war.generate(out, [war.Plan(war.build_rules("classic"), 20)], seed=1)
    return out


def test_allow_read_as_one_path_is_that_path_not_its_characters(root, tmp_path, monkeypatch):
    """`allow_read="/t"` was read as the paths "/" and "t": with a folder `t` where the query ran,
    the whole disk was open to it, though "/t" does not exist and ["/t"] was refused."""
    (tmp_path / "t").mkdir()
    monkeypatch.chdir(tmp_path)
    for given in ("/t", ["/t"]):
        with pytest.raises(QueryError, match="`allow_read` '/t' does not exist"):
            war.query(root, sql=OUTSIDE, allow_read=given)
    with pytest.raises(QueryError, match="outside the dataset"):  # "t" exists: it alone is open
        war.query(root, sql=OUTSIDE, allow_read="t")
    assert war.query(root, sql=OUTSIDE, allow_read="/etc/hostname").to_pylist() == [{"n": 1}]
    for wrong, said in ((b"/etc", "a path or a list of paths"), (5, "a path or a list of paths"), ([5], "holds paths")):
        with pytest.raises(QueryError, match=said):
            war.query(root, sql="SELECT 1", allow_read=wrong)


def test_a_query_of_no_dataset_is_refused_not_answered_from_empty_views(root):
    """war.query(None, ...) (an unset variable) answered "0 games"; describe_query still tells a
    query's columns without a dataset."""
    with pytest.raises(DatasetError, match="no dataset given"):
        war.query(None, sql="SELECT count(*) AS n FROM games")
    with pytest.raises(DatasetError, match="no dataset given"):
        war.query(None, name="game_length")
    assert "battles" in war.describe_query(None, name="longest_games").column("column").to_pylist()


@pytest.mark.parametrize("call, said", [
    (lambda r: war.query(r, name="longest_games", params=["limit=5"]), "`params` is a mapping"),
    (lambda r: war.query(r, sql=b"SELECT 1"), "`sql` is a text"),
    (lambda r: war.query(r, name=7), "`name` is a text"),
])
def test_arguments_of_the_wrong_type_are_named(root, call, said):
    with pytest.raises(QueryError, match=said) as caught:
        call(root)
    assert "\n" not in str(caught.value)


def test_a_plan_s_arguments_are_checked_when_it_is_made():
    """Plan(rules, n, log="none") failed later inside the manifest's model with four lines of
    pydantic; Plan("classic", n) with an AttributeError."""
    rules = war.build_rules("classic")
    with pytest.raises(RulesError, match="`log` is events, games or counts, got 'none'"):
        war.Plan(rules, 10, log="none")
    with pytest.raises(RulesError, match=r"`rules` is a rule set \(war.build_rules\), not 'classic'"):
        war.Plan("classic", 10)


def test_generate_refuses_what_the_command_line_refuses_before_writing(tmp_path):
    """The library took the same rule set twice (every game stored twice and counted twice by
    every named query, and validate passed it), and every deal of a 52-card deck (the process
    died of a segfault, leaving an unfinished dataset); a lone Plan raised a TypeError."""
    rules = war.build_rules("classic")
    cases = [
        ([war.Plan(rules, 10), war.Plan(rules, 10)], RulesError, "the same rule set is given twice"),
        ([war.Plan(rules, 10, all_deals=True)], RulesError, "more than 10,000,000,000"),
        (war.Plan(rules, 10), RulesError, r"`plans` is a list of Plans, not one Plan"),
    ]
    for plans, error, said in cases:
        with pytest.raises(error, match=said):
            war.generate(tmp_path / "d", plans, seed=0)
        assert not (tmp_path / "d").exists()
    steal = war.build_rules("steal")  # one rule set in two seatings is two rule sets of games
    war.generate(tmp_path / "s", [war.Plan(steal, 4, policies=["steal:always", "steal:never"]),
                                  war.Plan(steal, 4, policies=["steal:never", "steal:always"])], seed=0)
    assert war.query(tmp_path / "s", sql="SELECT count(*) AS n FROM games").to_pylist() == [{"n": 8}]


@pytest.mark.parametrize("params, said", [
    ({"z": "nan"}, "wants a finite number"), ({"z": "inf"}, "wants a finite number"),
    ({"z": "-1"}, "must be positive"), ({"z": "0"}, "must be positive"),
])
def test_a_bound_of_a_parameter_holds_whatever_columns_are_asked(root, params, said):
    """z=nan gave intervals of [nan, 1], and z=-1 was refused only when the interval's columns
    were asked for (the check in the SQL was pruned with them); a parameter's bound is now read
    from its declaration (`-- param: z DOUBLE = 1.96 > 0`) and checked before the query binds."""
    for columns in (None, "seat"):
        with pytest.raises(QueryError, match=said):
            with war.open_query(root, name="seat_win_interval", params=params) as result:
                if columns:
                    result.choose(columns)
                result.batches().read_all()
    assert war.query(root, name="seat_win_interval", params={"z": "2.576"}).num_rows == 2
