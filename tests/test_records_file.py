"""The records war holds (data/records.jsonl): every line is a deal of its rule set that plays,
as an explicit deal, to the numbers the line lists, and the dataset it makes validates. A
record the README or a closing note quotes is this file's, so a line that stops holding fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import run
from pipeline.jobs.records import deal_of, keep_record, read_records
from pipeline.jobs.validate import validate

RECORDS = Path(__file__).resolve().parents[1] / "data" / "records.jsonl"
LINES = read_records(RECORDS)


def test_the_records_file_holds_records():
    assert LINES, f"{RECORDS} holds no record"
    assert len({(x["rules"], x["record"]) for x in LINES}) == len(LINES)  # one a rule set and kind


@pytest.mark.parametrize("line", LINES, ids=[f"{x['rules']} {x['record']}" for x in LINES])
def test_each_record_plays_to_its_numbers_and_validates(tmp_path, line):
    rules, deal = deal_of(line)
    out = tmp_path / "record"
    generate(out, [Plan(rules, 1, deals=[deal], log="events")], seed=1)
    row = run(out, sql="SELECT outcome, battles, cards_laid, winner FROM games").to_pylist()[0]
    assert (row["outcome"], row["battles"]) == (line["outcome"], line["battles"])
    if line["record"] != "cycle":
        assert row["cards_laid"] == line["cards_laid"]
    assert validate(out).ok


def test_a_record_is_replaced_only_by_a_better_one(tmp_path):
    path = tmp_path / "records.jsonl"
    best = dict(LINES[0])
    assert keep_record(path, best) is None
    worse = {**best, "battles": best["battles"] - 1, "cards_laid": best["cards_laid"] - 2, "command": "worse"}
    assert keep_record(path, worse) == best  # the file keeps the better line, and says it
    better = {**best, "battles": best["battles"] + 1, "cards_laid": best["cards_laid"] + 2, "command": "better"}
    assert keep_record(path, better) is None
    assert [json.loads(x)["command"] for x in path.read_text(encoding="utf-8").splitlines()] == ["better"]
