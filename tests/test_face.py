"""The library face (pipeline/__init__.py): `war.connect`, a DuckDB connection with every view
of `war query`, for a notebook (issue 51 item 5); and each function of the face documented
under its own name, not its module's private one."""

from __future__ import annotations

import gc
import glob
import os
import pydoc
import tempfile

import duckdb
import pytest

import pipeline as war


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("face") / "ds"
    war.generate(out, [war.Plan(war.build_rules("classic"), 40), war.Plan(war.build_rules("jokers"), 30)], seed=5)
    return out


def spills() -> set[str]:
    return set(glob.glob(os.path.join(tempfile.gettempdir(), f"war-query-{os.getpid()}-*")))


def test_connect_answers_as_war_query_does_with_every_view(dataset):
    con = war.connect(dataset)
    try:
        for sql in ["SELECT rule_set, outcome, winner, battles FROM games",
                    "SELECT game_id, seq, kind, seat, cards FROM events WHERE game_id < 3",
                    "SELECT war_depth, count(*) AS n FROM battles GROUP BY ALL ORDER BY ALL",
                    "SELECT rule_set FROM rules", "SELECT count(*) AS n FROM cards"]:
            assert con.sql(sql).arrow().read_all().to_pylist() == war.query(dataset, sql=sql).to_pylist(), sql
        assert list(con.sql("SELECT outcome FROM games").df().columns) == ["outcome"]
        assert con.sql("SELECT count(*) AS n FROM games").pl().item() == 70
    finally:
        con.close()


def test_connect_reads_the_copies_and_leaves_the_decoding_views_out(dataset, monkeypatch):
    """events and battles come from the log's columnar copies, so the decoding's own views (a
    pass over every shape to set up) are not made; without copies they are, as war query's."""
    con = war.connect(dataset)
    try:
        names = {r[0] for r in con.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
        assert {"events", "battles", "cards"} <= names and "event_row_steps" not in names
        sql = "SELECT count(*) AS n FROM events WHERE kind = 'war'"
        assert con.sql(sql).fetchall()[0][0] == war.query(dataset, sql=sql).column("n")[0].as_py() > 0
    finally:
        con.close()
    monkeypatch.setenv("WAR_EVENT_COPIES", "0")
    con = war.connect(dataset)
    try:
        names = {r[0] for r in con.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
        assert {"events", "battles", "event_row_steps"} <= names
    finally:
        con.close()


def test_connect_reads_in_place_and_writes_no_file(dataset, tmp_path):
    con = war.connect(dataset)
    try:
        with pytest.raises(duckdb.Error):
            con.sql(f"COPY games TO '{tmp_path / 'out.csv'}'")
        with pytest.raises(duckdb.Error):
            con.sql("SET enable_external_access = true")
        assert not (tmp_path / "out.csv").exists()
    finally:
        con.close()


def test_a_connection_let_go_takes_its_spill_folder_with_it(dataset):
    before = spills()
    con = war.connect(dataset, events=False)
    mine = spills() - before
    assert len(mine) == 1 and all(os.path.isdir(p) for p in mine)
    assert con.sql("SELECT count(*) FROM games").fetchall() == [(70,)]
    del con
    gc.collect()
    assert not any(os.path.exists(p) for p in mine)


def test_the_face_documents_each_function_under_its_own_name():
    for name in war.__all__:
        value = getattr(war, name)
        if callable(value) and type(value).__name__ == "function":
            title = pydoc.render_doc(value).splitlines()[0]
            assert title == f"Python Library Documentation: function {name} in module pipeline", title
