"""A search that starts from known deals (`war search --start FILE`, jobs.search.read_start and
seed_pools): a deals file's or a records file's deals of the search's rule set go into every
searcher's pool, unpolished, played again and checked against what their line lists; a file
that is missing, malformed, of another rule set or another deal is refused by its line, in one
line, before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clikit import assert_one_line_error, run_main
from pipeline.errors import DealError
from pipeline.jobs.records import read_records
from pipeline.jobs.search import read_start, search
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules

pytest.importorskip("numba")

RECORDS = Path(__file__).resolve().parent.parent / "data" / "records.jsonl"
OPEN = ("--set", "ranks=6", "--set", "pickup=natural", "--set", "war_down=0")
RULES = build_rules("classic", {"ranks": "6", "pickup": "natural", "war_down": "0"})


def held() -> dict:
    """The records file's line of 4 suits of 6 ranks, natural pickup (1,001 battles)."""
    return next(x for x in read_records(RECORDS) if x["rules"] == RULES.label and x["record"] == "battles")


def deals_line(line: dict) -> str:
    return json.dumps({"piles": line["piles"], "set_aside": line["set_aside"]}, ensure_ascii=False) + "\n"


def nothing_written(tmp_path: Path) -> bool:
    return not any(p.name.startswith("r") for p in tmp_path.iterdir())


@pytest.mark.parametrize("kind", ["records", "deals"])
def test_a_search_started_from_a_known_deal_keeps_it_and_polishes_it(tmp_path, monkeypatch, capsys, kind):
    line = held()
    start = tmp_path / "start.jsonl"
    if kind == "records":
        start = RECORDS  # every deck's lines: the others are passed over
    else:
        start.write_text(deals_line(line), encoding="utf-8")
    code, out, err = run_main(monkeypatch, capsys, "search", *OPEN, "--rounds", "1", "--searchers", "2",
                              "--keep", "3", "--out", tmp_path / "r", "--start", start, "-q")
    assert code == 0, err
    assert int(out.splitlines()[2].split()[1].replace(",", "")) >= line["battles"]
    assert validate(tmp_path / "r").ok
    save = json.loads((tmp_path / "r.search.json").read_text(encoding="utf-8"))
    assert save["sessions"][0].endswith(f"--start {start} -q")
    assert all(max(row[0] for row in state["rows"]) >= line["battles"] for state in save["states"])


def test_a_resumed_search_started_again_polishes_its_deal_once_more(tmp_path):
    """A deal already in the pool (by its ranks) is not put in twice: it is marked unpolished."""
    start = tmp_path / "start.jsonl"
    start.write_text(deals_line(held()), encoding="utf-8")
    search(RULES, rounds=1, searchers=1, keep=3, state=tmp_path / "r.search.json", start=start)
    found = search(RULES, rounds=2, searchers=1, keep=3, state=tmp_path / "r.search.json", resume=True, start=start)
    state = json.loads((tmp_path / "r.search.json").read_text(encoding="utf-8"))["states"][0]
    ranks = [tuple(r) for r, row in zip(state["pool"], state["rows"]) if row[0] >= 0]
    assert len(ranks) == len(set(ranks)) and found.records[0].battles >= held()["battles"]


def test_the_deals_of_a_file_are_read_by_their_ranks_as_the_rule_set_deals():
    line = held()
    (deal,) = read_start(RECORDS, RULES)
    assert deal.where.startswith("records.jsonl line ") and deal.stated == (line["battles"], line["cards_laid"], "win")
    assert sorted(deal.ranks) == sorted(r for r in range(6) for _ in range(4))


def lines_of(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "start.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def other_rules(tmp_path):
    line = next(x for x in read_records(RECORDS) if x["rules"] != RULES.label)
    return lines_of(tmp_path, json.dumps(line, ensure_ascii=False) + "\n"), f"start.jsonl line 1: a deal of {line['rules']}"


def other_deck(tmp_path):
    return lines_of(tmp_path, '{"piles": [["1♣", "2♣"], ["3♣", "4♣"]]}\n'), "start.jsonl line 1: not a whole deck"


def malformed(tmp_path):
    return lines_of(tmp_path, deals_line(held()) + "{piles\n"), "start.jsonl line 2: not JSON"


def no_piles(tmp_path):
    return lines_of(tmp_path, '{"deal": 1}\n'), "start.jsonl line 1: wants an object with `piles`"


def missing(tmp_path):
    return tmp_path / "nowhere.jsonl", "cannot read start file"


def not_utf8(tmp_path):
    path = tmp_path / "start.jsonl"
    path.write_bytes(b"\xff\xfe" + deals_line(held()).encode())
    return path, "cannot read start file"


def empty(tmp_path):
    return lines_of(tmp_path, "\n"), "holds no deal"


def misstated(tmp_path):
    line = {**held(), "battles": held()["battles"] + 1}
    return lines_of(tmp_path, json.dumps(line, ensure_ascii=False) + "\n"), "start.jsonl line 1: its deal plays 1,001 battles"


def uneven(tmp_path):
    piles = held()["piles"]
    line = {"piles": [piles[0] + piles[1][:2], piles[1][2:]]}
    return lines_of(tmp_path, json.dumps(line, ensure_ascii=False) + "\n"), "its piles hold 14, 10 cards"


@pytest.mark.parametrize("case", [other_rules, other_deck, malformed, no_piles, missing, not_utf8, empty, misstated, uneven])
def test_a_start_file_war_cannot_start_from_is_refused_by_its_line_and_nothing_is_written(
        tmp_path, monkeypatch, capsys, case):
    path, said = case(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "search", *OPEN, "--rounds", "1", "--out", tmp_path / "r",
                              "--records", tmp_path / "records.jsonl", "--start", path, "-q")
    assert_one_line_error(code, out, err, mentions=said)
    assert nothing_written(tmp_path)
    with pytest.raises(DealError):
        search(RULES, rounds=1, searchers=1, state=tmp_path / "r.search.json", start=path)
    assert nothing_written(tmp_path)


def test_more_start_deals_than_a_pool_holds_are_refused(tmp_path):
    path = lines_of(tmp_path, deals_line(held()) * 17)
    with pytest.raises(DealError, match="holds 17 deals of this rule set; a searcher's pool holds 16"):
        search(RULES, rounds=1, searchers=1, keep=3, state=tmp_path / "r.search.json", start=path)
    assert nothing_written(tmp_path)
