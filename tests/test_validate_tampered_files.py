"""`war validate` against damaged files and manifests (README, The dataset and Validation): a
byte appended, a checksum or row count in the manifest changed, a listed file missing and an
unlisted one present, a folder without a manifest, a file rewritten by another tool (another
compression, no metadata, plain strings) or with a column dropped, a dataset with no games, an
append interrupted or still running, and an events file whose data pages do not decode. Each
problem names its file, and the games a file held are reported bad, by id, when they cannot be
checked. The datasets and tampering helpers are those of tests/validatekit.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.storage.dataset import MANIFEST, WORK_DIR, Dataset
from pipeline.errors import DatasetError
from pipeline.jobs.generate import Plan, generate
from pipeline.model.rules import build_rules
from pipeline.model.schema import SCHEMA_VERSION
from pipeline.jobs.validate import validate
from validatekit import CLASSIC_GAME, CLASSIC_GAMES, copy, edit_manifest_file, files_of
from validatekit import classic_dataset  # noqa: F401 (fixtures)


# --- 1. checksums and row counts --------------------------------------------------------------

def test_appended_byte(classic, tmp_path):
    """A byte appended to an events file: its checksum differs, the file no longer reads as
    Parquet, and every game it holds is reported bad, by id."""
    root = copy(classic, tmp_path)
    _, rel = files_of(root, CLASSIC_GAME)
    with open(root / rel, "ab") as f:
        f.write(b"\0")
    report = validate(root)
    assert not report.ok
    assert any(p.file == rel and p.game_id is None and "checksum differs" in p.message for p in report.problems)
    assert report.bad == 50 and report.good == CLASSIC_GAMES - 50
    assert {p.game_id for p in report.problems if p.game_id is not None} == set(range(50, 100))


def test_manifest_checksum_changed(classic, tmp_path):
    """The manifest's sha256 of a file changed (the data intact): a file problem naming it.
    The games themselves still check out, so none is counted bad."""
    root = copy(classic, tmp_path)
    _, rel = files_of(root, CLASSIC_GAME)
    edit_manifest_file(root, rel, sha256="0" * 64)
    report = validate(root)
    assert not report.ok
    (problem,) = report.problems
    assert problem.file == rel and problem.game_id is None and "checksum differs" in problem.message
    assert report.summary().endswith("bad: 0, 1 file problem")

@pytest.mark.parametrize("table", ["games", "events"])
def test_manifest_row_count_changed(classic, tmp_path, table):
    """The manifest's row count of a file changed: a file problem naming it, with both counts."""
    root = copy(classic, tmp_path)
    rel = files_of(root, CLASSIC_GAME)[0 if table == "games" else 1]
    rows = pq.ParquetFile(root / rel).metadata.num_rows
    edit_manifest_file(root, rel, rows=rows + 1)
    report = validate(root)
    assert not report.ok
    (problem,) = report.problems
    assert problem.file == rel and problem.game_id is None
    assert f"row count differs from the manifest: expected {rows + 1}, found {rows}" in problem.message


# --- 2. missing and unlisted files ------------------------------------------------------------

@pytest.mark.parametrize("table", ["games", "events"])
def test_missing_file(classic, tmp_path, table):
    """A listed data file deleted: reported missing, and every game it held reported bad."""
    root = copy(classic, tmp_path)
    rel = files_of(root, CLASSIC_GAME)[0 if table == "games" else 1]
    (root / rel).unlink()
    report = validate(root)
    assert not report.ok
    assert any(p.file == rel and p.game_id is None and "missing" in p.message for p in report.problems)
    assert report.games_checked == CLASSIC_GAMES
    assert report.bad == 50 and report.good == CLASSIC_GAMES - 50
    named = [p for p in report.problems if p.game_id is not None]
    assert {p.game_id for p in named} == set(range(50, 100))
    assert all(p.file == rel for p in named)


def test_unlisted_file(classic, tmp_path):
    """An extra Parquet file in events/ that the manifest does not list (readers of the folder
    would see its rows twice): a file problem naming it."""
    root = copy(classic, tmp_path)
    _, rel = files_of(root, CLASSIC_GAME)
    extra = Path(rel).with_name("part-00099.parquet").as_posix()
    shutil.copy(root / rel, root / extra)
    report = validate(root)
    assert not report.ok
    (problem,) = report.problems
    assert problem.file == extra and "not listed in the manifest" in problem.message


# --- 3. opening a folder that is not a finished dataset --------------------------------------

def test_no_manifest(classic, tmp_path):
    """A folder without manifest.json is not a dataset; with a .war work folder it is unfinished."""
    root = copy(classic, tmp_path)
    (root / MANIFEST).unlink()
    with pytest.raises(DatasetError, match="no manifest.json"):
        Dataset.open(root)
    with pytest.raises(DatasetError, match="no manifest.json"):
        validate(root)
    (root / WORK_DIR).mkdir()
    with pytest.raises(DatasetError, match="unfinished"):
        Dataset.open(root)


# --- 4. validation that explains (issue 12) --------------------------------------------------

