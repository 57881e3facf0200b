"""What the readers of a dataset (war query, report, serve, war.connect) do with a data file that
is damaged, a dataset without an event log, and an argument that is no path: each a defect a
hostile pass found, where the reader answered wrong rows without a word, leaked a DuckDB or
Python exception, or served a 500 with a traceback."""

from __future__ import annotations

import shutil

import pytest

import pipeline as war
from clikit import run_main


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("read") / "d"
    war.generate(root, [war.Plan(war.build_rules("classic"), 300)], seed=4)
    return root


def damaged(dataset, tmp_path, table: str, damage) -> object:
    copy = tmp_path / "d"
    shutil.copytree(dataset, copy)
    (path,) = sorted((copy / table).rglob("*.parquet"))
    data = bytearray(path.read_bytes())
    path.write_bytes(bytes(damage(data)))
    return copy


def flipped(data: bytearray) -> bytearray:
    """Sixty bytes of the first page inverted: the file still decodes, into other values."""
    for i in range(200, 260):
        data[i] ^= 0xFF
    return data


def test_a_damaged_games_file_is_refused_not_read_into_wrong_rows(dataset, tmp_path, monkeypatch, capsys):
    """It was read as it was: 93 games whose game_id was not their index, and a report of them."""
    copy = damaged(dataset, tmp_path, "games", flipped)
    code, out, err = run_main(monkeypatch, capsys, "query", copy, "--sql", "SELECT count(*) FROM games")
    assert code == 2 and not out and err.count("\n") == 1 and "SHA-256 differs" in err and "part-00000" in err, err
    with pytest.raises(war.DatasetError, match="SHA-256 differs"):
        war.connect(copy)
    assert war.connect(dataset).execute("SELECT count(*) FROM games").fetchall() == [(300,)]  # the file as written is read


def test_a_truncated_events_file_is_a_dataset_error_of_the_library(dataset, tmp_path):
    """war.connect raised DuckDB's own InvalidInputException, with its SQL; war serve answered
    500 and printed a traceback."""
    copy = damaged(dataset, tmp_path, "events", lambda data: data[:5000])
    with pytest.raises(war.DatasetError, match=r"cannot read the dataset: .*No magic bytes.*part-00000\.parquet"):
        war.connect(copy)


@pytest.mark.parametrize("where", [3, None, b"d"])
def test_a_dataset_that_is_no_path_is_one_error(where):
    """war.connect(3) raised TypeError: expected string or bytes-like object."""
    with pytest.raises(war.DatasetError, match="a dataset is a path"):
        war.connect(where)


def test_the_event_views_of_a_games_only_dataset_say_why_they_are_empty(tmp_path):
    """war.connect of a --log games dataset had no events view: DuckDB's 'Table with name events
    does not exist!', where war query says the log was not stored and how to get it."""
    root = tmp_path / "g"
    war.generate(root, [war.Plan(war.build_rules("classic"), 40, log="games")], seed=1)
    con = war.connect(root)
    assert con.execute("SELECT count(*) FROM games").fetchall() == [(40,)]
    for view in ("events", "battles", "deals"):
        with pytest.raises(Exception, match=r"stores the games table alone \(`--log games`\)"):
            con.sql(f"SELECT count(*) FROM {view}").fetchall()
