"""The fault corpus, round three (issue 45): what readers and writers of results meet. Every type
DuckDB returns is written in every format, or refused by name; a value too large for a batch, or
an error after the first rows, is one line; a manifest whose rule set ids are not its rules' is
refused by every reader in validate's own words; an output through a loop of symbolic links or a
link to nothing is one line naming it, exit 2, and nothing is written.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from faultkit import one_line, sign, tree, war
from faultkit import procs  # noqa: F401  the fixture
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules

ALL_TYPES = "SELECT * FROM test_all_types()"  # one column of every type DuckDB has, 3 rows
PARQUET_CANNOT = ("interval", "union", "empty_struct")  # Parquet has no such types
QUERIES = {
    "every type": ALL_TYPES,
    "variants": "SELECT 1::VARIANT AS v, [1, 2]::VARIANT AS w, {'k': 'a'}::VARIANT AS x, NULL::VARIANT AS n",
    "settings": "SELECT * FROM duckdb_settings()",
}


@pytest.fixture(scope="module")
def w(tmp_path_factory) -> Path:
    w = tmp_path_factory.mktemp("readers")
    generate(w / "ds", [Plan(build_rules("classic"), 20)], seed=5, shard_size=10)
    generate(w / "steal", [Plan(build_rules("steal"), 20)], seed=5, shard_size=10)
    return w


def rows_of(fmt: str, text: str) -> int:
    if fmt == "csv":
        return len(list(csv.reader(io.StringIO(text)))) - 1
    if fmt == "json":
        return len(json.loads(text))
    return len([json.loads(line) for line in text.splitlines()])


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "jsonl"])
@pytest.mark.parametrize("name", list(QUERIES))
def test_every_type_is_written_in_every_format(name, fmt, w, monkeypatch, capsys):
    """A VARIANT or a GEOMETRY in CSV ended in `internal error: ArrowInvalid`, a date Python
    cannot hold (infinity) in a table in `internal error: OverflowError`, and a table showed
    blobs as Python's b'...'."""
    monkeypatch.setenv("COLUMNS", "100000")  # a table shows every column
    code, out, err = war(monkeypatch, capsys, "query", w / "ds", "--sql", QUERIES[name], "--format", fmt, "--all")
    assert code == 0, err
    assert "b'" not in out and "Traceback" not in err
    if fmt == "table":
        assert out.splitlines()[-1] == ("3 rows" if name == "every type" else "1 row" if name == "variants" else
                                        out.splitlines()[-1])
    else:
        want = 3 if name == "every type" else 1 if name == "variants" else None
        assert want is None or rows_of(fmt, out) == want
    if name == "every type" and fmt == "table":
        assert "5881580-07-10" in out and "\\x00\\x00\\x00a" in out  # a date past Python's; a blob's escapes


def test_every_type_is_written_as_parquet_or_refused_by_name(w, tmp_path, monkeypatch, capsys):
    """A union or an interval in Parquet ended in `internal error: ArrowNotImplementedError`."""
    target = tmp_path / "t.parquet"
    code, out, err = war(monkeypatch, capsys, "query", w / "ds", "--sql", ALL_TYPES, "--format", "parquet",
                         "--output", target)
    line = one_line(code, out, err, 2, "Parquet cannot hold column", "interval", "CAST")
    assert "INTERVAL" in line and not target.exists() and os.listdir(tmp_path) == []
    for name in PARQUET_CANNOT:
        code, out, err = war(monkeypatch, capsys, "query", w / "ds", "--sql", f'SELECT "{name}" FROM test_all_types()',
                             "--format", "parquet", "--output", target)
        one_line(code, out, err, 2, f"column {name!r}")
    keep = f"SELECT * EXCLUDE ({', '.join(f'{chr(34)}{n}{chr(34)}' for n in PARQUET_CANNOT)}) FROM test_all_types()"
    for sql in (keep, QUERIES["variants"], QUERIES["settings"]):
        code, out, err = war(monkeypatch, capsys, "query", w / "ds", "--sql", sql, "--format", "parquet",
                             "--output", target, "--overwrite")
        assert code == 0, err
        assert pq.ParquetFile(target).metadata.num_rows >= 1


def test_an_error_after_the_first_rows_is_said_as_it_is(w, tmp_path, monkeypatch, capsys):
    """DuckDB's errors while the rows stream reach war as a bare OSError: it said `cannot access:
    OSError`. Now the SQL error, and no file."""
    late = "SELECT CASE WHEN range = 1500000 THEN error('late boom') ELSE range END AS n FROM range(2000000)"
    for fmt in ("csv", "json", "parquet"):
        target = tmp_path / f"late.{fmt}"
        code, out, err = war(monkeypatch, capsys, "query", w / "ds", "--sql", late, "--format", fmt, "--output", target)
        one_line(code, out, err, 2, "SQL error", "late boom")
        assert not target.exists()


def test_huge_values_are_shown_cut_in_flat_memory(w, monkeypatch, capsys):
    """30 values of 100 MB each in a table: `cannot access: OSError` (the batch passed Arrow's
    2 GB of text). A table shows 40 characters of a value: DuckDB cuts them before Python."""
    code, out, err = war(monkeypatch, capsys, "query", w / "ds", "--sql", "SELECT repeat('x', 100000000) AS x FROM range(30)")
    assert code == 0, err
    assert out.splitlines()[-1] == "30 rows" and out.count("xxxx…") == 30


