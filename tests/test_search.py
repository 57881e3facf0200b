"""Records by search (jobs.search, `war search`): random deals then local search on the compiled
engine find long games and cycles; the records are explicit deals in a dataset that replays and
validates; a search of a number of rounds is a pure function of its arguments."""

from __future__ import annotations

import pytest

from pipeline.errors import RulesError
from pipeline.jobs.query import run
from pipeline.jobs.replay import replay_game
from pipeline.jobs.search import search, write_records
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules

pytest.importorskip("numba")

TEN = build_rules("classic", {"ranks": "10", "suits": "1", "pickup": "winner_first"})


def test_the_longest_games_found_replay_to_their_length_and_validate(tmp_path):
    records = search(TEN, rounds=30, searchers=2, keep=4, seed=7)
    assert len(records) == 4 and [r.score for r in records] == sorted((r.score for r in records), reverse=True)
    assert all(r.outcome in ("win", "draw") and r.score == r.battles for r in records)
    assert records[0].score <= 49  # the longest game that ends, over every deal (tests/test_all_deals.py)
    write_records(tmp_path / "rec", TEN, records)
    assert validate(tmp_path / "rec").ok
    lengths = run(tmp_path / "rec", sql="SELECT battles FROM games ORDER BY game_id").column(0).to_pylist()
    assert lengths == [r.battles for r in records]
    assert len(replay_game(tmp_path / "rec", 0).battles) == records[0].battles


def test_a_search_for_a_cycle_finds_deals_that_cycle():
    records = search(TEN, goal="cycle", rounds=5, searchers=1, keep=3, seed=1)
    assert records and all(r.outcome == "cycle" and r.score == 1 for r in records)


def test_a_search_of_rounds_is_a_pure_function_of_its_arguments():
    assert search(TEN, rounds=10, searchers=2, keep=3, seed=3) == search(TEN, rounds=10, searchers=2, keep=3, seed=3)
    assert search(TEN, rounds=10, searchers=2, keep=3, seed=3, workers=2) == \
        search(TEN, rounds=10, searchers=2, keep=3, seed=3)


@pytest.mark.parametrize("kwargs, words", [
    ({"goal": "shortest"}, "`goal` is longest or cycle"),
    ({"rounds": None}, "`rounds` or `seconds`"),
    ({"rounds": 0}, "`rounds` must be an integer of at least 1"),
    ({"keep": 0}, "`keep` must be"),
])
def test_bad_arguments_are_one_line(kwargs, words):
    with pytest.raises(RulesError, match=words):
        search(TEN, **{"rounds": 5, **kwargs})


def test_a_rule_set_the_compiled_engine_does_not_play_is_refused(monkeypatch):
    monkeypatch.setenv("WAR_ENGINE", "reference")
    with pytest.raises(RulesError, match="compiled engine does not play it"):
        search(TEN, rounds=1)


def test_a_search_that_finds_nothing_says_how_many_deals_it_played():
    """No deal of four cards of one suit cycles (24 deals, each met many times over)."""
    four = build_rules("classic", {"ranks": "4", "suits": "1", "pickup": "winner_first"})
    with pytest.raises(RulesError, match=r"played 2,05\d deals and found none that cycles; nothing written"):
        search(four, goal="cycle", rounds=4, searchers=2)


@pytest.mark.parametrize("folder, overwrite, said", [
    ("data", False, "already holds data (use --overwrite"),
    ("file", False, "is a file, not a folder"),
    ("foreign", True, "holds files that are not a war dataset"),
])
def test_war_search_refuses_its_out_before_it_searches(tmp_path, monkeypatch, capsys, folder, overwrite, said):
    """An --out that the records could not be written to is refused before the search, which may
    run for hours, not after it."""
    import pipeline.jobs.search as jobs
    from clikit import assert_one_line_error, run_main

    write_records(tmp_path / "data", TEN, search(TEN, rounds=2, keep=1))
    (tmp_path / "file").write_text("x")
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("mine")

    def searched(*args, **kwargs):
        raise AssertionError("searched before --out was checked")

    monkeypatch.setattr(jobs, "search", searched)
    code, out, err = run_main(monkeypatch, capsys, "search", "--set", "ranks=10", "--set", "suits=1", "--rounds", "2",
                              "--out", tmp_path / folder, "-q", *(["--overwrite"] if overwrite else []))
    assert_one_line_error(code, out, err, mentions=said)
    assert (tmp_path / "foreign" / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("args, said", [
    (("--workers", "0"), "--workers must be between 1 and 256, got 0"),
    (("--workers", "257"), "--workers must be between 1 and 256, got 257"),
    (("--seconds", "0"), "--seconds must be a number of seconds above 0"),
    (("--seconds", "-2"), "--seconds must be a number of seconds above 0"),
    (("--seconds", "nan"), "--seconds must be a number of seconds above 0"),
    (("--rounds", "0"), "--rounds must be an integer of at least 1"),
])
def test_war_search_refuses_bad_arguments_before_it_compiles(tmp_path, monkeypatch, capsys, args, said):
    """A search's arguments are refused before the engine is prepared (up to 10 s of compiling)
    or a deal played, and nothing is written."""
    import pipeline.cli.search as cli_search
    from clikit import assert_one_line_error, run_main

    def prepared(*args, **kwargs):
        raise AssertionError("the engine was prepared before the arguments were checked")

    monkeypatch.setattr(cli_search, "prepare_engine", prepared)
    code, out, err = run_main(monkeypatch, capsys, "search", "--set", "ranks=10", "--set", "suits=1",
                              *args, "--out", tmp_path / "records", "-q")
    assert_one_line_error(code, out, err, mentions=said)
    assert not (tmp_path / "records").exists()
