"""The paths that make one game's events quick to ask for (issue 51): the events' copies packed
several files to a copy for a rule set of many files (DuckDB opens every copy's footer), a table
of a short result told whole from its one pass, and a replay that does without numba. Each must
answer exactly as the slower path did: the packed copies as events.sql's views and as one copy a
file, row for row and in the log's order; the table as its second pass told it."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline.errors import QueryError
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import event_copies, open_query, run
from pipeline.model.rules import build_rules
from pipeline.present import csv_text, output
from pipeline.present.output import write_result
from pipeline.storage.dataset import Dataset

PACK = 3  # files a rule set may have before its copies are packed, in these tests


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """Three rule sets of 11, 3 and 8 files (games of 4 a file): packed, not, and packed evenly."""
    out = tmp_path_factory.mktemp("packs") / "ds"
    generate(out, [Plan(build_rules("classic"), 44), Plan(build_rules("jokers"), 12),
                   Plan(build_rules("steal"), 32, policies=("steal:always", "steal:never"))], seed=5, shard_size=4)
    return out


@pytest.fixture
def packed(monkeypatch, tmp_path):
    """Copies in a cache of the test's own, packed beyond PACK files a rule set."""
    monkeypatch.setenv("WAR_EVENT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("WAR_EVENT_COPIES", "1")
    monkeypatch.setattr(event_copies, "PACK_FILES", PACK)
    return tmp_path / "cache"


def _copies(cache: Path) -> list[Path]:
    return sorted(p for p in cache.glob("*.parquet") if p.name.count(".") == 1)


def _reference(root, monkeypatch, sql: str):
    monkeypatch.setenv("WAR_EVENT_COPIES", "0")
    try:
        return run(root, sql=sql)
    finally:
        monkeypatch.setenv("WAR_EVENT_COPIES", "1")


def test_pack_sizes_keep_a_rule_set_of_few_files_one_copy_a_file_and_pack_the_rest_within_it(root, monkeypatch):
    monkeypatch.setattr(event_copies, "PACK_FILES", PACK)
    files = sorted(Dataset.open(root).files("events"), key=lambda f: (f.rule_set, f.first_game))
    sizes = event_copies.pack_sizes(files)
    assert sum(sizes) == len(files) and all(s >= 1 for s in sizes)
    at, per_rule_set = 0, {}
    for size in sizes:  # a copy never holds two rule sets' files
        group = files[at:at + size]
        assert len({f.rule_set for f in group}) == 1
        per_rule_set.setdefault(group[0].rule_set, []).append(size)
        at += size
    counts = {r: sum(1 for f in files if f.rule_set == r) for r in per_rule_set}
    for rule_set, got in per_rule_set.items():
        if counts[rule_set] <= PACK:
            assert got == [1] * counts[rule_set]
        else:
            assert 1 < len(got) <= PACK + 1 and max(got) > 1
    monkeypatch.setattr(event_copies, "PACK_GAMES", 4)  # a copy holds no more games than this: one file each
    assert event_copies.pack_sizes(files) == [1] * len(files)


@pytest.mark.parametrize("sql", [
    "SELECT * FROM events",
    "SELECT * FROM battles",
    "SELECT * FROM deals",
    "SELECT * FROM events WHERE game_id = 2000000021",
    "SELECT * FROM events WHERE game_id BETWEEN 17 AND 30 AND kind = 'war'",
    "SELECT rule_set, war_depth, count(*) AS n FROM battles GROUP BY ALL ORDER BY ALL",
])
def test_packed_copies_answer_as_the_sql_views_do_in_the_log_s_order(root, monkeypatch, packed, sql):
    got = run(root, sql=sql)
    assert got.equals(_reference(root, monkeypatch, sql)), sql
    files = len(Dataset.open(root).files("events"))
    assert 3 <= len(_copies(packed)) < files  # packed: fewer copies than files


def test_a_packed_copy_names_every_file_it_holds_and_is_the_same_bytes_made_again(root, packed, tmp_path, monkeypatch):
    run(root, sql="SELECT count(*) FROM events")
    first = {p.name: p.read_bytes() for p in packed.glob("*.parquet")}
    listed = sorted(Dataset.open(root).files("events"), key=lambda f: (f.rule_set, f.first_game))
    named = set()
    for copy in _copies(packed):
        sources = pq.read_metadata(copy).metadata[b"war.source"].decode().split(",")
        assert copy == event_copies.pack_path(sources)
        named.update(sources)
    assert named == {f.sha256 for f in listed}
    monkeypatch.setenv("WAR_EVENT_CACHE", str(tmp_path / "again"))
    run(root, sql="SELECT count(*) FROM events")
    assert {p.name: p.read_bytes() for p in (tmp_path / "again").glob("*.parquet")} == first


def test_a_damaged_pack_is_made_again_and_an_edited_file_of_one_refused(tmp_path, monkeypatch, packed):
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("classic"), 20)], seed=3, shard_size=2)
    want = run(out, sql="SELECT * FROM events")
    copies = _copies(packed)
    assert len(copies) < 10
    battles = event_copies.battles_path(copies[-1])
    battles.write_bytes(battles.read_bytes()[:500])  # cut short: the whole copy is made again
    assert run(out, sql="SELECT * FROM events").equals(want)
    assert pq.read_metadata(battles).num_rows > 0
    events = out / sorted(Dataset.open(out).files("events"), key=lambda f: f.first_game)[-1].path
    table = pq.read_table(events)
    pq.write_table(table.slice(0, table.num_rows - 1), events)
    with pytest.raises(QueryError, match="does not match the checksum its manifest records"):
        run(out, sql="SELECT count(*) FROM events")


