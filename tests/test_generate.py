"""Generation: the same arguments give the same bytes, whatever the workers; files appear whole."""

import hashlib
import json
import sys

import pyarrow.parquet as pq
import pytest

from pipeline.storage.dataset import Dataset
from pipeline.errors import DatasetError, RulesError
from pipeline.jobs.generate import Plan, generate
from pipeline.model.rules import build_rules
from pipeline.model.schema import SCHEMA_VERSION
from pipeline.jobs.validate import validate


def digests(root):
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def plans():
    return [Plan(build_rules("classic"), 45), Plan(build_rules("classic", {"pickup": "winner_first"}), 30)]


def test_one_and_two_workers_give_identical_files(tmp_path):
    generate(tmp_path / "one", plans(), seed=42, workers=1, shard_size=10)
    generate(tmp_path / "two", plans(), seed=42, workers=2, shard_size=10)
    one, two = digests(tmp_path / "one"), digests(tmp_path / "two")
    assert one == two
    assert len([p for p in one if p.startswith("events/")]) == 5 + 3


def test_another_seed_gives_other_games(tmp_path):
    generate(tmp_path / "a", plans()[:1], seed=1, shard_size=100)
    generate(tmp_path / "b", plans()[:1], seed=2, shard_size=100)
    assert digests(tmp_path / "a")["events/variant=classic/part-00000.parquet"] != \
        digests(tmp_path / "b")["events/variant=classic/part-00000.parquet"]


def test_manifest_lists_every_file_with_rows_and_checksums(tmp_path):
    m = generate(tmp_path / "d", plans(), seed=3, shard_size=20)
    root = tmp_path / "d"
    on_disk = {p for p in digests(root) if p != "manifest.json"}
    assert on_disk == {f.path for f in m.files}
    for f in m.files:
        assert hashlib.sha256((root / f.path).read_bytes()).hexdigest() == f.sha256
        assert pq.ParquetFile(root / f.path).metadata.num_rows == f.rows
    assert json.loads((root / "manifest.json").read_text())["master_seed"] == 3
    assert [e.games for e in m.rule_sets] == [45, 30]


def test_games_have_unique_ids_per_rule_set_and_share_seeds(tmp_path):
    generate(tmp_path / "d", plans(), seed=3, shard_size=20)
    ds = Dataset.open(tmp_path / "d")
    rows = [r for f in ds.files("games") for r in pq.read_table(ds.root / f.path).to_pylist()]
    ids = [r["game_id"] for r in rows]
    assert len(set(ids)) == len(ids) == 75
    by_set = {}
    for r in rows:
        by_set.setdefault(r["rules_id"], {})[r["game_index"]] = r["game_seed"]
    a, b = by_set.values()
    assert all(a[i] == b[i] for i in b), "every rule set plays the same seeds, game by game"


def test_files_are_sorted_and_carry_the_schema_version(tmp_path):
    generate(tmp_path / "d", plans()[:1], seed=9, shard_size=100)
    path = tmp_path / "d" / "events/variant=classic/part-00000.parquet"
    t = pq.read_table(path)
    keys = list(zip(t.column("game_id").to_pylist(), t.column("seq").to_pylist()))
    assert keys == sorted(keys)
    assert pq.ParquetFile(path).schema_arrow.metadata[b"war.schema_version"] == str(SCHEMA_VERSION).encode()
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).compression == "ZSTD"


def test_no_temporary_files_are_left(tmp_path):
    generate(tmp_path / "d", plans(), seed=4, workers=2, shard_size=10)
    assert not [p for p in (tmp_path / "d").rglob(".*")]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_generated_dataset_validates(tmp_path):
    generate(tmp_path / "d", plans(), seed=11, shard_size=20)
    report = validate(tmp_path / "d")
    assert report.ok and report.good == report.games_checked == 75


def test_refuses_an_occupied_folder_and_keeps_it(tmp_path):
    generate(tmp_path / "d", plans()[:1], seed=1)
    before = digests(tmp_path / "d")
    with pytest.raises(DatasetError, match="already holds data"):
        generate(tmp_path / "d", plans()[:1], seed=2)
    assert digests(tmp_path / "d") == before


