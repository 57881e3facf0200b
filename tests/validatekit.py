"""Shared by the tests of `war validate` (tests/test_validate_*.py) and of validating logged
decisions (tests/test_policy_decisions.py): two small datasets, and the helpers that tamper with
a copy of one.

The datasets are generated once per test module: 120 classic games (seed 5, shards of 50, so
three part files per table) and 40 three-player games with pooled pickup (shards of 20), which
have `reshuffle` events and a card set aside at the deal. A test module registers them as the
fixtures `classic` and `pooled` by importing `classic_dataset` and `pooled_dataset`, and the
fixture `manifest` by importing `manifest_mode`. A test copies a dataset, tampers the copy by
rewriting a Parquet file with pyarrow (same schema), and checks that validation names the
tampered game (and the event, where there is one). Most tampers run twice (`manifest`): with the
manifest left stale, so the checksum problem must be reported as well as the game, and with the
manifest's sha256 and row count fixed up, so that only the game-level checks can catch it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.storage.dataset import MANIFEST, Dataset
from pipeline.model.deal import Deal
from pipeline.jobs.generate import Plan, generate
from pipeline.log.tables import game_record
from pipeline.model.rules import build_rules
from pipeline.storage.files import sha256_file
from pipeline.jobs.validate import validate
from rulekit import event_dict, rewrite_game_events


CLASSIC_GAMES = 120
POOLED_GAMES = 40
CLASSIC_GAME = 57  # in the middle shard (games 50..99)
POOLED_GAME = 27   # in the second shard (games 20..39)


@pytest.fixture(scope="module", name="classic")
def classic_dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("validate") / "classic"
    generate(out, [Plan(build_rules("classic"), CLASSIC_GAMES)], seed=5, shard_size=50)
    return out


@pytest.fixture(scope="module", name="pooled")
def pooled_dataset(tmp_path_factory) -> Path:
    """Three players (one card set aside at the deal), won cards pooled and reshuffled.
    Multiplayer's one-card wars avoid the classic-pooled defect that
    tests/test_validate_mechanics.py keeps as a regression."""
    out = tmp_path_factory.mktemp("validate") / "pooled"
    generate(out, [Plan(build_rules("multiplayer", {"pickup": "pooled"}), POOLED_GAMES)],
             seed=5, shard_size=20)
    return out


@pytest.fixture(params=["stale", "fixed"], name="manifest")
def manifest_mode(request) -> str:
    return request.param


def copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst


def files_of(root: Path, gid: int) -> tuple[str, str]:
    """(games file, events file) holding a game, as manifest paths."""
    _, gf, ef = Dataset.open(root).locate(gid)
    return gf.path, ef.path


def rewrite(root: Path, rel: str, edit) -> None:
    """Rewrite one Parquet file: rows -> edit(rows), same schema (and schema metadata)."""
    path = root / rel
    table = pq.read_table(path)
    rows = edit(table.to_pylist())
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path, compression="zstd")


def edit_game(root: Path, gid: int, table: str, edit) -> str:
    """Replace one game's rows in its games or events file by edit(its rows); the file's path.
    Events are edited one dict per event and written back encoded (rulekit), so a test tampers
    with what happened, not with the encoding."""
    rel = files_of(root, gid)[0 if table == "games" else 1]
    if table == "events":
        rewrite_game_events(root / rel, gid, edit)
        return rel

    def whole(rows):
        first = next(i for i, r in enumerate(rows) if r["game_id"] == gid)
        stop = first
        while stop < len(rows) and rows[stop]["game_id"] == gid:
            stop += 1
        return rows[:first] + edit(rows[first:stop]) + rows[stop:]

    rewrite(root, rel, whole)
    return rel


def record_of(root: Path, gid: int) -> dict:
    rows = pq.read_table(root / files_of(root, gid)[0]).to_pylist()
    return next(r for r in rows if r["game_id"] == gid)


def replace_game(root: Path, gid: int, log, summary) -> tuple[str, str]:
    """Write an engine log under game `gid`, with the record the generator would build for it
    (same id, index and seed as before). Returns (events file, games file)."""
    entry = Dataset.open(root).rule_set(0)
    old = record_of(root, gid)
    record = game_record(gid, old["game_index"], old["game_seed"], entry.rules, entry.policies,
                         Deal((), explicit=False), summary, log)
    events = [event_dict(gid, i, ev) for i, ev in enumerate(log)]
    return (edit_game(root, gid, "events", lambda rows: events),
            edit_game(root, gid, "games", lambda rows: [record]))


def fix_manifest(root: Path, *rels: str) -> None:
    """Make the manifest agree with the files as they are now (sha256 and row count)."""
    path = root / MANIFEST
    data = json.loads(path.read_text())
    for f in data["files"]:
        if f["path"] in rels:
            f["sha256"] = sha256_file(root / f["path"])
            f["rows"] = pq.ParquetFile(root / f["path"]).metadata.num_rows
    path.write_text(json.dumps(data, indent=2))


def edit_manifest_file(root: Path, rel: str, **changes) -> None:
    path = root / MANIFEST
    data = json.loads(path.read_text())
    entry = next(f for f in data["files"] if f["path"] == rel)
    entry.update(changes)
    path.write_text(json.dumps(data, indent=2))


def finish(root: Path, mode: str, *rels: str):
    """Fix up the manifest if asked, then validate."""
    if mode == "fixed":
        fix_manifest(root, *rels)
    return validate(root)


def assert_caught(report, gid: int, mode: str, rels: tuple[str, ...], seq: int | None = None,
                  message: str | None = None):
    """The tampered game, and only it, is bad; named with its seq; the checksum reported when stale."""
    assert not report.ok
    assert report.bad == 1, report.problems
    games = [p for p in report.problems if p.game_id is not None]
    assert [p.game_id for p in games] == [gid], games
    problem = games[0]
    if seq is not None:
        assert problem.seq == seq, str(problem)
    if message is not None:
        assert message in problem.message, str(problem)
    file_problems = [p for p in report.problems if p.game_id is None]
    if mode == "stale":
        for rel in rels:
            assert any(p.file == rel and "checksum differs" in p.message for p in file_problems), file_problems
    else:
        assert file_problems == []
    return problem


def nth_of_kind(rows: list[dict], kind: str, after: int = 0) -> int:
    """Index of the first event of `kind` at or after `after` (or the first one at all)."""
    hits = [i for i, r in enumerate(rows) if r["kind"] == kind]
    assert hits, f"no {kind} event"
    return next((i for i in hits if i >= after), hits[0])
