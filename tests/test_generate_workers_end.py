"""A run's workers end beside its tail (the manifest, the journal: jobs.parallel.run_tasks'
`exits`), and generate returns only once they have: no worker process nor the thread that waits
for them outlives the call, also when the tail fails; the dataset is the one worker's."""

import hashlib
import multiprocessing as mp
import threading

import pytest

from pipeline.jobs import generate as generating
from pipeline.jobs.generate import Plan, generate
from pipeline.model.rules import build_rules


def _digests(root):
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _waiting() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name == "war-workers-exit"]


def test_two_workers_have_ended_when_generate_returns(tmp_path):
    plans = [Plan(build_rules("classic"), 60)]
    generate(tmp_path / "one", plans, seed=3, shard_size=10)
    generate(tmp_path / "two", plans, seed=3, workers=2, shard_size=10)
    assert not mp.active_children() and not _waiting()
    assert _digests(tmp_path / "one") == _digests(tmp_path / "two")


def test_a_tail_that_fails_still_waits_for_the_workers(tmp_path, monkeypatch):
    def failing(root, paths):
        raise OSError(28, "No space left on device", str(root))

    monkeypatch.setattr(generating, "make_durable", failing)
    with pytest.raises(OSError):
        generate(tmp_path / "d", [Plan(build_rules("classic"), 40)], seed=3, workers=2, shard_size=10)
    assert not mp.active_children() and not _waiting()