def _csv(root, sql: str) -> bytes:
    buf = io.BytesIO()

    class Out:
        buffer = buf

    saved, sys.stdout = sys.stdout, Out()
    try:
        write_result(open_query(root, sql=sql), "csv")
    finally:
        sys.stdout = saved
    return buf.getvalue()


def test_events_to_csv_read_from_packed_copies_are_the_same_bytes(root, monkeypatch, packed):
    """copy_scan reads the packs' row groups in order, as it read one copy a file."""
    from pipeline.jobs.query import copy_scan

    monkeypatch.setattr(csv_text, "SMALL_ROWS", 0)
    with open_query(root, sql="SELECT * FROM events") as result:
        assert copy_scan.scan_of(result) is not None and len(result.session.copies) < 22
    got = _csv(root, "SELECT * FROM events")
    monkeypatch.setenv("WAR_EVENT_COPIES", "0")
    assert got == _csv(root, "SELECT * FROM events")


def _table_text(root, sql: str, **kw) -> str:
    sink = io.BytesIO()
    with open_query(root, sql=sql) as result:
        output.write_table(result, sink, kw.get("limit", output.TABLE_ROWS), 200)
    return sink.getvalue().decode()


TABLES = [
    "SELECT * FROM events WHERE game_id = 2000000021",  # one game: game_id and variant one value
    "SELECT game_id, seq, kind, CASE WHEN seq < 50 THEN 'early' ELSE NULL END AS early, 7 AS seven, "
    "NULL AS nothing, [1, 2] AS pair FROM events WHERE game_id = 21",  # one value in the page only; a list
    "SELECT game_id, battle, winner, rule_set FROM battles WHERE game_id < 3",  # rows of 3 games
    "SELECT * FROM games",
    "SELECT * FROM events LIMIT 30",  # a page: told whole as before
]


@pytest.mark.parametrize("sql", TABLES)
def test_a_short_result_s_table_from_one_pass_is_the_table_its_second_pass_gave(root, monkeypatch, sql):
    """With AHEAD_ROWS, the rows read past the page tell the count and the columns of one value;
    without (the page and one row, then Result.constant's pass), the same text."""
    from pipeline.jobs.query.stream import Result

    monkeypatch.setattr(output, "AHEAD_ROWS", 0)
    before = _table_text(root, sql)
    monkeypatch.setattr(output, "AHEAD_ROWS", 10_000)
    monkeypatch.setattr(Result, "constant", lambda *a: pytest.fail("a second pass over the result"))
    monkeypatch.setattr(Result, "count", lambda *a: pytest.fail("a second pass over the result"))
    assert _table_text(root, sql) == before


def test_a_result_longer_than_ahead_rows_still_takes_its_second_pass(root, monkeypatch):
    from pipeline.jobs.query.stream import Result

    passes = []
    constant = Result.constant
    monkeypatch.setattr(Result, "constant", lambda self, *a: (passes.append(1), constant(self, *a))[1])
    monkeypatch.setattr(output, "AHEAD_ROWS", 100)
    text = _table_text(root, "SELECT game_id, 1 AS one FROM events")
    assert passes and "same in every row: one = 1" in text and "(40 shown)" in text


def test_a_replay_and_a_query_import_no_numba():
    """numba's import is a quarter of a second of every command that needs no compiled code."""
    code = ("import sys; sys.modules.setdefault('scipy.linalg', None); import pipeline.jobs.replay, "
            "pipeline.jobs.query, pipeline.present.output; print(sorted({'numba', 'pyarrow.compute'} & set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
