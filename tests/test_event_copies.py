"""The `events` view reads columnar copies of the events files, made once and kept in war's cache
(jobs/query/event_copies.py): every variant and option decodes to the very rows events.sql gives
(the reference, `WAR_EVENT_COPIES=0`), in the log's order; a copy is named by the file it is made
from and by its decoder, so an append makes copies of the new files alone and a damaged copy is
made again, never read; a file that is not the manifest's is refused; the same dataset gives
the same copy bytes."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.errors import QueryError
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import event_copies, run
from pipeline.model.rules import build_rules
from pipeline.storage.dataset import Dataset

RULE_SETS = [  # every family, and the options that change what a battle row holds
    ("classic", {}), ("classic", {"pickup": "winner_first"}), ("classic", {"pickup": "natural", "war_down": 1}),
    ("classic", {"war_tiebreak": "single_up", "shortfall": "lose"}), ("classic", {"win": "wars:3"}),
    ("classic", {"ranks": 4, "suits": 2, "pickup": "sorted"}), ("multiplayer", {"players": 5}),
    ("multiplayer", {"players": 3, "pickup": "pooled"}), ("jokers", {}), ("razboi", {"aces": "low"}),
    ("steal", {}), ("arneson", {}), ("arneson", {"pickup": "table_order"}), ("slap", {}),
]


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("copies") / "ds"
    generate(out, [Plan(build_rules(v, o), 16) for v, o in RULE_SETS], seed=11, shard_size=5)
    return out


def _events(root, monkeypatch, copies: bool, sql: str = "SELECT * FROM events") -> pa.Table:
    monkeypatch.setenv("WAR_EVENT_COPIES", "1" if copies else "0")
    return run(root, sql=sql)


def test_every_variant_decodes_to_the_rows_events_sql_gives_in_order(root, monkeypatch):
    reference = _events(root, monkeypatch, copies=False)
    copied = _events(root, monkeypatch, copies=True)
    assert copied.schema == reference.schema
    assert copied.num_rows == reference.num_rows > 10_000
    for name in reference.column_names:  # column by column: a difference names its column
        assert copied.column(name).to_pylist() == reference.column(name).to_pylist(), name
    kinds = set(copied.column("kind").to_pylist())
    assert {"war", "collect", "slap", "decision", "set_aside"} <= kinds  # the rows cover what they should


def test_the_battles_of_the_copies_are_the_rows_events_sql_gives_in_order(root, monkeypatch):
    reference = _events(root, monkeypatch, False, "SELECT * FROM battles")
    copied = _events(root, monkeypatch, True, "SELECT * FROM battles")
    assert copied.schema == reference.schema and copied.num_rows == reference.num_rows > 1_000
    for name in reference.column_names:
        assert copied.column(name).to_pylist() == reference.column(name).to_pylist(), name
    assert set(copied.column("war_depth").to_pylist()) >= {0, 1, 2} and None in copied.column("winner").to_pylist()


def test_the_deals_are_the_events_of_battle_0_in_order_from_the_copies_and_from_the_sql(root, monkeypatch):
    """`deals` is `events` of battle 0, in the log's order: read from the copies' own deals
    files, and decoded in SQL with copies off (a join, sorted back)."""
    want = _events(root, monkeypatch, False, "SELECT * FROM events WHERE battle = 0")
    assert want.num_rows > 200 and {"deal", "set_aside"} <= set(want.column("kind").to_pylist())
    for copies in (True, False):
        got = _events(root, monkeypatch, copies, "SELECT * FROM deals")
        assert got.schema == want.schema
        for name in want.column_names:
            assert got.column(name).to_pylist() == want.column(name).to_pylist(), (copies, name)


def test_the_copies_answer_filters_and_one_game_as_the_sql_view_does(root, monkeypatch):
    for sql in ("SELECT kind, count(*) AS n, sum(len(cards)) AS c FROM events GROUP BY ALL ORDER BY ALL",
                "SELECT * FROM events WHERE game_id = 9000000007",
                "SELECT variant, count(*) AS n FROM events WHERE kind = 'war' GROUP BY ALL ORDER BY ALL",
                "SELECT b.rule_set, b.war_depth, count(*) AS n, sum(len(e.cards)) AS c FROM battles b JOIN events e "
                "USING (game_id, battle) WHERE e.kind = 'collect' GROUP BY ALL ORDER BY ALL"):
        assert _events(root, monkeypatch, True, sql).to_pylist() == _events(root, monkeypatch, False, sql).to_pylist()


def test_a_copy_is_made_once_and_an_append_copies_the_new_files_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("WAR_EVENT_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("classic"), 6)], seed=3, shard_size=3)
    run(out, sql="SELECT count(*) FROM events")
    first = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "cache").glob("*.parquet")}
    assert len(first) == 6  # one a file of events, its battles and its deals
    run(out, sql="SELECT count(*) FROM events")
    assert {p.name: p.stat().st_mtime_ns for p in (tmp_path / "cache").glob("*.parquet")} == first  # none made again
    generate(out, [Plan(build_rules("jokers"), 3)], seed=3, shard_size=3, append=True)
    n = run(out, sql="SELECT count(DISTINCT game_id) AS n FROM events").column("n")[0].as_py()
    now = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "cache").glob("*.parquet")}
    assert n == 9 and len(now) == 9 and all(now[name] == t for name, t in first.items())
    assert not list(out.rglob(".*.tmp")) and not any("cache" in str(p) for p in out.rglob("*"))


def test_a_damaged_copy_is_made_again_not_read(tmp_path, monkeypatch):
    monkeypatch.setenv("WAR_EVENT_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("classic"), 4)], seed=3)
    want = run(out, sql="SELECT * FROM events")
    copy = next(p for p in (tmp_path / "cache").glob("*.parquet") if p.name.count(".") == 1)
    copy.write_bytes(copy.read_bytes()[:1000])  # cut short, as a full disk or a kill would leave it
    assert run(out, sql="SELECT * FROM events").equals(want)
    other = tmp_path / "other.parquet"  # a whole Parquet file that is some other copy
    pq.write_table(pa.table({"game_id": [1]}), other)
    shutil.copy(other, copy)
    assert run(out, sql="SELECT * FROM events").equals(want)


def test_a_file_that_is_not_the_manifest_s_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("WAR_EVENT_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("classic"), 4)], seed=3)
    events = out / Dataset.open(out).files("events")[0].path
    table = pq.read_table(events)
    pq.write_table(table.slice(0, table.num_rows - 1), events)  # one battle row less: another file
    with pytest.raises(QueryError, match="does not match the checksum its manifest records"):
        run(out, sql="SELECT count(*) FROM events")
    assert not list((tmp_path / "cache").glob("*.parquet"))


def test_a_file_edited_after_its_copy_was_made_is_refused_not_answered_from_the_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("WAR_EVENT_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("classic"), 4)], seed=3)
    run(out, sql="SELECT count(*) FROM events")  # the copy made
    twin = tmp_path / "twin"  # the same files elsewhere, with other times: their copies serve both
    shutil.copytree(out, twin, copy_function=shutil.copy)
    assert run(twin, sql="SELECT * FROM events").equals(run(out, sql="SELECT * FROM events"))
    events = out / Dataset.open(out).files("events")[0].path
    table = pq.read_table(events)
    pq.write_table(table.slice(0, table.num_rows - 1), events)
    with pytest.raises(QueryError, match="does not match the checksum its manifest records"):
        run(out, sql="SELECT count(*) FROM events")


@pytest.mark.parametrize("copies,sql", [("1", "SELECT count(*) FROM event_rows"),
                                         ("0", "SELECT count(*) FROM event_rows"),
                                         ("0", "SELECT count(*) FROM events")])
def test_a_file_not_the_manifest_s_is_refused_by_every_view_and_with_copies_off(tmp_path, monkeypatch, copies, sql):
    """`events` refused a swapped events file; `event_rows`, which reads the files as they are,
    and every view with the copies turned off answered from it."""
    monkeypatch.setenv("WAR_EVENT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("WAR_EVENT_COPIES", copies)
    out, other = tmp_path / "d", tmp_path / "other"
    generate(out, [Plan(build_rules("classic"), 4)], seed=3)
    generate(other, [Plan(build_rules("classic"), 6)], seed=4)
    run(out, sql="SELECT count(*) FROM events")
    name = Dataset.open(out).files("events")[0].path
    (out / name).write_bytes((other / name).read_bytes())
    with pytest.raises(QueryError, match="does not match the checksum its manifest records"):
        run(out, sql=sql)


def test_a_file_edited_with_its_time_put_back_is_refused_not_answered_from_its_copy(tmp_path, monkeypatch):
    """The same size, and the modification time set back as `touch -r` does: the copy's stamp
    matched and `events` answered from the copy of what the file was. The change time, which
    only the clock sets, tells."""
    monkeypatch.setenv("WAR_EVENT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("WAR_PLAN_CACHE", str(tmp_path / "plans"))
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("classic"), 4)], seed=3)
    run(out, sql="SELECT count(*) FROM events")  # the copy made, and a plan kept
    events = out / Dataset.open(out).files("events")[0].path
    before = os.stat(events)
    data = bytearray(events.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one byte, the size kept
    time.sleep(0.01)
    events.write_bytes(bytes(data))
    os.utime(events, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (os.stat(events).st_size, os.stat(events).st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    with pytest.raises(QueryError, match="does not match the checksum its manifest records"):
        run(out, sql="SELECT count(*) FROM events")


def test_the_same_dataset_gives_the_same_copy_bytes(tmp_path, monkeypatch):
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("jokers"), 5), Plan(build_rules("steal"), 5)], seed=4)
    made = []
    for name in ("a", "b"):
        monkeypatch.setenv("WAR_EVENT_CACHE", str(tmp_path / name))
        run(out, sql="SELECT count(*) FROM events")
        made.append({p.name: p.read_bytes() for p in (tmp_path / name).glob("*.parquet")})
    assert made[0] == made[1] and len(made[0]) == 6


def test_a_copy_left_half_written_by_a_killed_process_or_long_unread_is_swept(tmp_path, monkeypatch):
    monkeypatch.setenv("WAR_EVENT_CACHE", str(tmp_path / "cache"))
    (tmp_path / "cache").mkdir()
    dead = 2 ** 22 + 12345  # above any pid this machine hands out
    left = tmp_path / "cache" / f".x.parquet.{dead}.tmp"  # atomic_file's temporary name
    left.write_bytes(b"PAR1")
    mine = tmp_path / "cache" / f".y.parquet.{os.getpid()}.tmp"
    mine.write_bytes(b"PAR1")
    stale = tmp_path / "cache" / "z-0.parquet"  # a copy not read for longer than war keeps one
    stale.write_bytes(b"PAR1")
    old = time.time() - (event_copies.UNUSED_DAYS + 1) * event_copies.DAY
    os.utime(stale, (old, old))
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("classic"), 2)], seed=3)
    run(out, sql="SELECT count(*) FROM events")
    assert not left.exists() and mine.exists() and not stale.exists()
    made = sorted((tmp_path / "cache").glob("*.parquet"))
    for path in made:  # copies read again are kept, however old they were
        os.utime(path, (old, old))
    generate(out, [Plan(build_rules("jokers"), 2)], seed=3, append=True)
    read_from = time.time() - 2  # a file system's clock may lag time.time() by a tick
    run(out, sql="SELECT count(*) FROM events")
    assert all(p.exists() and p.stat().st_mtime >= read_from for p in made)  # touched by this read


def test_copies_off_or_an_unwritable_cache_read_the_log_as_events_sql_does(tmp_path, monkeypatch):
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("classic"), 3)], seed=3)
    want = _events(out, monkeypatch, copies=False)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("WAR_EVENT_CACHE", str(blocker / "events"))
    assert _events(out, monkeypatch, copies=True).equals(want)
    assert event_copies.folder() == blocker / "events"


def test_every_named_query_of_the_log_answers_the_same_from_the_copies(root, monkeypatch):
    """The queries that read `events` or `battles`, each with its defaults, over every family."""
    from pipeline.jobs.query import log_views_read, named_queries, named_query

    asked = [name for name in named_queries() if log_views_read(named_query(name).sql) & {"events", "battles"}]
    assert {"joker_wars", "joker_decides", "arneson_consolation", "steals", "war_depth", "razboi_war_sizes"} <= set(asked)
    for name in asked:
        monkeypatch.setenv("WAR_EVENT_COPIES", "0")
        want = run(root, name=name)
        monkeypatch.setenv("WAR_EVENT_COPIES", "1")
        assert run(root, name=name).equals(want), name


def test_an_interrupt_while_copies_are_made_stops_at_once_and_leaves_only_whole_copies(tmp_path, monkeypatch):
    monkeypatch.setenv("WAR_EVENT_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("classic"), 12)], seed=3, shard_size=2)
    files = event_copies.sources(out, Dataset.open(out).files("events"))

    def ctrl_c(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        event_copies.ensure(files, progress=ctrl_c, workers=1)
    made = [p for p in (tmp_path / "cache").glob("*.parquet") if p.name.count(".") == 1]  # events copies
    assert 1 <= len(made) <= 2 < len(files)  # the one heard of, perhaps the one under way; no more
    assert not list((tmp_path / "cache").glob(".*.tmp"))
    assert all(event_copies.is_copy(p, sha, src) for src, sha in files for p in made if p == event_copies.copy_path(sha))
    assert run(out, sql="SELECT count(DISTINCT game_id) AS n FROM events").column("n")[0].as_py() == 12


def test_two_sessions_of_one_process_make_each_copy_once(tmp_path, monkeypatch):
    """A server's report and its SQL page open sessions at once: the second waits for the first."""
    import threading

    monkeypatch.setenv("WAR_EVENT_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("classic"), 8)], seed=3, shard_size=2)
    made = []
    make = event_copies.make_copy
    monkeypatch.setattr(event_copies, "make_copy", lambda *a: (made.append(a[2]), make(*a)))
    files = event_copies.sources(out, Dataset.open(out).files("events"))
    threads = [threading.Thread(target=event_copies.ensure, args=(files,)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(made) == sorted(event_copies.copy_path(sha) for _, sha in files)

