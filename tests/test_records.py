"""The records file (jobs.records, data/records.jsonl) and `war search`'s output: every record
war holds replays and validates to the battles and cards laid it lists; a record is replaced
only by a better one; `war search` prints a header and each deal in card labels, as replay
prints a deal, keeps its best in a records file and resumes the search saved beside --out."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from clikit import assert_one_line_error, run_main
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import run
from pipeline.jobs.records import KINDS, deal_of, keep_record, read_records, rules_of
from pipeline.jobs.validate import validate

pytest.importorskip("numba")

RECORDS = Path(__file__).resolve().parent.parent / "data" / "records.jsonl"
SIXTEEN = ("--set", "ranks=16", "--set", "suits=1", "--set", "pickup=natural", "--set", "war_down=0")


PUBLISHED = {"natural": {(16, 1), (22, 1), (24, 1), (32, 1), (48, 1), (64, 1)} | {(r, 4) for r in range(6, 14)},
             "sorted": {(r, 4) for r in range(6, 14)}}  # the decks of the README's records table (issue 53)


def test_war_holds_records_of_the_published_decks():
    """A record by battles of each deck whose published record the README sets beside war's
    (the open game, natural and sorted pickup)."""
    held = set()
    for line in read_records(RECORDS):
        rules = rules_of(line["rules"])
        if line["record"] == "battles" and rules.war_down == 0:
            held.add((rules.pickup, rules.ranks, rules.suits))
    assert {(pickup, *deck) for pickup, decks in PUBLISHED.items() for deck in decks} <= held


@pytest.mark.parametrize("number", range(len(read_records(RECORDS))))
def test_every_record_replays_and_validates_to_what_it_lists(tmp_path, number):
    """The record's deal, generated as an explicit deal (what `war generate --deals` does with
    the line), plays the battles, cards laid and outcome the line lists, and validates."""
    line = read_records(RECORDS)[number]
    rules, deal = deal_of(line)
    generate(tmp_path / "d", [Plan(rules, 1, [deal])], seed=0)
    assert validate(tmp_path / "d").ok
    row = run(tmp_path / "d", sql="SELECT battles, cards_laid, outcome, winner FROM games").to_pylist()[0]
    assert (row["battles"], row["cards_laid"], row["outcome"]) == (line["battles"], line["cards_laid"], line["outcome"])
    assert row["winner"] == (line["winner"] if line["winner"] >= 0 else None)
    assert line["record"] in KINDS and line["command"].startswith("war search ") and line["deals"] > 0


def line(rules: str, battles: int, kind: str = "battles") -> dict:
    """A records line of `rules` (pickup=natural unless it names a pickup: a line is a deal, so
    only a fixed pickup's records are kept)."""
    rules = rules if "pickup=" in rules else f"{rules} pickup=natural"
    return {"rules": rules, "record": kind, "battles": battles, "cards_laid": 2 * battles, "outcome": "win",
            "winner": 0, "piles": [["1♣"], ["2♣"]], "set_aside": []}


def test_a_record_is_replaced_only_by_a_better_one(tmp_path):
    path = tmp_path / "records.jsonl"
    assert keep_record(path, line("classic ranks=6 suits=1 pickup=natural", 20)) is None
    assert keep_record(path, line("classic ranks=4 suits=1 pickup=natural", 9)) is None
    assert keep_record(path, line("classic ranks=6 suits=1 pickup=natural", 18))["battles"] == 20
    assert keep_record(path, line("classic ranks=6 suits=1 pickup=natural", 19, "cards laid")) is None
    assert keep_record(path, line("classic ranks=6 suits=1 pickup=natural", 25)) is None
    assert [(x["rules"], x["record"], x["battles"]) for x in read_records(path)] == [
        ("classic ranks=4 suits=1 pickup=natural", "battles", 9),
        ("classic ranks=6 suits=1 pickup=natural", "battles", 25),
        ("classic ranks=6 suits=1 pickup=natural", "cards laid", 19)]


def test_a_rule_set_written_otherwise_is_the_same_records_line(tmp_path):
    """Options in another order, or a default spelt out, name the line's rule set as `war search
    --start` reads it: a better record replaces that line, a worse one is told of it, and the
    file never holds two lines of one rule set and kind."""
    path = tmp_path / "records.jsonl"
    assert keep_record(path, line("classic suits=1 ranks=6 pickup=natural", 20)) is None
    assert keep_record(path, line("classic ranks=6 suits=1 war_down=3 pickup=natural", 18))["battles"] == 20
    assert keep_record(path, line("classic ranks=6 suits=1 pickup=natural", 25)) is None
    assert keep_record(path, line("classic ranks=6 suits=2 pickup=natural", 5)) is None  # another deck: a line of its own
    assert [(x["rules"], x["battles"]) for x in read_records(path)] == [
        ("classic ranks=6 suits=1 pickup=natural", 25), ("classic ranks=6 suits=2 pickup=natural", 5)]


def test_a_damaged_records_file_is_refused_by_line_before_the_search(tmp_path, monkeypatch, capsys):
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps(line("classic ranks=6 suits=1 pickup=natural", 20)) + "\n{\"rules\": 1}\n", encoding="utf-8")
    code, out, err = run_main(monkeypatch, capsys, "search", *SIXTEEN, "--rounds", "1", "--out", tmp_path / "r",
                              "--records", path, "-q")
    assert_one_line_error(code, out, err, mentions="records.jsonl line 2: not a record")
    assert not (tmp_path / "r").exists()


