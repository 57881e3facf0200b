"""Shards, resume after kill -9, the writer's lock, and the Dask executor."""

import contextlib
import errno
import os
import random
import signal
import time

import pyarrow.parquet as pq
import pytest

from pipeline.errors import DatasetError, StorageError, storage_error
from pipeline.jobs import generate as generate_job
from pipeline.jobs.generate import Plan, generate, make_plans
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules
from faultkit import procs  # noqa: F401  the fixture: the killed run's workers, found and reaped
from rulekit import digests, war_process
from waitkit import GONE_WITHIN

ARGS = ["generate", "--games", "2400", "--shard-size", "150", "--seed", "77", "-q"]


war = war_process


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    root = tmp_path_factory.mktemp("ref") / "ds"
    proc = war(*ARGS, "--out", root)
    assert proc.wait(timeout=300) == 0, proc.stderr.read()
    return digests(root)


@pytest.mark.parametrize("delay", [random.Random(i).uniform(0.8, 4.0) for i in range(3)])
def test_resume_after_kill_9_gives_the_same_bytes(tmp_path, reference, delay, procs):
    root = tmp_path / "ds"
    proc = procs.war(*ARGS, "--workers", "2", "--out", root)
    deadline = time.time() + 60  # the kill lands `delay` into the writing, however slow the start
    while not (root / ".war" / "lock").exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(delay / 2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    visible = [p for p in root.rglob("*.parquet") if not p.name.startswith(".")]
    for p in visible:
        pq.read_table(p)  # no reader ever sees half a file
    if not (root / "manifest.json").exists():
        again = war(*ARGS, "--out", root)
        again.wait(timeout=60)
        assert again.returncode == 2 and "--resume" in again.stderr.read()
        finish = war(*ARGS, "--out", root, "--resume")
        assert finish.wait(timeout=300) == 0, finish.stderr.read()
    elif (root / ".war").exists():  # killed after its manifest, while it removed its journal
        finish = war(*ARGS, "--out", root, "--resume")
        assert finish.wait(timeout=60) == 2 and "nothing to resume" in finish.stderr.read()
    # an orphaned worker notices its parent is gone and ends, writing nothing more
    assert not procs.gone(GONE_WITHIN), "workers of the killed run left"
    assert digests(root) == reference


def test_a_second_writer_is_refused(tmp_path):
    """While one war generate writes a dataset, a second one on the same folder is refused and
    changes nothing: the first finishes into a dataset that validates. The first writes enough
    games to still hold the lock when the second, which loads the engine first, asks for it."""
    root = tmp_path / "ds"
    args = ["generate", "--games", "40000", "--shard-size", "150", "--seed", "77", "-q"]
    first = war(*args, "--out", root)
    deadline = time.time() + 30
    while not (root / ".war" / "lock").exists() and time.time() < deadline:
        time.sleep(0.05)
    second = war(*args, "--out", root, "--resume")
    assert second.wait(timeout=60) == 2
    assert "another war generate" in second.stderr.read()
    assert first.wait(timeout=300) == 0
    assert validate(root).ok


def plans():
    return [Plan(build_rules("classic"), 40)]


def test_resume_with_other_arguments_is_refused(tmp_path):
    root = tmp_path / "d"
    (root / ".war").mkdir(parents=True)
    (root / ".war" / "plan.json").write_text("{}")
    with pytest.raises(DatasetError, match="arguments differ"):
        generate(root, plans(), seed=1, resume=True)


def test_nothing_to_resume(tmp_path):
    with pytest.raises(DatasetError, match="nothing to resume"):
        generate(tmp_path / "d", plans(), seed=1, resume=True)
    generate(tmp_path / "d", plans(), seed=1)
    with pytest.raises(DatasetError, match="finished"):
        generate(tmp_path / "d", plans(), seed=1, resume=True)


@pytest.fixture
def fsyncs(monkeypatch) -> list[int]:
    """The file descriptors os.fsync is called on during the test (it still fsyncs them)."""
    calls, real = [], os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd))[1])
    return calls


def test_the_files_reach_the_disk_once_before_the_manifest(tmp_path, monkeypatch, fsyncs):
    """A shard hands its part files and journal record to the disk without waiting for them (no
    fsync a shard); the run waits once, for all of them, before it writes the manifest."""
    durable = []
    real_durable = generate_job.make_durable

    def spy(root, paths):
        paths = list(paths)
        durable.append((sorted(paths), (root / "manifest.json").exists(), all((root / p).is_file() for p in paths)))
        real_durable(root, paths)

    monkeypatch.setattr(generate_job, "make_durable", spy)
    manifest = generate(tmp_path / "d", plans(), seed=1, shard_size=10)
    assert len(durable) == 1
    paths, manifest_written, all_written = durable[0]
    assert paths == sorted(f.path for f in manifest.files) and len(paths) == 8
    assert all_written and not manifest_written
    assert len(fsyncs) == 2  # the journal's plan and the manifest