def test_a_batch_of_over_2_gb_of_text_is_refused_clearly():
    """What DuckDB says when a batch of rows holds more text than Arrow's string buffers (2 GB;
    seen with 30 values of 100 MB in CSV) is said as what to do about it."""
    from pipeline.jobs.query.safety import sql_error

    said = str(sql_error(OSError("Invalid Input Error: Arrow Appender: The maximum total string size for regular "
                                 "string buffers is 2147483647 but the offset of 2200000000 exceeds this.\n"
                                 "* SET arrow_large_buffer_size=true to use large string buffers")))
    assert "too large" in said and "LIMIT" in said and "arrow_large_buffer_size" not in said


# ---------------------------------------------------------------- a manifest whose ids lie


def misnamed(w: Path, name: str, tmp_path: Path) -> tuple[Path, str]:
    """A copy of dataset `name` whose manifest gives rule set 0 another id, re-signed; the line
    validate says of it."""
    root = tmp_path / name
    shutil.copytree(w / name, root)
    sign(root, lambda m: m["rule_sets"][0].update(rules_id="0123456789abcdef"))
    report = validate(root)
    [problem] = [p for p in report.problems if p.file == "manifest.json"]
    return root, str(problem)  # manifest.json: rule set 0: rules_id ... is not its rules' id (...)


READERS = {
    "report": ["report", "{root}", "--output", "{out}/r.html", "-q"],
    "query": ["query", "{root}", "game_length"],
    "sql": ["query", "{root}", "--sql", "SELECT rules_id, count(*) FROM games GROUP BY ALL"],
    "replay": ["replay", "{root}", "3"],
    "serve": ["serve", "{root}", "--port", "0", "-q"],
    "append": ["generate", "-v", "jokers", "--games", "5", "--out", "{root}", "--append", "-q"],
}


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("name", ["ds", "steal"])
def test_a_manifest_whose_rule_set_id_is_not_its_rules_is_refused_by_every_reader(name, reader, w, tmp_path, procs,
                                                                                   monkeypatch, capsys):
    """A Classic War report was a page without a chart (exit 0), a Steal War one `internal
    error: KeyError`; query and replay read on. Each now says what validate says, on one line."""
    root, said = misnamed(w, name, tmp_path)
    before = tree(root)
    args = [a.format(root=root, out=tmp_path) for a in READERS[reader]]
    if reader == "serve":  # in a process of its own: a server that does not refuse serves on
        proc = procs.war(*args)
        out, err = proc.communicate(timeout=120)
        code = proc.returncode
    else:
        code, out, err = war(monkeypatch, capsys, *args)
    line = one_line(code, out, err, 2, said)
    assert "war validate" in line
    assert tree(root) == before and not (tmp_path / "r.html").exists()


def test_validate_says_a_misnamed_rule_set_once(w, tmp_path):
    """Validation said the manifest's problem, then each game's record "disagrees" with the id
    the manifest gives: one problem, said once, the games checked against their rules' id."""
    root, said = misnamed(w, "ds", tmp_path)
    report = validate(root)
    assert [str(p) for p in report.problems] == [said]
    assert report.good == 20 and report.bad == 0 and not report.ok


# ---------------------------------------------------------------- outputs through symbolic links


@pytest.fixture
def links(tmp_path) -> Path:
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere" / "x")
    (tmp_path / "to_new").symlink_to(tmp_path / "new_file")
    return tmp_path


OUTPUTS = {
    "generate": ["generate", "--games", "5", "--out", "{path}", "-q"],
    "append": ["generate", "--games", "5", "--out", "{path}", "--append", "-q"],
    "search": ["search", "--set", "ranks=4", "--set", "suits=2", "--rounds", "1", "--out", "{path}", "-q"],
    "query": ["query", "{ds}", "--sql", "SELECT 1", "--format", "csv", "--output", "{path}"],
    "report": ["report", "{ds}", "--output", "{path}", "-q"],
    "charts": ["report", "{ds}", "--format", "svg", "--output", "{path}", "-q"],
    "replay": ["replay", "{ds}", "1", "--format", "html", "--output", "{path}"],
}
PATHS = {"loop": ("loop1", "loop of symbolic links"), "inside a loop": ("loop1/sub", "loop of symbolic links"),
         "dangling": ("dangling", "does not exist"), "through a dangling link": ("dangling/sub", "does not exist"),
         "to a new file": ("to_new", "does not exist")}


@pytest.mark.parametrize("where", list(PATHS))
@pytest.mark.parametrize("command", list(OUTPUTS))
def test_an_output_through_a_loop_or_a_dangling_link_is_one_line(command, where, w, links, monkeypatch, capsys):
    """`--out` through a loop of links ended in `internal error: RuntimeError: Symlink loop`; a
    query's --output through a link to nothing wrote the file at the far end of the link,
    creating its folders, and exited 0."""
    path = links / PATHS[where][0]
    before = tree(links)
    args = [a.format(path=path, ds=w / "ds") for a in OUTPUTS[command]]
    for extra in ([], ["--overwrite"]) if command not in ("append",) else ([],):
        code, out, err = war(monkeypatch, capsys, *args, *extra)
        line = one_line(code, out, err, 2, str(path), PATHS[where][1])
        assert line.startswith("error: --out") or line.startswith("error: --output"), line
    assert tree(links) == before and not (links / "nowhere").exists() and not (links / "new_file").exists()