def test_war_search_prints_a_header_and_card_labels_and_keeps_its_best(tmp_path, monkeypatch, capsys):
    path = tmp_path / "records.jsonl"
    code, out, err = run_main(monkeypatch, capsys, "search", *SIXTEEN, "--rounds", "1", "--searchers", "1",
                              "--keep", "2", "--out", tmp_path / "r", "--records", path, "-q")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "Longest games that end, by battles · classic war_down=0 pickup=natural ranks=16 suits=1"
    assert lines[1].split() == ["#", "battles", "cards", "laid", "outcome"]
    assert lines[3].startswith("        seat 0 (8): ") and "♣" in lines[3] and lines[4].startswith("        seat 1 (8): ")
    best = read_records(path)[0]
    assert lines[3].split(": ")[1].split() == best["piles"][0]
    assert best["command"] == "war search " + " ".join(SIXTEEN) + f" --rounds 1 --searchers 1 --keep 2 --out " \
                                                                 f"{tmp_path / 'r'} --records {path} -q"
    assert f"kept in {path}: {best['battles']} battles" in out
    assert (tmp_path / "r.search.json").exists() and validate(tmp_path / "r").ok

    code, out, err = run_main(monkeypatch, capsys, "search", *SIXTEEN, "--rounds", "1", "--searchers", "1",
                              "--out", tmp_path / "r", "--records", path, "-q")
    assert_one_line_error(code, out, err, mentions="a search is saved in")
    code, out, err = run_main(monkeypatch, capsys, "search", *SIXTEEN, "--rounds", "2", "--searchers", "1",
                              "--keep", "2", "--out", tmp_path / "r", "--records", path, "--resume", "-q")
    assert code == 0, err
    assert "over 2 sessions" in out and validate(tmp_path / "r").ok
    assert read_records(path)[0]["battles"] >= best["battles"]


@pytest.mark.parametrize("args, said", [
    (("--resume",), "no search saved in"),
    (("--measure", "wars"), "invalid value for --measure"),
])
def test_war_search_refuses_what_it_cannot_resume_or_measure(tmp_path, monkeypatch, capsys, args, said):
    code, out, err = run_main(monkeypatch, capsys, "search", *SIXTEEN, "--rounds", "1", "--out", tmp_path / "r",
                              *args, "-q")
    assert_one_line_error(code, out, err, mentions=said)
    assert not (tmp_path / "r").exists()


def _keep_many(path: str, first: int, count: int) -> None:
    for ranks in range(first, first + count):
        keep_record(path, line(f"classic ranks={ranks} suits=1", ranks))


def test_searches_keeping_records_at_once_lose_none(tmp_path):
    """Searches run side by side with one `--records` file each read it, put their line in and
    write it whole: taken in turns (a lock on its folder), no search's line is lost to another's
    write of what it read before."""
    import multiprocessing

    path = tmp_path / "records.jsonl"
    ctx = multiprocessing.get_context("fork")
    writers = [ctx.Process(target=_keep_many, args=(str(path), 2 + 25 * i, 25)) for i in range(6)]
    for w in writers:
        w.start()
    for w in writers:
        w.join(60)
        if w.is_alive():
            w.kill()
            w.join()
    assert all(w.exitcode == 0 for w in writers)
    assert sorted(x["battles"] for x in read_records(path)) == list(range(2, 2 + 25 * 6))



