"""A query can only read its dataset.

Every statement that writes or loads is refused before it runs, with one line that names it
and says `--output` saves a result; nothing is written, in the dataset or anywhere. Behind that
check, the DuckDB connection itself is locked: files outside the dataset are unreadable unless
`--allow-read` names them, and its settings cannot be changed back. A manifest whose file path
leads outside the dataset is refused by query and replay and reported by name by validate.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from clikit import run_main as war
from pipeline.errors import DatasetError, OutsideDataset, QueryError
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import connect, run
from pipeline.jobs.replay import replay_game
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules
from pipeline.storage.dataset import Dataset
from rulekit import digests as digest


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("safety") / "ds"
    generate(out, [Plan(build_rules("classic"), 20)], seed=5)
    return out


@pytest.fixture
def ds(pristine, tmp_path) -> Path:
    """A copy of the dataset inside an empty working folder (tmp_path, also the cwd)."""
    out = tmp_path / "ds"
    shutil.copytree(pristine, out)
    return out


def part_file(ds: Path) -> Path:
    return next((ds / "games").rglob("*.parquet"))


WRITING = [
    ("COPY (SELECT * FROM games) TO '{out}/copy.csv'", "COPY ... TO"),
    ("COPY games TO '{part}' (FORMAT parquet)", "COPY ... TO"),
    ("COPY (SELECT 1 AS a) TO '{ds}/games/variant=classic/extra.csv'", "COPY ... TO"),
    ("COPY games FROM '{out}/in.csv'", "COPY ... FROM"),
    ("EXPORT DATABASE '{out}/export'", "EXPORT DATABASE"),
    ("IMPORT DATABASE '{out}/export'", "IMPORT DATABASE"),
    ("ATTACH '{out}/new.db' AS extra", "ATTACH"),
    ("DETACH memory", "DETACH"),
    ("INSTALL httpfs", "INSTALL"),
    ("LOAD httpfs", "LOAD"),
    ("LOAD '{out}/evil.duckdb_extension'", "LOAD"),
    ("CREATE TABLE kept AS SELECT * FROM games", "CREATE"),
    ("CREATE VIEW v AS SELECT 1", "CREATE"),
    ("CREATE PERSISTENT SECRET s (TYPE s3, KEY_ID 'k', SECRET 's')", "CREATE"),
    ("INSERT INTO rules SELECT * FROM rules", "INSERT"),
    ("UPDATE rules SET games = 0", "UPDATE"),
    ("DELETE FROM rules", "DELETE"),
    ("WITH x AS (SELECT 1 AS a) DELETE FROM rules", "DELETE"),  # named by what it does, not "WITH"
    ("WITH x AS (SELECT 1 AS a) INSERT INTO rules SELECT * FROM rules", "INSERT"),
    ("DROP VIEW games", "DROP"),
    ("ALTER VIEW games RENAME TO g", "ALTER"),
    ("SET enable_external_access = true", "SET"),
    ("RESET allowed_directories", "RESET"),
    ("PRAGMA threads = 1", "PRAGMA"),
    ("PRAGMA enable_profiling", "PRAGMA"),
    ("VACUUM", "VACUUM"),
    ("EXPLAIN ANALYZE COPY (SELECT 1 AS a) TO '{out}/explained.csv'", "EXPLAIN COPY ... TO"),
    ("SELECT 1; COPY (SELECT 1 AS a) TO '{out}/second.csv'", "COPY ... TO"),
]


@pytest.mark.parametrize("sql, kind", WRITING, ids=[k + ":" + s[:24] for s, k in WRITING])
def test_each_writing_statement_is_refused_and_writes_nothing(ds, tmp_path, monkeypatch, capsys, sql, kind):
    monkeypatch.chdir(tmp_path)
    sql = sql.format(out=tmp_path, ds=ds, part=part_file(ds))
    before, around = digest(ds), sorted(p.name for p in tmp_path.iterdir())
    code, out, err = war(monkeypatch, capsys, "query", ds, "--sql", sql)
    assert code == 2 and out == ""
    [line] = err.splitlines()
    assert line.startswith(f"error: {kind} is refused") and "--output FILE" in line, line
    assert digest(ds) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == around == ["ds"]
    assert validate(ds).ok


@pytest.mark.parametrize("sql", [
    "SELECT count(*) AS n FROM games",
    "WITH w AS (SELECT winner FROM games) SELECT count(*) AS n FROM w",
    "DESCRIBE games", "SUMMARIZE games", "SHOW TABLES", "PRAGMA table_info('games')",
    "EXPLAIN SELECT * FROM events", "EXPLAIN ANALYZE SELECT count(*) FROM games",
    "PIVOT games ON outcome USING count(*) GROUP BY variant", "VALUES (1), (2)", "FROM rules",
    "SELECT count(*) AS n FROM read_parquet('{ds}/games/*/*.parquet')",
])
def test_reading_statements_run(ds, sql):
    assert run(ds, sql=sql.format(ds=ds)).num_rows > 0


def test_reading_outside_the_dataset_needs_allow_read(ds, tmp_path, monkeypatch, capsys):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.csv").write_text("word\nswordfish\n")
    for sql in (f"SELECT * FROM read_csv('{elsewhere}/secret.csv')",
                f"SELECT * FROM read_csv('{ds}/../elsewhere/secret.csv')",
                f"SELECT * FROM read_text('{elsewhere}/*')",
                "SELECT * FROM read_csv('/etc/passwd')",
                "SELECT * FROM glob('/*')"):
        code, out, err = war(monkeypatch, capsys, "query", ds, "--sql", sql)
        assert code == 2 and "swordfish" not in out + err
        [line] = err.splitlines()
        assert "outside the dataset" in line and "--allow-read PATH" in line, line
    code, out, err = war(monkeypatch, capsys, "query", ds, "--sql", f"SELECT * FROM read_csv('{elsewhere}/secret.csv')",
                         "--allow-read", elsewhere, "--format", "json")
    assert code == 0 and json.loads(out) == [{"word": "swordfish"}]
    code, out, err = war(monkeypatch, capsys, "query", ds, "--sql", "SELECT 1", "--allow-read", tmp_path / "nothing")
    assert code == 2 and "--allow-read" in err


def test_a_relative_path_is_said_to_be_read_from_the_current_directory(ds, tmp_path, monkeypatch, capsys):
    """DuckDB reads a relative path from the current directory, not the dataset's folder: the
    refusal of `manifest.json`, a file of the dataset, says so and names that folder instead of
    blaming the dataset, on the command line and on the server's SQL page."""
    from pipeline.present.sql_page import message

    here = tmp_path / "elsewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    sql = "SELECT size FROM read_text('manifest.json')"
    code, out, err = war(monkeypatch, capsys, "query", ds, "--sql", sql)
    assert code == 2 and out == ""
    [line] = err.splitlines()
    assert f"reads {str(here / 'manifest.json')!r}, outside the dataset" in line, line
    assert f"a relative path ('manifest.json') is read from the current directory ({here})" in line, line
    assert "--allow-read PATH" in line, line
    with pytest.raises(QueryError) as caught:
        run(ds, sql=sql)
    assert f"from the server's current directory ({here})" in message(caught.value)
    monkeypatch.chdir(ds.parent)  # from where it is found in the dataset, it is read
    assert run(ds, sql=f"SELECT size > 0 AS read FROM read_text('{ds.name}/manifest.json')").to_pylist() == [{"read": True}]


