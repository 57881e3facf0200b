"""The event log reads in its order without ORDER BY: `events` by (game_id, seq), `battles` by
(game_id, battle), `event_rows` by (game_id, seq), whatever DuckDB's threads, the number of part
files and the rule sets' order of variants (log_views.py: one scan of the files in the
manifest's game order, no join). The README's CSV export of the events is the log in order.
"""

from __future__ import annotations

import csv

import duckdb
import pytest

from clikit import ok
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import run
from pipeline.jobs.query import session, session_setup
from pipeline.model.rules import build_rules

ORDERED = {  # a query without ORDER BY and the columns its rows must rise by
    "SELECT game_id, seq, kind, cards FROM events": ("game_id", "seq"),
    "SELECT game_id, seq FROM events WHERE kind IN ('war', 'collect', 'decision')": ("game_id", "seq"),
    "SELECT * FROM events WHERE game_id % 5 = 2": ("game_id", "seq"),
    "SELECT game_id, battle, war_depth FROM battles": ("game_id", "battle"),
    "SELECT game_id, battle FROM battles WHERE winner = 1": ("game_id", "battle"),
    "SELECT game_id, seq, battle FROM event_rows": ("game_id", "seq"),
    "SELECT game_id, battles FROM games": ("game_id",),
}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """Classic War, Steal War, then Classic War again with another pickup: a variant's rule sets
    apart in game order; shards of 3 games, so each rule set is many part files."""
    out = tmp_path_factory.mktemp("order") / "ds"
    generate(out, [Plan(build_rules("classic"), 24), Plan(build_rules("steal"), 12),
                   Plan(build_rules("classic", {"pickup": "winner_first"}), 24)], seed=5, shard_size=3)
    return out


def _rising(rows: list[dict], keys: tuple[str, ...]) -> bool:
    values = [tuple(r[k] for k in keys) for r in rows]
    return all(a < b for a, b in zip(values, values[1:]))


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_the_log_views_read_in_log_order_on_any_number_of_threads(root, monkeypatch, threads):
    connect = duckdb.connect
    monkeypatch.setattr(session.duckdb, "connect", lambda *a, **k: connect(config={"threads": threads}))
    assert run(root, sql="SELECT current_setting('threads') AS t").column("t").to_pylist() == [threads]
    for sql, keys in ORDERED.items():
        rows = run(root, sql=sql).to_pylist()
        assert rows and _rising(rows, keys), sql
        ordered = run(root, sql=f"SELECT * FROM ({sql}) ORDER BY {', '.join(keys)}").to_pylist()
        assert rows == ordered, sql


def test_one_game_s_events_come_in_seq_order(root):
    rows = run(root, sql="SELECT seq FROM events WHERE game_id = 1000000004").column("seq").to_pylist()
    assert rows == list(range(len(rows))) and len(rows) > 10


def test_the_readme_s_csv_export_is_the_log_in_order(root, tmp_path):
    out = tmp_path / "events.csv"
    ok("query", root, "--sql", "SELECT * FROM events", "--format", "csv", "--output", out)
    with out.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    keys = [(int(r["game_id"]), int(r["seq"])) for r in rows]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert keys[0] == (0, 0) and rows[0]["kind"] == "deal"
    assert len(rows) == run(root, sql="SELECT count(*) AS n FROM events").column("n")[0].as_py()


@pytest.mark.parametrize("listed", [True, False])
def test_battles_read_each_shape_s_values_as_the_table_of_shapes_says(root, monkeypatch, listed):
    """`battles` reads what a row's shape says of its battle from values written in the view
    (log_views.battle_columns): found in a list of the shapes (a few shapes) or by the ENUM of
    them (many). Either way its rows are those of a join to the table of shapes, in the log's
    order."""
    import importlib

    log_views = importlib.import_module("pipeline.jobs.query.log_views")
    monkeypatch.setattr(log_views, "LISTED_SHAPES", 10_000 if listed else 0)
    s = session_setup.connect(root)
    try:
        got = s.con.execute("SELECT game_id, battle, variant, war_depth, winner, table_cards, set_aside FROM battles").fetchall()
        want = s.con.execute("""
            SELECT r.game_id, r.battle, r.variant, coalesce(b.war_depth, 0), b.winner, b.table_cards, b.set_aside
            FROM event_rows r JOIN battle_shapes b ON b.shape = r.shape
            WHERE r.battle > 0 AND b.fights ORDER BY r.game_id, r.battle""").fetchall()
        shapes = s.con.execute("SELECT count(*) FROM battle_shapes").fetchone()[0]
    finally:
        s.close()
    assert shapes > 1 and len(got) > 1000 and got == want
    assert {row[4] for row in got} >= {0, 1} and {row[3] for row in got} >= {0, 1}
