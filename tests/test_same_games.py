"""Same games: the commands that wrote `fixtures/dataset-same-games` with the tree before families
became plugins (commit 7c7d083, fixtures/README.md) write, with this tree, the same games and
events, byte for byte, and the same manifest (rule sets, ids, seeds, files), whichever engine
plays them. Every built-in variant is in it, at its defaults and under other options, pickup
orders, policies (randomized ones too), a tournament and every deal of a small deck."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.storage.files import sha256_file

FIXTURE = Path(__file__).parent / "fixtures" / "dataset-same-games"

# The commands, in order, as fixtures/README.md gives them (each after `war generate`).
FIRST = ["-v", "classic", "-v", "multiplayer", "-v", "jokers", "-v", "razboi", "-v", "steal", "-v", "arneson",
         "--games", "24", "--shard-size", "12", "--seed", "44"]
APPENDS = [
    ["-v", "classic", "--set", "pickup=pooled", "--set", "shortfall=lose", "--set", "war_tiebreak=single_up"],
    ["-v", "classic", "--set", "pickup=winner_first", "--set", "ranks=5", "--set", "suits=2", "--name", "small fixed"],
    ["-v", "multiplayer", "--set", "players=5", "--set", "pickup=natural", "--set", "win=wars:3"],
    ["-v", "razboi", "--set", "ace_value=1", "--set", "pickup=sorted"],
    ["-v", "jokers", "--set", "war_down=1", "--set", "pickup=table_order", "--set", "max_battles=300"],
    ["-v", "steal", "--policy", "0=greedy", "--policy", "1=steal:random,top:random"],
    ["-v", "steal", "--set", "players=3", "--set", "war_tiebreak=single_up", "--policy", "*=cautious"],
    ["-v", "steal", "--set", "ranks=6", "--set", "suits=3", "--tournament", "always", "--tournament", "threshold:3"],
    ["-v", "arneson", "--policy", "0=highest", "--policy", "1=random"],
    ["-v", "arneson", "--set", "pickup=table_order", "--set", "shortfall=lose", "--policy", "*=save_high"],
]
ALL_DEALS = ["-v", "classic", "--all-deals", "--set", "ranks=3", "--set", "suits=2", "--shard-size", "200"]


def _war(monkeypatch, *args: str) -> None:
    from pipeline.cli import main

    monkeypatch.setattr(sys, "argv", ["war", "generate", *args])
    try:
        main()
    except SystemExit as exc:
        assert not exc.code, f"war generate {' '.join(args)} -> {exc.code}"


def _regenerate(monkeypatch, out: Path) -> None:
    _war(monkeypatch, *FIRST, "--out", str(out))
    for args in APPENDS:
        _war(monkeypatch, *args, "--games", "24", "--shard-size", "12", "--out", str(out), "--append")
    _war(monkeypatch, *ALL_DEALS, "--out", str(out), "--append")


def _same_table(ours: Path, theirs: Path) -> None:
    """The two Parquet files hold the same table (schema, metadata, every value); and the same
    bytes when the same Parquet writer wrote them (pyarrow's version is in each file)."""
    mine, old = pq.read_table(ours), pq.read_table(theirs)
    assert mine.schema.equals(old.schema, check_metadata=True), ours
    assert mine.equals(old), f"{ours.relative_to(ours.parents[2])} differs from the old tree's"
    if pq.ParquetFile(ours).metadata.created_by == pq.ParquetFile(theirs).metadata.created_by:
        assert sha256_file(ours) == sha256_file(theirs), ours


@pytest.mark.parametrize("engine", ["chosen", "reference"])
def test_every_built_in_variant_plays_the_games_the_old_tree_wrote(tmp_path, monkeypatch, engine):
    if engine == "reference":
        monkeypatch.setenv("WAR_ENGINE", "reference")
    else:
        monkeypatch.delenv("WAR_ENGINE", raising=False)
    out = tmp_path / "new"
    _regenerate(monkeypatch, out)
    old = json.loads((FIXTURE / "manifest.json").read_text(encoding="utf-8"))
    new = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert new["rule_sets"] == old["rule_sets"]  # every rule set, its id, seed, policies, name
    assert {k: v for k, v in new.items() if k != "files"} == {k: v for k, v in old.items() if k != "files"}
    files = [f["path"] for f in old["files"]]
    assert [f["path"] for f in new["files"]] == files
    assert {f["table"] for f in old["files"]} == {"games", "events"}
    assert {e["rules"]["variant"] for e in old["rule_sets"]} == \
        {"classic", "multiplayer", "jokers", "razboi", "steal", "arneson"}
    for path in files:
        _same_table(out / path, FIXTURE / path)
    same_writer = pa.__version__ in pq.ParquetFile(FIXTURE / files[0]).metadata.created_by
    if same_writer:
        assert new["files"] == old["files"]  # rows and checksums too


def test_the_old_trees_dataset_validates(tmp_path):
    """Today's war reads the old tree's dataset and finds every game as it plays it."""
    from pipeline.jobs.validate import validate

    root = tmp_path / "old"
    shutil.copytree(FIXTURE, root)
    report = validate(root)
    assert report.ok, [str(p) for p in report.problems][:3]
    assert report.good == sum(e["games"] for e in json.loads((FIXTURE / "manifest.json").read_text())["rule_sets"])
