"""The fault corpus, round three (issue 45): `war generate --from SOURCE --where ...` chooses games
by one condition over the source's games view, parsed, not pasted into a query, and writes only
distinct games of the source. Before, the condition was pasted into `WHERE (...)`: one that
closed its bracket could add a UNION and write a game the source does not have (which then
passed validation), or a game twice."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from faultkit import one_line, sign, war
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import run
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("from") / "src"
    generate(root, [Plan(build_rules("classic"), 30)], seed=42, shard_size=10)
    return root


@pytest.mark.parametrize("where, culprit", [
    # closes the bracket it was put in and adds rows of its own: a game the source does not have
    ("game_id < 2) UNION ALL SELECT 999999 UNION ALL SELECT game_id FROM games WHERE (false", "syntax error"),
    # the same trick for a game twice
    ("game_id < 2) UNION ALL SELECT 1 UNION ALL SELECT 0 WHERE (true", "syntax error"),
    ("battles > 5; SELECT 999999", "more than one statement"),
    ("battles > 5 ORDER BY game_id", "modifier"),
    ("battles > 5, game_id < 3", "single expression"),
    ("battles > 5 /* unterminated", "comment"),
])
def test_a_where_that_is_not_one_condition_is_refused_and_writes_nothing(source, tmp_path, monkeypatch, capsys,
                                                                           where, culprit):
    code, out, err = war(monkeypatch, capsys, "generate", "--from", source, "--where", where,
                         "--out", tmp_path / "new", "-q")
    line = one_line(code, out, err, 2, "--where", culprit)
    assert "one condition over the games view" in line
    assert not (tmp_path / "new").exists()


def test_a_condition_chooses_each_game_once_and_the_copy_validates(source, tmp_path):
    """A condition that names a game twice (IN (1, 1, 2)), or holds a subquery, still chooses
    rows of the games view: each game once."""
    from pipeline.jobs.materialize import materialize

    manifest = materialize(source, "game_id IN (1, 1, 2) OR game_id = (SELECT max(game_id) FROM games)",
                           tmp_path / "new")
    assert manifest.rule_sets[0].games == 3
    ids = run(tmp_path / "new", sql="SELECT game_id FROM games ORDER BY game_id").column(0).to_pylist()
    assert ids == [0, 1, 2]
    assert validate(tmp_path / "new").ok


def test_a_games_view_that_gives_a_game_the_manifest_does_not_list_is_refused(source, tmp_path, monkeypatch,
                                                                                capsys):
    """A damaged source whose games file holds a game id out of its manifest's range (or one
    twice): refused by name, with the command that finds the damage, not played."""
    import shutil

    for name, new_id in (("outside", 999_999), ("twice", 1)):
        root = tmp_path / name
        shutil.copytree(source, root)
        part = sorted((root / "games").rglob("*.parquet"))[0]
        table = pq.read_table(part)
        ids = table.column("game_id").to_pylist()
        ids[0] = new_id
        table = table.set_column(table.schema.get_field_index("game_id"), "game_id",
                                 pa.array(ids, table.schema.field("game_id").type))
        pq.write_table(table, part)
        assert pc.sum(pc.equal(table.column("game_id"), new_id)).as_py() >= 1
        sign(root)  # else its SHA-256 is refused before its rows are read
        code, out, err = war(monkeypatch, capsys, "generate", "--from", root, "--where", "game_id >= 0",
                             "--out", tmp_path / f"new-{name}", "-q")
        line = one_line(code, out, err, 2, str(new_id), "war validate")
        assert ("twice" in line) == (name == "twice")
        assert not (tmp_path / f"new-{name}").exists()

