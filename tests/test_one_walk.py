"""Work done once that used to be done again on the way: `war replay` opens its dataset once; a
query's SQL is parsed once (the check, the views it reads and whether it is an EXPLAIN all come
from one parse); the engine of a shard is chosen once (the choice reads every option of the rule
set); generate checks its output folder once. Each test counts the calls, so a second walk
brought back fails here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import open_query
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules


def counted(monkeypatch, owner, name: str) -> list:
    """Replace owner.name by a wrapper that counts its calls (the list's length)."""
    calls: list = []
    original = getattr(owner, name)

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return calls


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("walks") / "d"
    generate(root, [Plan(build_rules("classic"), 30), Plan(build_rules("steal"), 30)], seed=3, shard_size=10)
    return root


@pytest.mark.parametrize("fmt", ["text", "json", "html"])
def test_war_replay_opens_its_dataset_once(dataset, monkeypatch, capsys, fmt):
    from pipeline.cli import main
    from pipeline.storage.dataset import Dataset

    opened = counted(monkeypatch, Dataset, "open")
    monkeypatch.setattr(sys, "argv", ["war", "replay", str(dataset), "1000000004", "--format", fmt])
    with pytest.raises(SystemExit) as done:
        main()
    assert done.value.code == 0, capsys.readouterr().err
    assert len(opened) == 1


def test_a_query_is_parsed_once(dataset, monkeypatch):
    """One parse tree answers the check, the views it reads and whether it is an EXPLAIN; the
    statements are parsed by kind only for what the tree does not serialise (EXPLAIN, PRAGMA)."""
    from pipeline.jobs.query import reads, safety

    trees = counted(monkeypatch, safety, "parse_tree")
    other_trees = counted(monkeypatch, reads, "parse_tree")
    by_kind = counted(monkeypatch, safety, "parse_statements")
    for sql in ("SELECT count(*) AS n FROM events", "SELECT count(*) AS n FROM games"):
        with open_query(dataset, sql=sql) as result:
            assert [batch.column(0)[0].as_py() for batch in result.batches()][0] > 0
    with open_query(dataset, name="outcomes") as result:
        assert list(result.batches())
    assert (len(trees), len(other_trees), len(by_kind)) == (3, 0, 0)
    with open_query(dataset, sql="EXPLAIN SELECT * FROM battles") as result:
        assert result.explain
    assert (len(trees), len(by_kind)) == (4, 2)  # the statement, then its inner one, by kind


def test_serve_parses_a_query_once_to_choose_its_session_and_run_it(dataset, monkeypatch):
    from pipeline.jobs.query import reads, safety
    from pipeline.present.site import Snapshot

    snapshot = Snapshot(dataset, "d", "digest", [])
    trees = counted(monkeypatch, safety, "parse_tree")
    other_trees = counted(monkeypatch, reads, "parse_tree")
    assert snapshot.run("SELECT count(*) AS n FROM battles")[0]["n"] > 0
    assert (len(trees), len(other_trees)) == (1, 0)


def test_the_engine_is_chosen_once_a_shard(dataset, monkeypatch, tmp_path):
    """Generation and validation each ask engines.choice once for every shard (6 here)."""
    from pipeline.engines import choice

    chosen = counted(monkeypatch, choice, "supported")
    generate(tmp_path / "g", [Plan(build_rules("classic"), 30), Plan(build_rules("steal"), 30)], seed=3,
             shard_size=10)
    assert len(chosen) == 6
    chosen.clear()
    assert validate(tmp_path / "g").ok
    assert len(chosen) == 6


@pytest.mark.parametrize("overwrite", [False, True])
def test_generate_checks_its_output_once(dataset, monkeypatch, tmp_path, overwrite):
    """Whether the output folder lies inside a dataset's own files is a walk up its parents:
    generate takes it once, before a Dask cluster is reached, and not again where it prepares
    the folder."""
    from pipeline.jobs import place

    out = tmp_path / "out"
    if overwrite:
        generate(out, [Plan(build_rules("classic"), 5)], seed=1)
    walks = counted(monkeypatch, place, "inside_dataset")
    generate(out, [Plan(build_rules("classic"), 5)], seed=1, overwrite=overwrite)
    assert len(walks) == 1
