"""A session's plan (jobs/query/plan.py): a query of a dataset queried before opens its session
from the plan kept then, answers exactly as the set-up itself does, and is never answered from
a stale plan: a changed manifest, war's code or what is installed is a new key, and files that
changed since (a data file gone, an events file edited, a copy damaged) send the query through
the set-up, which says what it always said."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.errors import QueryError
from pipeline.jobs.generate import Plan, generate, make_plans
from pipeline.jobs.query import event_copies, open_query, plan, run
from pipeline.model.rules import build_rules
from pipeline.present.output import write_result
from pipeline.storage.dataset import Dataset

ONE_GAME = "SELECT * FROM events WHERE game_id = 7"


@pytest.fixture
def plans(tmp_path, monkeypatch) -> Path:
    """Plans and copies in folders of the test's own."""
    monkeypatch.setenv("WAR_PLAN_CACHE", str(tmp_path / "plans"))
    monkeypatch.setenv("WAR_EVENT_CACHE", str(tmp_path / "copies"))
    monkeypatch.setenv("WAR_EVENT_COPIES", "1")
    return tmp_path / "plans"


def _opened(root, sql: str = ONE_GAME):
    """(whether the session came from a plan, the whole answer)."""
    with open_query(root, sql=sql) as result:
        planned = isinstance(result.session, plan.PlannedSession)
        reader = result.batches()
        import pyarrow as pa

        return planned, pa.Table.from_batches(list(reader), schema=reader.schema)


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


def _unplanned(monkeypatch, root, sql: str):
    with monkeypatch.context() as m:
        m.setattr(plan, "plan_key", lambda *a: None)
        return run(root, sql=sql)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("planned") / "ds"
    generate(out, [Plan(build_rules("classic"), 40), Plan(build_rules("jokers"), 12)], seed=5, shard_size=4)
    return out


@pytest.mark.parametrize("sql", [
    ONE_GAME,
    "SELECT * FROM games ORDER BY game_id",
    "SELECT * FROM battles WHERE game_id = 1000000003",
    "SELECT * FROM deals",
    "SELECT * FROM rules",
    "SELECT * FROM event_kinds",
    "SELECT label, count(*) AS n FROM cards GROUP BY ALL ORDER BY ALL",
    "SELECT rule_set_order(rule_set) AS o, count(*) FROM games GROUP BY ALL ORDER BY ALL",
])
def test_a_query_from_its_plan_answers_as_the_set_up_does(root, plans, monkeypatch, sql):
    first, want = _opened(root, sql)
    assert not first and list(plans.glob("*.json"))  # the first query sets up, and keeps the plan
    planned, got = _opened(root, sql)
    assert planned and got.equals(want) and got.schema.equals(want.schema, check_metadata=True)
    assert got.equals(_unplanned(monkeypatch, root, sql))


def test_events_to_csv_from_a_plan_are_the_same_bytes(root, plans, monkeypatch):
    for sql in (ONE_GAME, "SELECT * FROM events"):
        want = _csv(root, sql)
        assert _opened(root, sql)[0]
        assert _csv(root, sql) == want


def test_a_query_from_its_plan_imports_neither_the_models_nor_the_set_up(root, plans):
    code = ("import sys; from pipeline.jobs.query import run; run(sys.argv[1], sql=sys.argv[2]); "
            "print(sorted(m for m in ('pipeline.model.schema', 'pipeline.model.families', "
            "'pipeline.jobs.query.session_setup', 'pydantic.main') if m in sys.modules))")
    env = {**os.environ}
    outs = [subprocess.run([sys.executable, "-c", code, str(root), ONE_GAME], env=env, capture_output=True,
                           text=True, check=True).stdout.strip() for _ in range(2)]
    assert "pipeline.jobs.query.session_setup" in outs[0]  # the first sets up
    assert outs[1] == "[]"


def test_a_changed_manifest_is_a_new_plan_and_the_new_dataset_answers(tmp_path, plans):
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("classic"), 12)], seed=3, shard_size=4)
    before = run(out, sql="SELECT count(*) AS n FROM games").column("n")[0].as_py()
    assert _opened(out, "SELECT count(*) AS n FROM games")[0]
    generate(out, [Plan(build_rules("jokers"), 8)], shard_size=4, append=True)  # the manifest changes
    planned, got = _opened(out, "SELECT count(*) AS n FROM games")
    assert not planned and got.column("n")[0].as_py() == before + 8
    assert _opened(out, "SELECT count(*) AS n FROM games")[0]


def test_another_war_or_installation_is_another_key(root, plans, monkeypatch):
    _opened(root)
    assert _opened(root)[0]
    with monkeypatch.context() as m:
        m.setattr(plan, "_code", ["another war"])
        assert not _opened(root)[0]
    with monkeypatch.context() as m:
        m.setattr("pipeline.model.entry_point_cache.stamp", lambda: "another installation")
        assert not _opened(root)[0]
    with monkeypatch.context() as m:
        m.setattr(plan, "families_stamp", lambda installed=None: "a plugin edited")
        assert not _opened(root)[0]
    assert _opened(root)[0]


def test_the_code_stamp_is_every_source_file_s_size_and_time(tmp_path, monkeypatch):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    source = tmp_path / "pkg" / "sub" / "a.py"
    source.write_text("x = 1\n")
    monkeypatch.setattr(plan, "PACKAGE", tmp_path / "pkg")

    def stamp():
        monkeypatch.setattr(plan, "_code", [])
        return plan.code_stamp()

    first = stamp()
    os.utime(source, ns=(1, 1))
    second = stamp()
    (tmp_path / "pkg" / "views.sql").write_text("--")
    assert len({first, second, stamp()}) == 3