def test_a_line_of_a_pickup_that_draws_is_refused(tmp_path):
    """keep_record refuses a line of a rule set whose pickup draws (war search refuses such a
    --records at its start: test_fault_corpus_search_saves): the file is as it was."""
    from pipeline.errors import RulesError

    path = tmp_path / "records.jsonl"
    assert keep_record(path, line("classic ranks=6 suits=1 pickup=natural", 20)) is None
    before = path.read_bytes()
    for pickup in ("shuffled", "pooled"):
        with pytest.raises(RulesError, match=f"pickup={pickup} draws"):
            keep_record(path, line(f"classic ranks=6 suits=1 pickup={pickup}", 25))
    with pytest.raises(RulesError, match="pickup=shuffled draws"):  # the default pickup
        keep_record(path, {**line("classic ranks=6 suits=1", 25), "rules": "classic ranks=6 suits=1"})
    assert path.read_bytes() == before


@pytest.mark.parametrize("variant, options, said", [
    ("steal", {"ranks": "4", "suits": "2"}, "variant 'steal' draws the order won cards join a pile (its rule, not"),
    ("arneson", {"ranks": "5", "suits": "2", "pickup": "natural"}, "seat 0 plays hand:random"),
    ("classic", {"ranks": "6", "suits": "1"}, "pickup=shuffled draws"),
])
def test_a_game_the_seed_decides_too_keeps_no_record_and_is_searched_for_no_cycle(variant, options, said):
    """Arneson's War under a fixed pickup kept a record (47 battles) its deal played in 9 to 53
    battles by seed, its default policy drawing; Steal War was advised a fixed pickup it does not
    take. Whatever draws (a pickup, a default policy), no records line and no cycle search."""
    from pipeline.errors import RulesError
    from pipeline.jobs.records import check_kept
    from pipeline.jobs.search import check_search
    from pipeline.model.rules import build_rules

    rules = build_rules(variant, options)
    with pytest.raises(RulesError, match=re.escape(said)) as caught:
        check_kept(rules)
    assert ("fixed pickup" in str(caught.value)) == (variant == "classic"), caught.value
    with pytest.raises(RulesError, match=re.escape(said)):
        check_search(rules, "cycle", 1)
    check_kept(build_rules("classic", {**options, "pickup": "natural"}) if variant == "classic" else
               build_rules("classic", {"ranks": "4", "suits": "2", "pickup": "natural"}))  # the deal decides


OPEN = ("classic", {"ranks": "6", "suits": "4", "pickup": "natural", "war_down": "0"})  # the open duel


def test_a_records_line_names_the_session_that_found_its_deal(tmp_path):
    """Hostile pass D: a records line kept the first session's command (`--rounds 4000`) when its
    deal was found by a `--resume` session run with other arguments (`--seconds 6`). Each record
    now names the session that found it, through the save, and a save of an older war (no
    found_in) reads as its first session's, as that war said."""
    from pipeline.jobs.records import entry
    from pipeline.jobs.search import search
    from pipeline.model.rules import build_rules

    rules, state = build_rules(*OPEN), tmp_path / "s.search.json"
    first = search(rules, rounds=1, searchers=1, keep=3, seed=3, state=state, command="war search (first)")
    later = search(rules, rounds=2, searchers=1, keep=3, seed=3, state=state, resume=True, command="war search (later)")
    assert later.records[0].score > first.records[0].score  # the later session found the best deal
    assert entry(rules, later.records[0], later, "battles")["command"] == "war search (later)"
    kept = [r for r in later.records if r in first.records]
    assert kept and all(entry(rules, r, later, "battles")["command"] == "war search (first)" for r in kept)
    again = search(rules, rounds=2, searchers=1, keep=3, seed=3, state=state, resume=True, command="war search (3)")
    assert again.sessions[-1] == "war search (3)"
    assert [again.found_by(r) for r in again.records] == [later.found_by(r) for r in later.records]

    saved = json.loads(state.read_text(encoding="utf-8"))
    del saved["found_in"]  # as an older war saved it
    state.write_text(json.dumps(saved), encoding="utf-8")
    old = search(rules, rounds=2, searchers=1, keep=3, seed=3, state=state, resume=True, command="war search (4)")
    assert {old.found_by(r) for r in old.records} == {"war search (first)"}
