"""Datasets on an object store: every command against a local S3 server (moto), byte for byte
the same dataset as on disk, with the lock, resume after kill -9, overwrite and Dask."""

import hashlib
import json
import logging
import os
import random
import signal
import socket
import subprocess
import threading
import time

import pyarrow.parquet as pq
import pytest
from moto.server import ThreadedMotoServer
from pyarrow import fs

from pipeline.errors import DatasetError
from pipeline.jobs.generate import Plan, generate
from pipeline.storage.journal import Journal
from pipeline.storage.location import StorePath, location
from pipeline.model.rules import build_rules
from faultkit import procs  # noqa: F401  the fixture: the killed run's workers, found and reaped
from rulekit import digests, war_process
from waitkit import GONE_WITHIN, wait_until

ARGS = ["generate", "--games", "1200", "--shard-size", "150", "--seed", "77", "-q"]


war = war_process


def run(*args, timeout=300):
    proc = war(*args)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


class S3:
    """A local S3 server and a pyarrow file system on it; each test takes its own bucket."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.fs = fs.S3FileSystem(endpoint_override=endpoint, allow_bucket_creation=True)
        self.buckets = 0

    def bucket(self) -> str:
        self.buckets += 1
        name = f"war-{self.buckets}"
        self.fs.create_dir(name)
        return name

    def uri(self, bucket: str, prefix: str = "ds") -> str:
        return f"s3://{bucket}/{prefix}?endpoint_override={self.endpoint}"

    def keys(self, bucket: str, prefix: str = "ds") -> list[str]:
        infos = self.fs.get_file_info(fs.FileSelector(f"{bucket}/{prefix}", recursive=True, allow_not_found=True))
        return sorted(i.path.split("/", 2)[2] for i in infos if i.type == fs.FileType.File)

    def digests(self, bucket: str, prefix: str = "ds") -> dict[str, str]:
        out = {}
        for key in self.keys(bucket, prefix):
            with self.fs.open_input_stream(f"{bucket}/{prefix}/{key}") as f:
                out[key] = hashlib.sha256(f.read()).hexdigest()
        return out


@pytest.fixture(scope="module")
def s3():
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line a request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    saved = {k: os.environ.get(k) for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                                             "AWS_DEFAULT_REGION", "AWS_EC2_METADATA_DISABLED")}
    os.environ.update(AWS_ACCESS_KEY_ID="test", AWS_SECRET_ACCESS_KEY="test",
                      AWS_DEFAULT_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true")
    yield S3(f"http://{host}:{port}")
    server.stop()
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    root = tmp_path_factory.mktemp("local") / "ds"
    code, _, err = run(*ARGS, "--out", root)
    assert code == 0, err
    return root


@pytest.fixture(scope="module")
def remote(s3, local):
    """The same command into a bucket, with two workers."""
    bucket = s3.bucket()
    code, out, err = run(*ARGS, "--workers", "2", "--out", s3.uri(bucket))
    assert code == 0, err
    return bucket


def test_a_dataset_on_s3_has_the_bytes_of_the_local_one(s3, local, remote):
    assert s3.digests(remote) == digests(local)
    assert not any(k.startswith(".") or "/." in k for k in s3.keys(remote))  # no journal, no temporary


@pytest.mark.parametrize("command", [
    ["replay", "{ds}", "17"],
    ["replay", "{ds}", "17", "--battle", "5", "--format", "json"],
    ["query", "{ds}", "war_depth", "--format", "csv"],
    ["query", "{ds}", "--sql", "select kind, count(*) n from events group by kind order by kind", "--format", "csv"],
    ["query", "{ds}", "--sql", "select variant, count(*) n, sum(table_cards) c from battles group by 1", "--format", "csv"],
    ["validate", "{ds}", "-q"],
])
def test_commands_read_a_dataset_on_s3_in_place(s3, local, remote, command):
    here = run(*[a.format(ds=local) for a in command])
    there = run(*[a.format(ds=s3.uri(remote)) for a in command])
    assert there == here
    assert here[0] in (0, 2)


def test_a_missing_bucket_is_one_clear_error(s3):
    code, out, err = run("validate", s3.uri("no-such-bucket"))
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and "no-such-bucket" in err


def test_dask_writes_the_same_bytes_to_s3(s3, tmp_path):
    distributed = pytest.importorskip("distributed")
    plans = [Plan(build_rules("classic"), 40)]
    generate(tmp_path / "local", plans, seed=3, shard_size=10)
    bucket = s3.bucket()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        generate(s3.uri(bucket), plans, seed=3, shard_size=10, scheduler=cluster.scheduler_address)
    assert s3.digests(bucket) == digests(tmp_path / "local")


@pytest.mark.parametrize("delay", [random.Random(i).uniform(1.0, 3.0) for i in range(2)])
def test_resume_on_s3_after_kill_9_gives_the_same_bytes(s3, local, delay, procs):
    bucket = s3.bucket()
    uri = s3.uri(bucket)
    proc = procs.war(*ARGS, "--workers", "2", "--out", uri)
    deadline = time.time() + 60  # the kill lands `delay` into the writing, however slow the start
    while not any(k.endswith("lock") for k in s3.keys(bucket)) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(delay / 2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    for key in s3.keys(bucket):
        if key.endswith(".parquet"):
            pq.read_table(f"{bucket}/ds/{key}", filesystem=s3.fs)  # never half an object
    if "manifest.json" not in s3.keys(bucket):
        code, _, err = run(*ARGS, "--out", uri)
        assert code == 2 and "--resume" in err
        code, _, err = run(*ARGS, "--out", uri, "--resume")
        assert code == 0, err
    assert not procs.gone(GONE_WITHIN), "workers of the killed run left"  # and nothing they write after
    assert s3.digests(bucket) == digests(local)


def lock_of(holder: dict) -> bytes:
    return json.dumps({"token": "x", **holder}).encode()


def test_a_live_writer_elsewhere_is_refused_and_a_silent_one_is_taken_over(s3, monkeypatch):
    bucket = s3.bucket()
    uri = s3.uri(bucket)
    lock = location(uri) / ".war" / "lock"
    lock.put(lock_of({"pid": 1, "host": "another-machine"}))
    plans = [Plan(build_rules("classic"), 20)]
    with pytest.raises(DatasetError, match="another war generate .* on another-machine"):
        generate(uri, plans, seed=1, resume=True)
    with pytest.raises(DatasetError, match="another war generate"):
        generate(uri, plans, seed=1, overwrite=True)
    monkeypatch.setattr(Journal, "STALE", 0.0)  # its lock has not been rewritten for too long
    generate(uri, plans, seed=1, resume=True)
    assert "manifest.json" in s3.keys(bucket) and ".war/lock" not in s3.keys(bucket)


def test_a_dead_writer_on_this_machine_is_taken_over_at_once(s3):
    bucket = s3.bucket()
    uri = s3.uri(bucket)
    dead = subprocess.Popen(["true"])
    dead.wait()
    (location(uri) / ".war" / "lock").put(lock_of({"pid": dead.pid, "host": socket.gethostname()}))
    generate(uri, [Plan(build_rules("classic"), 20)], seed=1, resume=True)
    assert "manifest.json" in s3.keys(bucket)


def test_two_writers_starting_together_get_one_lock(s3, monkeypatch):
    monkeypatch.setattr(Journal, "CLAIM_PAUSE", 0.5)
    root = location(s3.uri(s3.bucket()))
    results = []

    def take() -> None:
        journal = Journal(root)
        try:
            journal.acquire(resume=False)
            results.append("took")
        except DatasetError as err:
            results.append(str(err))

    threads = [threading.Thread(target=take) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results)[1] == "took" and "another war generate" in sorted(results)[0]


def test_the_lock_is_rewritten_while_its_writer_runs(s3, monkeypatch):
    monkeypatch.setattr(Journal, "BEAT", 0.2)
    monkeypatch.setattr(Journal, "CLAIM_PAUSE", 0.0)
    journal = Journal(location(s3.uri(s3.bucket())))
    journal.acquire(resume=False)
    try:
        first = journal.lock.mtime()  # the store stamps whole seconds: a beat a second later moves it
        assert wait_until(lambda: journal.lock.mtime() > first), "the lock was not rewritten in a minute"
    finally:
        journal.release()
    assert not journal.lock.exists()


def test_a_rewrite_under_way_does_not_bring_the_lock_back_after_release(s3, monkeypatch):
    monkeypatch.setattr(Journal, "BEAT", 0.1)
    monkeypatch.setattr(Journal, "CLAIM_PAUSE", 0.0)
    put = StorePath.put
    in_put = threading.Event()
    beaters = set()

    def slow_put(self, data):
        if threading.current_thread().name == "war-lock-beat":
            beaters.add(threading.current_thread())
            in_put.set()
            time.sleep(0.5)
        put(self, data)

    monkeypatch.setattr(StorePath, "put", slow_put)
    journal = Journal(location(s3.uri(s3.bucket())))
    journal.acquire(resume=False)
    assert in_put.wait(60)
    journal.release()
    # every rewrite that was under way has landed (release() should have waited for it)
    assert wait_until(lambda: not any(t.is_alive() for t in beaters)), "the lock's rewriting never stopped"
    assert not journal.lock.exists()


def test_a_writer_whose_lock_was_taken_over_stops_rewriting_it(s3, monkeypatch):
    monkeypatch.setattr(Journal, "BEAT", 0.1)
    monkeypatch.setattr(Journal, "CLAIM_PAUSE", 0.0)
    put = StorePath.put
    other = lock_of({"pid": 1, "host": "another-machine"})
    taken = threading.Event()
    beater = []
    puts_after = []

    def put_then_taken_over(self, data):
        """The take-over lands right after one of the writer's beats, from the beat's own thread:
        a take-over during a rewrite is a race no store settles, and a test thread put in between
        would race the next beat on a loaded machine."""
        put(self, data)
        if threading.current_thread().name == "war-lock-beat":
            if taken.is_set():
                puts_after.append(data)
            else:
                put(self, other)  # a --resume elsewhere after this writer was cut off for a minute
                beater.append(threading.current_thread())
                taken.set()

    monkeypatch.setattr(StorePath, "put", put_then_taken_over)
    journal = Journal(location(s3.uri(s3.bucket())))
    journal.acquire(resume=False)
    assert taken.wait(60)
    # the writer's next beat sees the lock is another's and stops, or (broken) writes over it
    wait_until(lambda: puts_after or not beater[0].is_alive())
    assert not puts_after and journal.lock.read_bytes() == other
    journal.release()
    assert journal.lock.read_bytes() == other


def test_overwrite_on_s3_leaves_only_the_new_dataset(s3, tmp_path):
    bucket = s3.bucket()
    uri = s3.uri(bucket)
    generate(uri, [Plan(build_rules("classic"), 30)], seed=5, shard_size=10)
    generate(uri, [Plan(build_rules("jokers"), 12)], seed=5, shard_size=10, overwrite=True)
    generate(tmp_path / "d", [Plan(build_rules("jokers"), 12)], seed=5, shard_size=10)
    assert s3.digests(bucket) == digests(tmp_path / "d")


def test_append_on_s3_matches_append_on_disk(s3, tmp_path):
    bucket = s3.bucket()
    uri = s3.uri(bucket)
    for where in (uri, tmp_path / "d"):
        generate(where, [Plan(build_rules("classic"), 12)], seed=5, shard_size=10)
        generate(where, [Plan(build_rules("jokers"), 12)], seed=5, shard_size=10, append=True)
    assert s3.digests(bucket) == digests(tmp_path / "d")


def test_a_location_crosses_processes_as_its_uri(s3):
    root = location(s3.uri("b", "some/prefix"))
    child = root / "events" / "part-00000.parquet"
    assert isinstance(child, StorePath) and location(str(child)) == child
    assert child.path == "b/some/prefix/events/part-00000.parquet"
    assert child.relative_to(root).as_posix() == "events/part-00000.parquet"


def test_a_remote_file_system_with_folders_writes_through_a_temporary_name(tmp_path):
    """pyarrow's in-memory file system stands for HDFS and the like (not an object store): files
    are moved into place from hidden temporary names, none is left, and the dataset is the local
    one byte for byte."""
    root = location("mock:///war-test/ds")
    assert not root.object_store
    plans = [Plan(build_rules("classic"), 30)]
    generate(root, plans, seed=3, shard_size=10)
    generate(tmp_path / "d", plans, seed=3, shard_size=10)
    found = {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in root.rglob("*") if p.is_file()}
    assert found == digests(tmp_path / "d")