def test_a_data_file_gone_is_refused_as_the_set_up_refuses_it(tmp_path, plans):
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("classic"), 12)], seed=3, shard_size=4)
    run(out, sql=ONE_GAME)
    gone = out / sorted(Dataset.open(out).files("games"), key=lambda f: f.first_game)[-1].path
    gone.unlink()
    with pytest.raises(QueryError, match="is missing"):
        run(out, sql=ONE_GAME)


def test_an_edited_events_file_is_refused_and_a_damaged_copy_made_again(tmp_path, plans):
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("classic"), 12)], seed=3, shard_size=4)
    want = run(out, sql="SELECT * FROM events")
    assert _opened(out, "SELECT * FROM events")[0]
    copy = next(p for p in (plans.parent / "copies").glob("*.parquet") if p.name.count(".") == 1)
    copy.write_bytes(copy.read_bytes()[:300])  # cut short: the plan is not run, the copy is made again
    planned, got = _opened(out, "SELECT * FROM events")
    assert not planned and got.equals(want)
    import pyarrow.parquet as pq

    events = out / sorted(Dataset.open(out).files("events"), key=lambda f: f.first_game)[-1].path
    table = pq.read_table(events)
    pq.write_table(table.slice(0, table.num_rows - 1), events)
    with pytest.raises(QueryError, match="does not match the checksum its manifest records"):
        run(out, sql="SELECT count(*) FROM events")


@pytest.mark.parametrize("table,sql", [("games", "SELECT count(*), sum(battles) FROM games"),
                                       ("events", "SELECT count(*) FROM event_rows")])
def test_a_data_file_swapped_after_its_plan_is_refused_not_answered(tmp_path, plans, table, sql):
    """Another dataset's file of the same name put in place after a query kept its plan: the
    plan had recorded no games file (and no events file for `event_rows`, read without copies),
    so it answered from the other dataset's rows."""
    out, other = tmp_path / "d", tmp_path / "other"
    generate(out, [Plan(build_rules("classic"), 12)], seed=3, shard_size=12)
    generate(other, [Plan(build_rules("classic"), 20)], seed=4, shard_size=20)
    run(out, sql=sql)
    assert _opened(out, sql)[0]  # from its plan
    name = Dataset.open(out).files(table)[0].path
    (out / name).write_bytes((other / name).read_bytes())
    with pytest.raises(Exception, match="not the file its manifest lists|does not match the checksum"):
        run(out, sql=sql)


def test_a_counts_file_not_the_manifest_s_is_refused(tmp_path, plans):
    """Counts files were read as they were: another deck's counts answered for this one's."""
    deck = {"ranks": "4", "suits": "2", "war_down": "0"}
    out, other = tmp_path / "d", tmp_path / "other"
    generate(out, [Plan(build_rules("classic", {**deck, "pickup": "natural"}), 0, all_deals=True, log="counts")], seed=0)
    generate(other, [Plan(build_rules("classic", {**deck, "pickup": "sorted"}), 0, all_deals=True, log="counts")], seed=0)
    sql = "SELECT sum(games), sum(battles * games) FROM counts"
    assert run(out, sql=sql).to_pylist() != run(other, sql=sql).to_pylist()
    name = Dataset.open(out).files("counts")[0].path
    (out / name).write_bytes((other / name).read_bytes())
    with pytest.raises(Exception, match="not the file its manifest lists"):
        run(out, sql=sql)


def test_the_games_view_s_functions_are_made_again_from_the_dataset(tmp_path, plans, monkeypatch):
    """Every deal of an 8-card deck: its piles and swapped deals come from Python functions,
    which a plan makes again from the manifest when a query first calls them."""
    out = tmp_path / "d"
    eight = build_rules("classic", {"ranks": "4", "suits": "2", "pickup": "winner_first"})
    generate(out, make_plans([eight], all_deals=True, log="games"), seed=5, shard_size=1000)
    sql = "SELECT game_id, deal_index, piles, swapped_index, first_of_class FROM games ORDER BY game_id LIMIT 50"
    first, want = _opened(out, sql)
    planned, got = _opened(out, sql)
    assert not first and planned and got.equals(want)
    assert got.column("piles").null_count == 0


def test_an_unreadable_plan_is_no_plan(root, plans):
    _opened(root)
    for kept in plans.glob("*.json"):
        kept.write_text("{not json")
    planned, got = _opened(root)
    assert not planned and got.num_rows > 0
    assert _opened(root)[0]
    for kept in plans.glob("*.json"):
        kept.write_text(json.dumps({"key": "another"}))
    assert not _opened(root)[0]


def test_event_copies_kept_in_the_cache_folder_of_the_key(root, plans, monkeypatch, tmp_path):
    """WAR_EVENT_CACHE is part of the key: a plan never names copies of another folder."""
    _opened(root)
    assert _opened(root)[0]
    monkeypatch.setenv("WAR_EVENT_CACHE", str(tmp_path / "elsewhere"))
    assert not _opened(root)[0]
    assert list((tmp_path / "elsewhere").glob("*.parquet"))
    assert event_copies.folder() == tmp_path / "elsewhere"


def test_the_names_said_twice_are_the_same():
    """What the light modules say without importing the heavy ones they name."""
    from pipeline.jobs.query import answer
    from pipeline.model.families import GROUP
    from pipeline.solve.folder import MANIFEST

    assert answer.SOLUTION_MANIFEST == MANIFEST and plan.FAMILIES == GROUP