def test_a_file_rewritten_by_another_tool_is_explained_and_its_games_still_checked(classic, tmp_path):
    """Same rows, no key-value metadata, snappy instead of zstd, plain strings instead of
    dictionaries: each difference is named with its column, and the games, which read as this
    war's schema, are still checked (and good)."""
    from pipeline.jobs.validate import Report, check_files

    root = copy(classic, tmp_path)
    rel, _ = files_of(root, CLASSIC_GAME)
    table = pq.read_table(root / rel)
    plain = pa.table({name: (col.cast(col.type.value_type) if pa.types.is_dictionary(col.type) else col)
                      for name, col in zip(table.column_names, table.columns)})
    pq.write_table(plain, root / rel, compression="snappy")
    report = validate(root)
    messages = [p.message for p in report.problems if p.file == rel]
    assert any("checksum differs" in m for m in messages)
    assert any(f"key-value metadata has no war.schema_version (expected {SCHEMA_VERSION})" in m for m in messages)
    assert any("compressed with snappy, expected zstd" in m for m in messages)
    assert any(m.endswith("column variant has type string, expected dictionary<values=string, "
                          "indices=int32, ordered=0>") for m in messages)
    assert any("column game_id is nullable, expected not nullable" in m for m in messages)
    assert not any("cannot be checked" in p.message for p in report.problems)
    assert report.games_checked == report.good == CLASSIC_GAMES and report.bad == 0
    assert check_files(Dataset.open(root), Report()) == set()  # readable: nothing left out


def test_a_file_whose_rows_do_not_fit_the_schema_names_the_column(classic, tmp_path):
    root = copy(classic, tmp_path)
    rel, _ = files_of(root, CLASSIC_GAME)
    table = pq.read_table(root / rel).drop_columns(["battles"])
    pq.write_table(table, root / rel, compression="zstd")
    report = validate(root)
    messages = [p.message for p in report.problems if p.file == rel]
    assert any("column battles is missing" in m for m in messages)
    assert any("rows cannot be read as this war's schema" in m for m in messages)
    assert report.bad == 50 and report.good == CLASSIC_GAMES - 50


def test_an_empty_dataset_is_a_problem(classic, tmp_path):
    root = copy(classic, tmp_path)
    manifest = json.loads((root / MANIFEST).read_text())
    (root / MANIFEST).write_text(json.dumps({**manifest, "rule_sets": [], "files": []}))
    shutil.rmtree(root / "games")
    shutil.rmtree(root / "events")
    report = validate(root)
    assert not report.ok and [p.message for p in report.problems] == ["the dataset holds no games"]


def _interrupted_append(root: Path) -> None:
    """The state an append killed after its first shard leaves: the old manifest, the journal,
    one new shard's files."""
    import pipeline.jobs.generate as jobs

    real = jobs.run_shard
    done = []

    def once(shard, tick=None):
        if done:
            raise KeyboardInterrupt
        done.append(shard.part)
        return real(shard, tick)

    try:
        jobs.run_shard = once
        with pytest.raises(KeyboardInterrupt):
            generate(root, [Plan(build_rules("jokers", {"pickup": "table_order"}), 100)], append=True,
                     shard_size=50)
    finally:
        jobs.run_shard = real


def test_an_interrupted_append_is_reported_with_the_command_that_finishes_it(classic, tmp_path):
    root = copy(classic, tmp_path)
    _interrupted_append(root)
    report = validate(root)
    (problem,) = report.problems
    assert problem.message.startswith(
        f"an append to this dataset was interrupted; finish it with: war generate -v jokers "
        f"--set pickup=table_order --games 100 --shard-size 50 --out {root} --append --resume")
    assert "of its files are not in the manifest yet" in problem.message
    assert report.good == CLASSIC_GAMES
    import shlex

    command = shlex.split(problem.message.split("finish it with: ", 1)[1].split(" (")[0])
    result = CliRunner().invoke(app, command[1:] + ["-q"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert validate(root).good == CLASSIC_GAMES + 100


def test_an_append_in_progress_is_reported_as_that(classic, tmp_path):
    import os
    import socket

    root = copy(classic, tmp_path)
    _interrupted_append(root)
    (root / WORK_DIR / "lock").write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname()}))
    (problem,) = validate(root).problems
    assert problem.message.startswith(f"an append to this dataset is in progress (pid {os.getpid()} on ")


def test_an_events_file_whose_data_cannot_be_decoded_is_named(classic, tmp_path):
    """An events file whose footer reads but whose data pages do not decode (bytes damaged in
    the middle, the manifest's checksum updated to match): the problem names that file, not the
    games file beside it, and its games are all bad."""
    import hashlib

    root = copy(classic, tmp_path)
    games_rel, events_rel = files_of(root, CLASSIC_GAME)
    damaged = bytearray((root / events_rel).read_bytes())
    for i in range(200, 2200):
        damaged[i] = (damaged[i] * 7 + 3) & 0xFF
    (root / events_rel).write_bytes(bytes(damaged))
    edit_manifest_file(root, events_rel, sha256=hashlib.sha256(damaged).hexdigest())
    report = validate(root)
    problems = [p for p in report.problems if p.game_id is None]
    assert [p.file for p in problems] == [events_rel], problems
    assert "cannot read" in problems[0].message
    entry = next(f for f in Dataset.open(root).manifest.files if f.path == events_rel)
    assert report.bad == entry.games
