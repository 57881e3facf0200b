"""The library face (pipeline/__init__.py): `war.connect`, a DuckDB connection with every view
of `war query`, for a notebook (issue 51 item 5); and each function of the face documented
under its own name, not its module's private one."""

from __future__ import annotations

import gc
import glob
import os
import pydoc
import shutil
import tempfile

import duckdb
import pyarrow as pa
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
        with pytest.raises(war.QueryError, match="COPY ... TO is refused"):
            con.sql(f"COPY games TO '{tmp_path / 'out.csv'}'")
        with pytest.raises((duckdb.Error, war.QueryError)):
            con.sql("SET enable_external_access = true")
        assert not (tmp_path / "out.csv").exists()
    finally:
        con.close()


@pytest.mark.parametrize("statement", [
    "COPY (SELECT 1 AS x) TO '{ds}/manifest.json' (FORMAT csv)",
    "COPY (SELECT * FROM games WHERE false) TO '{ds}/games/evil.parquet' (FORMAT parquet)",
    "CREATE OR REPLACE VIEW games AS SELECT 42 AS battles",
    "DROP VIEW games",
])
def test_connect_refuses_a_statement_that_writes_inside_the_dataset(dataset, statement):
    """The lock keeps DuckDB's files inside the dataset's folder, which let `COPY ... TO` overwrite
    the manifest: one notebook cell lost the dataset. Every statement now only reads, as
    `war query`'s."""
    before = {p: p.read_bytes() for p in dataset.rglob("*") if p.is_file()}
    con = war.connect(dataset)
    try:
        with pytest.raises(war.QueryError, match="is refused: a query may only read its dataset"):
            con.execute(statement.format(ds=dataset))
        assert con.sql("SELECT count(*) FROM games").fetchall() == [(70,)]
        assert con.cursor().execute("SELECT max(battles) > 0 FROM games").fetchall() == [(True,)]
    finally:
        con.close()
    assert {p: p.read_bytes() for p in dataset.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("write", [
    lambda r, ds: r.to_parquet(str(ds / "manifest.json")),
    lambda r, ds: r.write_csv(str(ds / "manifest.json")),
    lambda r, ds: r.filter("battles > 0").limit(5).to_csv(str(ds / "games" / "evil.csv")),
    lambda r, ds: r.create_view("games"),
    lambda r, ds: r.to_table("kept"),
    lambda r, ds: r.query("t", f"COPY t TO '{ds / 'manifest.json'}' (FORMAT csv)"),
])
def test_connect_s_relations_only_read(dataset, write):
    """A relation of the connection wrote as COPY did: `con.sql(...).to_parquet('DS/manifest.json')`
    lost the dataset in one line. Its writers are refused, derived relations' too; its readers
    answer as DuckDB's."""
    before = {p: p.read_bytes() for p in dataset.rglob("*") if p.is_file()}
    con = war.connect(dataset)
    try:
        games = con.sql("SELECT * FROM games")
        with pytest.raises(war.QueryError, match="only read"):
            write(games, dataset)
        assert len(games) == 70 and "battles" in games.columns
        assert games.filter("outcome = 'win'").aggregate("count(*)").fetchall() == \
            con.sql("SELECT count(*) FROM games WHERE outcome = 'win'").fetchall()
        assert pa.table(games.limit(3)).num_rows == 3 and games.df().shape[0] == 70
        assert games.join(con.table("rules"), "rule_set").limit(1).fetchall()
        assert games.query("t", "SELECT count(*) FROM t").fetchall() == [(70,)]
    finally:
        con.close()
    assert {p: p.read_bytes() for p in dataset.rglob("*") if p.is_file()} == before


def test_a_closed_result_says_so(dataset):
    """Its rows read after its `with` block were DuckDB's "Connection has already been closed",
    said as an SQL error."""
    result = war.open_query(dataset, sql="SELECT * FROM games")
    with result:
        assert result.count() == 70
    for read in (lambda: next(result.batches()), result.count):
        with pytest.raises(war.QueryError, match="this result is closed"):
            read()


def test_a_connection_to_a_dataset_rewritten_since_refuses_to_answer(tmp_path):
    """After `--overwrite` its `games` view read the new files and `events` the old copies:
    one answer from two datasets. Removed, its `events` still answered."""
    out = tmp_path / "ds"
    war.generate(out, [war.Plan(war.build_rules("classic"), 20)], seed=1)
    con, other = war.connect(out), war.connect(out)
    assert con.sql("SELECT count(*) FROM events").fetchall()[0][0] > 0
    war.generate(out, [war.Plan(war.build_rules("classic"), 25)], seed=2, overwrite=True)
    for ask in (lambda: con.sql("SELECT count(*) FROM games"), lambda: con.execute("SELECT 1"),
                lambda: con.table("events")):
        with pytest.raises(war.DatasetError, match="rewritten, changed or removed since this connection opened"):
            ask()
    assert war.connect(out).sql("SELECT count(*) FROM games").fetchall() == [(25,)]
    shutil.rmtree(out)
    with pytest.raises(war.DatasetError, match="rewritten, changed or removed"):
        other.sql("SELECT count(*) FROM events")


def test_a_connection_refuses_once_a_data_file_is_replaced_under_it(tmp_path):
    """A `cp` of another dataset's files over this one's, the manifest left as it was: `games` and
    `event_rows` answered from the other dataset's files, `events` from the old copies."""
    out, other = tmp_path / "ds", tmp_path / "other"
    war.generate(out, [war.Plan(war.build_rules("classic"), 20)], seed=1)
    war.generate(other, [war.Plan(war.build_rules("classic"), 20)], seed=2)
    con = war.connect(out)
    before = con.sql("SELECT game_id, battles FROM games ORDER BY game_id").fetchall()
    [name] = [p.relative_to(out) for p in out.glob("games/*/*.parquet")]
    shutil.copyfile(other / name, out / name)
    with pytest.raises(war.DatasetError, match="changed or removed since this connection opened"):
        con.sql("SELECT game_id, battles FROM games ORDER BY game_id")
    assert before != war.connect(other).sql("SELECT game_id, battles FROM games ORDER BY game_id").fetchall()


def test_a_connection_answers_on_when_only_a_file_s_metadata_changed(tmp_path):
    """`chmod -w` of a data file, or a hard-link backup (`cp -al`), moves its change time and
    nothing else: the connection refused unchanged data. A relation's display is asked as any
    reader: after a `cp` over the file, `print(rel)` and `len(rel)` answered from the new one."""
    import os

    out, other = tmp_path / "ds", tmp_path / "other"
    war.generate(out, [war.Plan(war.build_rules("classic"), 20)], seed=1)
    war.generate(other, [war.Plan(war.build_rules("classic"), 30)], seed=2)
    con = war.connect(out)
    games = con.sql("SELECT game_id, battles FROM games ORDER BY game_id")
    want = games.fetchall()
    [name] = [p.relative_to(out) for p in out.glob("games/*/*.parquet")]
    os.chmod(out / name, 0o444)
    os.link(out / name, tmp_path / "backup.parquet")
    assert games.fetchall() == want and len(games) == 20
    shutil.copyfile(other / name, tmp_path / "foreign.parquet")
    os.chmod(out / name, 0o644)
    shutil.copyfile(tmp_path / "foreign.parquet", out / name)
    for ask in (lambda: len(games), lambda: repr(games), lambda: str(games), lambda: games["battles"]):
        with pytest.raises(war.DatasetError, match="changed or removed since this connection opened"):
            ask()


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


def test_a_plan_of_counts_counts_every_deal_unless_given_a_slice(tmp_path):
    """`Plan(rules, 0, all_deals=True, log="counts")` raised TypeError deep inside generate (no
    `deal_range`); as make_plans makes it, it counts every deal, or the slice it is given."""
    rules = war.build_rules("classic", {"ranks": "3", "suits": "2", "pickup": "natural", "war_down": "0"})
    assert war.Plan(rules, 0, all_deals=True, log="counts").deal_range == (0, 90)
    assert war.Plan(rules, 0, all_deals=True, log="counts", deal_range=(10, 20)).deal_range == (10, 20)
    for bad in ({"log": "counts"}, {"all_deals": True, "log": "counts", "deal_range": (5, 91)},
                {"deal_range": (0, 10)}):
        with pytest.raises(war.RulesError):
            war.Plan(rules, 0, **bad)
    war.generate(tmp_path / "c", [war.Plan(rules, 0, all_deals=True, log="counts")], seed=1)
    assert war.query(tmp_path / "c", sql="SELECT sum(games) AS n FROM counts").to_pylist() == [{"n": 90}]


def test_a_result_s_batches_are_an_iterator_and_a_root_must_be_a_folder(dataset):
    """`next(open_query(...).batches())` raised TypeError ('_Guarded' object is not an iterator),
    and `war.query(123, ...)` os.fspath's TypeError (hostile pass F, 7)."""
    with war.open_query(dataset, sql="SELECT game_id FROM games ORDER BY game_id") as result:
        batches = result.batches()
        first = next(batches)
        assert first.num_rows > 0 and iter(batches) is batches
        assert first.num_rows + sum(b.num_rows for b in batches) == 70
        with pytest.raises(StopIteration):
            next(batches)
    for bad in (123, b"ds", ["ds"]):
        with pytest.raises(war.DatasetError, match="`root` is a dataset folder"):
            war.query(bad, sql="SELECT 1")