def test_a_shard_for_a_dask_worker_fsyncs_its_own_files(tmp_path, monkeypatch, fsyncs):
    """On a cluster other machines write the files, out of reach of the client's make_durable,
    so each shard it sends waits for its own two part files and record; a local shard waits for
    none of them."""
    sent = []
    monkeypatch.setattr(generate_job, "run_tasks_dask",
                        lambda fn, tasks, *args: [fn(shard, None) for shard in tasks if not sent.append(shard)])
    monkeypatch.setattr(generate_job, "dask_client", lambda scheduler: contextlib.nullcontext("a client"))
    generate(tmp_path / "d", plans(), seed=1, shard_size=20, scheduler="tcp://cluster:8786")
    assert len(sent) == 2 and all(shard.durable for shard in sent)
    assert len(fsyncs) == 2 + 3 * 2  # the plan, the manifest, and each shard's three files
    local = list(generate_job.iter_shards(plans(), generate_job.plan_entries(plans(), 1, 20), 1, tmp_path / "e", 20))
    assert local and not any(shard.durable for shard in local)


def test_resume_after_a_power_cut_plays_again_what_did_not_reach_the_disk(tmp_path, monkeypatch):
    """A run whose final flush fails says so and keeps its journal. What a power cut before that
    flush can leave (an empty part file, a missing one, an empty record) is played again by
    --resume, which checks every recorded file against its checksum: the bytes of a clean run."""
    reference = tmp_path / "ref"
    generate(reference, plans(), seed=1, shard_size=10)
    root = tmp_path / "d"

    def failing(where, paths):
        raise storage_error(OSError(errno.EIO, "Input/output error"), where)

    monkeypatch.setattr(generate_job, "make_durable", failing)
    with pytest.raises(StorageError, match="Input/output error"):
        generate(root, plans(), seed=1, shard_size=10)
    monkeypatch.undo()
    assert not (root / "manifest.json").exists()
    records = root / ".war" / "shards"
    assert len(list(records.glob("part-*.json"))) == 4
    (root / "events" / "variant=classic" / "part-00001.parquet").write_bytes(b"")
    (root / "games" / "variant=classic" / "part-00002.parquet").unlink()
    (records / "part-00003.json").write_bytes(b"")
    generate(root, plans(), seed=1, shard_size=10, resume=True)
    assert digests(root) == digests(reference)


def test_the_journal_is_gone_when_finished(tmp_path):
    generate(tmp_path / "d", plans(), seed=1, shard_size=10, workers=2)
    assert not (tmp_path / "d" / ".war").exists()


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        yield cluster


def test_dask_local_cluster_gives_the_same_bytes(tmp_path, cluster):
    local = tmp_path / "local"
    generate(local, plans(), seed=3, shard_size=10)
    generate(tmp_path / "dask", plans(), seed=3, shard_size=10, scheduler=cluster.scheduler_address)
    assert digests(local) == digests(tmp_path / "dask")


def test_dask_plays_every_deal_and_stores_the_games_alone_as_locally(tmp_path, cluster):
    """--all-deals --log games on a Dask cluster: the bytes of a local run, and it validates."""
    every = [Plan(build_rules("classic", {"ranks": "7", "suits": "1", "pickup": "winner_first"}), 5040,
                  all_deals=True, log="games")]
    generate(tmp_path / "local", every, shard_size=700, workers=2)
    generate(tmp_path / "dask", every, shard_size=700, scheduler=cluster.scheduler_address)
    assert digests(tmp_path / "local") == digests(tmp_path / "dask")
    report = validate(tmp_path / "dask")
    assert report.ok and report.good == 5040


def test_dask_searches_find_what_local_workers_find(cluster):
    """A search of rounds is a pure function of its arguments, wherever its searchers run."""
    from pipeline.jobs.search import search
    rules = build_rules("classic", {"ranks": "10", "suits": "1", "pickup": "winner_first"})
    local = search(rules, rounds=3, searchers=3, seed=5, keep=5, workers=2)
    remote = search(rules, rounds=3, searchers=3, seed=5, keep=5, scheduler=cluster.scheduler_address)
    assert remote.records == local.records and local.records and remote.deals == local.deals
    open_play = build_rules("classic", {"ranks": "6", "suits": "4", "pickup": "natural", "war_down": "0"})
    local = search(open_play, rounds=2, searchers=2, seed=5, keep=3, workers=2)
    assert search(open_play, rounds=2, searchers=2, seed=5, keep=3, scheduler=cluster.scheduler_address).records \
        == local.records


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path):
    pytest.importorskip("distributed")
    with pytest.raises(DatasetError, match="cannot reach the Dask scheduler"):
        generate(tmp_path / "d", plans(), seed=3, scheduler="tcp://127.0.0.1:9")


def test_dask_counts_every_deal_as_locally(tmp_path, cluster, monkeypatch):
    """--log counts on a Dask cluster, in shards of 2,000 deals: the bytes of a local run."""
    from pipeline.jobs import counts

    monkeypatch.setattr(counts, "SMALLEST_COUNT_SHARD", 2000)
    every = make_plans([build_rules("classic", {"ranks": "7", "suits": "1", "pickup": "natural",
                                                "war_down": "0"})], all_deals=True, log="counts")
    generate(tmp_path / "local", every, workers=2)
    generate(tmp_path / "dask", every, scheduler=cluster.scheduler_address)
    assert digests(tmp_path / "local") == digests(tmp_path / "dask")
    assert validate(tmp_path / "dask").ok