def test_overwrite_replaces_a_dataset(tmp_path):
    generate(tmp_path / "d", plans()[:1], seed=1)
    generate(tmp_path / "d", plans()[:1], seed=2, overwrite=True)
    assert Dataset.open(tmp_path / "d").manifest.master_seed == 2
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_overwrite_never_deletes_a_folder_that_is_not_a_dataset(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("precious")
    with pytest.raises(DatasetError, match="not a war dataset"):
        generate(tmp_path / "mine", plans()[:1], seed=1, overwrite=True)
    assert (tmp_path / "mine" / "thesis.tex").read_text() == "precious"


def test_failed_overwrite_keeps_the_old_dataset(tmp_path, monkeypatch):
    generate(tmp_path / "d", plans()[:1], seed=1)
    before = digests(tmp_path / "d")
    import pipeline.jobs.generate as g

    def boom(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(g, "write_parquet", boom)
    with pytest.raises(RuntimeError):
        generate(tmp_path / "d", plans()[:1], seed=2, overwrite=True)
    assert digests(tmp_path / "d") == before


@pytest.mark.parametrize("kwargs, words", [
    ({"seed": -1}, "seed"), ({"seed": 2**64}, "seed"), ({"seed": 1, "workers": 0}, "workers"),
    ({"seed": 1, "shard_size": 0}, "shard_size"), ({"seed": 1, "shard_size": 10**6}, "shard_size"),
    ({"seed": 1, "workers": 10**4}, "workers"),
])
def test_bad_arguments(tmp_path, kwargs, words):
    with pytest.raises(DatasetError, match=words):
        generate(tmp_path / "d", plans()[:1], **kwargs)
    assert not (tmp_path / "d").exists() or not any((tmp_path / "d").iterdir())


def test_append_adds_rule_sets_and_keeps_the_old_files(tmp_path):
    root = tmp_path / "d"
    generate(root, [Plan(build_rules("classic"), 20)], seed=6, shard_size=10)
    before = digests(root)
    m = generate(root, [Plan(build_rules("razboi"), 15), Plan(build_rules("multiplayer"), 5)], seed=6,
                 shard_size=10, append=True)
    after = digests(root)
    assert all(after[p] == d for p, d in before.items() if p != "manifest.json")
    assert [(e.ordinal, e.rules.variant, e.games) for e in m.rule_sets] == [
        (0, "classic", 20), (1, "razboi", 15), (2, "multiplayer", 5)]
    parts = sorted(p for p in after if p.startswith("events/"))
    assert parts == ["events/variant=classic/part-00000.parquet", "events/variant=classic/part-00001.parquet",
                     "events/variant=multiplayer/part-00004.parquet", "events/variant=razboi/part-00002.parquet",
                     "events/variant=razboi/part-00003.parquet"]
    report = validate(root)
    assert report.ok and report.good == 40


def test_appended_games_equal_a_fresh_dataset_of_the_same_rule_set(tmp_path):
    generate(tmp_path / "a", [Plan(build_rules("classic"), 10)], seed=6)
    generate(tmp_path / "a", [Plan(build_rules("jokers"), 10)], seed=6, append=True)
    generate(tmp_path / "b", [Plan(build_rules("classic"), 10), Plan(build_rules("jokers"), 10)], seed=6)
    assert digests(tmp_path / "a") == digests(tmp_path / "b")


@pytest.mark.parametrize("kwargs, words", [
    ({"seed": 7}, "master seed 6"),
    ({"seed": 6, "overwrite": True}, "do not go together"),
])
def test_append_refusals(tmp_path, kwargs, words):
    root = tmp_path / "d"
    generate(root, [Plan(build_rules("classic"), 5)], seed=6)
    before = digests(root)
    with pytest.raises(DatasetError, match=words):
        generate(root, [Plan(build_rules("razboi"), 5)], append=True, **kwargs)
    assert digests(root) == before


def test_append_refuses_a_rule_set_already_there(tmp_path):
    root = tmp_path / "d"
    generate(root, [Plan(build_rules("classic"), 5)], seed=6)
    with pytest.raises(DatasetError, match="already in"):
        generate(root, [Plan(build_rules("classic"), 5)], seed=6, append=True)


def test_append_needs_a_finished_dataset(tmp_path):
    (tmp_path / "d" / ".war").mkdir(parents=True)
    with pytest.raises(DatasetError, match="unfinished"):
        generate(tmp_path / "d", [Plan(build_rules("classic"), 5)], seed=6, append=True)


# ---------------------------------------------------------------- a user's files, bounds, laziness


def test_overwrite_refuses_a_dataset_folder_holding_a_users_files_and_names_them(tmp_path):
    """--overwrite replaces only what war wrote: a dataset folder that also holds the user's own
    files is refused, naming them, and left exactly as it was."""
    root = tmp_path / "d"
    generate(root, plans()[:1], seed=1)
    (root / "NOTES.md").write_text("mine")
    (root / "analysis").mkdir()
    (root / "analysis" / "plot.py").write_text("print()")
    (root / "games" / "variant=classic" / "notes.txt").write_text("also mine")
    before = digests(root)
    with pytest.raises(DatasetError) as err:
        generate(root, plans()[:1], seed=2, overwrite=True)
    assert "NOTES.md" in str(err.value) and "analysis/" in str(err.value)
    assert "games/variant=classic/notes.txt" in str(err.value)
    assert digests(root) == before
    assert not [p for p in tmp_path.iterdir() if p.name != "d"]


def test_overwrite_replaces_what_an_interrupted_run_left(tmp_path):
    """War's own leftovers (a journal, part files not yet in a manifest, temporary names) are
    its to replace."""
    root = tmp_path / "d"
    generate(root, plans()[:1], seed=1)
    (root / ".war").mkdir()
    (root / "games" / "variant=classic" / "part-00099.parquet").write_bytes(b"x")
    (root / "events" / "variant=classic" / ".part-00099.parquet.1.tmp").write_bytes(b"x")
    generate(root, plans()[:1], seed=2, overwrite=True)
    assert Dataset.open(root).manifest.master_seed == 2
    assert not (root / "games" / "variant=classic" / "part-00099.parquet").exists()


@pytest.mark.parametrize("games", [0, -5, 10**9 + 1, 10**12])
def test_games_out_of_bounds_are_refused_before_anything_is_touched(tmp_path, games):
    root = tmp_path / "d"
    generate(root, plans()[:1], seed=1)
    before = digests(root)
    with pytest.raises(RulesError, match="`games` must be between 1 and 1,000,000,000"):
        generate(root, [Plan(build_rules("classic"), games)], seed=1, overwrite=True)
    assert digests(root) == before
    assert not [p for p in tmp_path.iterdir() if p.name != "d"]


def test_no_rule_set_is_refused(tmp_path):
    with pytest.raises(RulesError, match="nothing to generate"):
        generate(tmp_path / "d", [], seed=1)
    assert not (tmp_path / "d").exists()


def test_too_many_part_files_are_refused(tmp_path):
    with pytest.raises(DatasetError, match="shard_size"):
        generate(tmp_path / "d", [Plan(build_rules("classic"), 10**9)], seed=1, shard_size=100)
    assert not (tmp_path / "d").exists()


def test_shards_are_made_lazily():
    """A billion games are made into shards one at a time, not listed up front."""
    from itertools import islice

    from pipeline.jobs.generate import iter_shards, plan_entries

    big = [Plan(build_rules("classic"), 10**9)]
    shards = iter_shards(big, plan_entries(big, 1, 2000), 1, "/nowhere", 2000)
    first = list(islice(shards, 3))
    assert [(s.start, s.stop, s.part) for s in first] == [(0, 2000, 0), (2000, 4000, 1), (4000, 6000, 2)]


def test_worker_pool_takes_tasks_as_it_goes():
    """run_tasks with workers takes tasks from an endless iterable only as they are needed: a
    failing task ends the run instead of the pool listing every task first."""
    from itertools import count

    from pipeline.jobs.parallel import run_tasks

    with pytest.raises(ValueError, match="task 5"):
        run_tasks(_fail_at_five, count(), 2, fork=True)
    assert run_tasks(_square, iter(range(7)), 2, count=7) == [n * n for n in range(7)]


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_forked_workers_leave_the_parents_objects_to_the_parent():
    """Forked workers start with the parent's objects frozen (their collections do not copy the
    parent's pages), and the parent's collector is as it was after the run, a caller's own
    frozen objects included."""
    import gc

    from pipeline.jobs.parallel import run_tasks

    assert gc.get_freeze_count() == 0
    assert all(frozen > 0 for frozen in run_tasks(_frozen_objects, range(4), 2))
    assert gc.get_freeze_count() == 0
    gc.freeze()
    try:
        run_tasks(_frozen_objects, range(4), 2)
        assert gc.get_freeze_count() > 0  # not unfrozen (a frozen object may die meanwhile)
    finally:
        gc.unfreeze()


def _frozen_objects(n, tick=None):
    import gc

    return gc.get_freeze_count()


def _fail_at_five(n, tick=None):
    if n == 5:
        raise ValueError("task 5")
    return n


def _square(n, tick=None):
    return n * n


def test_ctrl_c_inside_a_deferred_block_takes_effect_at_its_end():
    import os
    import signal
    import time

    import threading

    from pipeline.jobs.parallel import interrupts_deferred

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach only the main thread")
    reached = False
    with pytest.raises(KeyboardInterrupt):
        with interrupts_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            reached = True
    assert reached
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_resume_with_other_arguments_names_each_difference(tmp_path):
    from pipeline.jobs.generate import plan_entries
    from pipeline.jobs.resume import RunJournal

    root = tmp_path / "d"
    generate(root, plans(), seed=1, shard_size=20)
    (root / "manifest.json").unlink()  # as if killed before the manifest, journal and all
    journal = RunJournal(root)
    journal.dir.mkdir()
    entries = plan_entries(plans(), 1, 20)
    journal.check_plan({"seed": 1, "shard_size": 20, "rule_sets": [e.model_dump(mode="json") for e in entries],
                        "kept": [], "first_part": 0}, resume=False)
    other = [Plan(build_rules("classic"), 50), Plan(build_rules("classic", {"pickup": "table_order"}), 30)]
    with pytest.raises(DatasetError) as err:
        generate(root, other, seed=2, shard_size=20, resume=True)
    text = str(err.value)
    assert "`seed` 2 (the interrupted run: 1)" in text
    assert "`games` 50 for classic (the interrupted run: 45)" in text
    assert "pickup=table_order (the interrupted run: winner_first)" in text
    assert "`shard_size`" not in text  # the same as before, so not named