def test_a_symbolic_link_in_the_dataset_does_not_lead_out(ds, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.csv").write_text("word\nswordfish\n")
    (ds / "link").symlink_to(elsewhere)
    with pytest.raises(QueryError, match="outside the dataset"):
        run(ds, sql=f"SELECT * FROM read_csv('{ds}/link/secret.csv')")


def test_the_connection_itself_is_locked(ds, tmp_path):
    """Behind the statement check: DuckDB refuses files outside and any change of settings."""
    (tmp_path / "x.csv").write_text("a\n1\n")
    session = connect(ds, events=False)
    try:
        con = session.con
        with pytest.raises(duckdb.Error, match="locked"):
            con.execute("SET enable_external_access = true")
        with pytest.raises(duckdb.Error, match="locked"):
            con.execute(f"SET allowed_directories = ['{tmp_path}/']")
        with pytest.raises(duckdb.PermissionException):
            con.execute(f"SELECT * FROM read_csv('{tmp_path}/x.csv')")
        with pytest.raises(duckdb.Error):
            con.execute("INSTALL httpfs")
        assert con.execute("SELECT count(*) FROM games").fetchone() == (20,)
    finally:
        session.close()


# ---------------------------------------------------------------- manifest paths


def rewrite_manifest(ds: Path, table: str, path: str) -> str:
    """Point the manifest's first `table` file at `path`; returns the path it had."""
    manifest = json.loads((ds / "manifest.json").read_text())
    entry = next(f for f in manifest["files"] if f["table"] == table)
    old, entry["path"] = entry["path"], path
    (ds / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return old


@pytest.mark.parametrize("how", ["climbs", "absolute", "symlink", "linked file"])
def test_a_manifest_path_outside_the_dataset(ds, tmp_path, monkeypatch, capsys, how):
    stolen = tmp_path / "stolen.parquet"
    shutil.copy(part_file(ds), stolen)
    if how == "symlink":
        (ds / "games" / "outside").symlink_to(tmp_path)
        path = "games/outside/stolen.parquet"
    elif how == "linked file":
        path = next(f["path"] for f in json.loads((ds / "manifest.json").read_text())["files"]
                    if f["table"] == "games")
        (ds / path).unlink()
        (ds / path).symlink_to(stolen)
    else:
        path = "../stolen.parquet" if how == "climbs" else str(stolen)
    if how != "linked file":
        rewrite_manifest(ds, "games", path)

    with pytest.raises(OutsideDataset) as caught:
        Dataset.open(ds)
    assert caught.value.path == path
    code, out, err = war(monkeypatch, capsys, "query", ds, "outcomes")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and repr(path) in err
    code, out, err = war(monkeypatch, capsys, "replay", ds, "0")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and repr(path) in err
    with pytest.raises(DatasetError, match="outside the dataset"):
        replay_game(ds, 0)

    report = validate(ds)
    named = [p for p in report.problems if p.file == path and p.game_id is None]
    assert len(named) == 1 and "outside the dataset" in named[0].message
    code, out, err = war(monkeypatch, capsys, "validate", ds, "-q")
    assert code == 1 and f"BAD {path}: path outside the dataset" in out


def test_a_deals_path_outside_the_dataset_is_reported(ds, tmp_path):
    manifest = json.loads((ds / "manifest.json").read_text())
    manifest["rule_sets"][0]["deals"] = "../../deals.jsonl"
    (ds / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(OutsideDataset, match="deals.jsonl"):
        Dataset.open(ds)
    assert any(p.file == "../../deals.jsonl" for p in validate(ds).problems)


def test_duckdbs_hints_are_kept_below_the_error_line(ds, monkeypatch, capsys):
    """An SQL error is its line `error: SQL error: ...` and DuckDB's hints below it, indented: the
    candidate bindings, "Did you mean", the statement's line with a caret under the place (the
    one error said on more than one line; clikit.error_lines reads it as one)."""
    from clikit import error_lines

    code, out, err = war(monkeypatch, capsys, "query", ds, "--sql", "SELECT outcom FROM games")
    lines = err.splitlines()
    assert code == 2 and lines[0].startswith("error: SQL error: Binder Error:") and '"outcom"' in lines[0]
    assert lines[1].startswith("  Candidate bindings:") and '"outcome"' in lines[1]
    assert error_lines(err) == lines[:1]
    code, out, err = war(monkeypatch, capsys, "query", ds, "--sql", "SELECT * FROM gamez")
    assert err.splitlines()[1:] == ['  Did you mean "games"?']
    code, out, err = war(monkeypatch, capsys, "query", ds, "--sql", "SELECT 1 FROM games WHER battles > 3")
    first, line, caret = err.splitlines()
    assert first.startswith("error: SQL error: Parser Error:") and line == "  LINE 1: SELECT 1 FROM games WHER battles > 3"
    assert line[caret.index("^"):].startswith("battles") and set(caret.strip()) == {"^"}
    with pytest.raises(QueryError) as info:
        run(ds, sql="SELECT outcom FROM games")
    assert "\n  Candidate bindings:" in str(info.value)
