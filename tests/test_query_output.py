"""`war query` output: every format streams record batches from DuckDB to its writer.

Checked against the whole result read by `run` (a pyarrow Table): CSV of every view, lists and
structs as JSON text; JSON and JSON Lines; Parquet; the table's first rows, fitted to a width,
with cut columns named and the row count said. A large result is written in flat memory: a
`war query` process writing several hundred MB of rows grows by far less than the result.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.errors import QueryError
from pipeline.jobs.generate import Plan, generate
from pipeline.present.output import write_result
from pipeline.jobs.query import describe, open_query, run
from pipeline.model.rules import build_rules

REPO = Path(__file__).resolve().parent.parent
VIEWS = ("games", "events", "event_rows", "rules", "battles", "cards")


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """Classic War and a Steal War pair of policies: the events have decisions with options."""
    out = tmp_path_factory.mktemp("output") / "ds"
    generate(out, [Plan(build_rules("classic"), 30),
                   Plan(build_rules("steal"), 6, policies=("steal:always", "steal:never"))], seed=3)
    return out


def render(root, fmt: str, sql: str, **kw) -> bytes:
    buf = io.BytesIO()

    class Out:
        buffer = buf

    saved, sys.stdout = sys.stdout, Out()
    try:
        write_result(open_query(root, sql=sql), fmt, **kw)
    finally:
        sys.stdout = saved
    return buf.getvalue()


def plain(value):
    """A value as JSON gives it back: NaN as null, decimals as floats."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def csv_cell(value, type_: pa.DataType) -> str:
    if value is None:
        return ""
    if pa.types.is_list(type_) or pa.types.is_struct(type_):
        return json.dumps(plain(value), separators=(",", ":"), ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@pytest.mark.parametrize("view", VIEWS)
def test_csv_of_every_view(root, view):
    """Every row and cell of the view, in order; list columns (policies, war_wins, cards, seats,
    options, order) as JSON arrays, which pyarrow's CSV writer alone cannot write."""
    sql = f"SELECT * FROM {view} ORDER BY ALL"
    whole = run(root, sql=sql)
    lists = [f.name for f in whole.schema if pa.types.is_list(f.type)]
    if view in ("games", "events", "event_rows"):
        assert lists, "the view is expected to hold list columns"
    rows = list(csv.reader(io.StringIO(render(root, "csv", sql).decode())))
    assert rows[0] == whole.column_names
    assert len(rows) - 1 == whole.num_rows > 0
    types = [f.type for f in whole.schema]
    for got, want in zip(rows[1:], whole.to_pylist()):
        for cell, (name, value), type_ in zip(got, want.items(), types):
            if name in lists:
                assert (json.loads(cell) if cell else None) == value, name  # a null list is an empty cell
            else:
                assert cell == csv_cell(value, type_), name


def test_json_and_jsonl_are_the_rows(root):
    sql = "SELECT * FROM events ORDER BY game_id, seq"
    whole = [{k: plain(v) for k, v in r.items()} for r in run(root, sql=sql).to_pylist()]
    text = render(root, "json", sql).decode()
    assert json.loads(text) == whole
    lines = text.splitlines()
    assert lines[0] == "[" and lines[-1] == "]" and len(lines) == len(whole) + 2  # one row a line
    jsonl = render(root, "jsonl", sql).decode().splitlines()
    assert [json.loads(line) for line in jsonl] == whole


def test_json_edge_values(root):
    sql = ("SELECT 'nan'::DOUBLE AS d, 'inf'::DOUBLE AS i, 1.25::DECIMAL(5, 2) AS dec, "
           "18446744073709551615::UBIGINT AS big, {'k': 'a\"b'} AS s, 'é\n' AS t, "
           "[1.5, 'nan'::DOUBLE, '-inf'::DOUBLE] AS l")
    [row] = json.loads(render(root, "json", sql))
    assert row == {"d": None, "i": None, "dec": 1.25, "big": 18446744073709551615, "s": {"k": 'a"b'}, "t": "é\n",
                   "l": [1.5, None, None]}
    assert render(root, "json", "SELECT 1 AS a WHERE false") == b"[]\n"
    assert render(root, "jsonl", "SELECT 1 AS a WHERE false") == b""


def test_parquet_output_is_the_result(root, tmp_path):
    sql = "SELECT * FROM games ORDER BY game_id DESC"
    target = tmp_path / "g.parquet"
    write_result(open_query(root, sql=sql), "parquet", target)
    assert pq.read_table(target).to_pylist() == run(root, sql=sql).to_pylist()
    assert [p.name for p in tmp_path.iterdir()] == ["g.parquet"]


def test_a_failing_query_leaves_no_file(root, tmp_path):
    target = tmp_path / "f.csv"
    with pytest.raises(QueryError, match="boom"):
        write_result(open_query(root, sql="SELECT CASE WHEN game_id > 3 THEN error('boom') END FROM games"),
                     "csv", target)
    assert list(tmp_path.iterdir()) == []


def test_limit_cuts_every_format(root):
    sql = "SELECT game_id FROM games ORDER BY game_id"
    assert render(root, "csv", sql, limit=3).decode().split() == ['"game_id"', "0", "1", "2"]
    assert [r["game_id"] for r in json.loads(render(root, "json", sql, limit=2))] == [0, 1]


# ---------------------------------------------------------------- the table


def table_lines(root, sql, **kw) -> list[str]:
    return render(root, "table", sql, **kw).decode().splitlines()


def test_table_shows_40_rows_and_counts_them_all(root):
    sql = "SELECT game_id, seq FROM event_rows ORDER BY game_id, seq"
    whole = run(root, sql=sql).to_pylist()
    assert len(whole) > 1000
    lines = table_lines(root, sql, width=80)
    assert lines[0].split() == ["game_id", "seq"]
    assert [tuple(map(int, line.split())) for line in lines[2:-1]] == [(r["game_id"], r["seq"]) for r in whole[:40]]
    assert lines[-1] == f"{len(whole):,} rows (40 shown)"
    assert len(table_lines(root, sql, limit=5)) == 2 + 5 + 1
    every = table_lines(root, sql, all_rows=True)
    assert len(every) == 2 + len(whole) + 1 and every[-1] == f"{len(whole):,} rows"
    assert [int(line.split()[1]) for line in every[2:-1]] == [r["seq"] for r in whole]


@pytest.mark.parametrize("width", [40, 80, 120])
def test_table_fits_the_width_and_names_cut_columns(root, width):
    lines = table_lines(root, "SELECT * FROM games ORDER BY game_id", width=width, limit=5)
    columns = table_lines(root, "SELECT * FROM games ORDER BY game_id", width=10_000, limit=5)[0].split()  # its order
    assert all(len(line) <= width for line in lines), "\n".join(lines)
    shown = lines[0].split()
    assert shown[-1] == "…" and shown[:-1] == columns[:len(shown) - 1]
    start = next(i for i, line in enumerate(lines) if line.startswith("… "))
    assert lines[start - 1] == "5 rows (5 shown)" or \
        lines[start - 1].startswith(f"{run(root, sql='SELECT count(*) FROM games').column(0)[0].as_py()} rows")
    same = next((i for i, line in enumerate(lines) if line.startswith("same in every row")), len(lines))
    note = " ".join(line.strip() for line in lines[start:same])
    hidden = columns[len(shown) - 1:]
    assert note == f"… {len(hidden)} more columns: " + ", ".join(hidden)


def test_a_wide_table_keeps_every_column(root):
    """Every column is shown, or said to hold one value in every row (test_query_columns)."""
    lines = table_lines(root, "SELECT * FROM games", width=600, limit=2)
    same = " ".join(lines[lines.index("36 rows (2 shown)") + 1:])
    said = [c for c in run(root, sql="SELECT * FROM games LIMIT 0").column_names if f" {c} = " in f" {same}"]
    assert sorted(lines[0].split() + said) == sorted(run(root, sql="SELECT * FROM games LIMIT 0").column_names)
    assert "more column" not in "\n".join(lines)


def test_a_table_written_to_a_file_keeps_every_column(root, tmp_path, monkeypatch):
    """No terminal is involved in `--output FILE`: its table was cut to 80 columns, the rest named."""
    monkeypatch.setenv("COLUMNS", "80")
    sql = "SELECT * FROM games ORDER BY game_id"
    out = tmp_path / "t.txt"
    write_result(open_query(root, sql=sql), "table", out, limit=3)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0].split() == table_lines(root, sql, width=100_000, limit=3)[0].split()
    assert max(len(line) for line in lines) > 80 and "more column" not in "\n".join(lines)


def test_a_table_to_redirected_stdout_keeps_every_column(root, tmp_path):
    """`war query ... > FILE`: standard output is no terminal, and with no COLUMNS set the table
    keeps every column, as `--output FILE` does; COLUMNS, when set, still fits it."""
    sql = "SELECT * FROM games ORDER BY game_id"
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    whole = table_lines(root, sql, width=100_000, limit=3)[0].split()
    for columns, cut in ((None, False), ("80", True)):
        out = tmp_path / "stdout.txt"
        with out.open("wb") as sink:
            subprocess.run([sys.executable, "-m", "pipeline.cli", "query", str(root), "--sql", sql, "--limit", "3"],
                           stdout=sink, check=True, env=env if columns is None else {**env, "COLUMNS": columns})
        lines = out.read_text(encoding="utf-8").splitlines()
        assert ("more column" in "\n".join(lines)) is cut
        if not cut:
            assert lines[0].split() == whole


def test_demo_tables_from_python(root, capsys):
    """`war demo` hands write_result a whole pyarrow Table."""
    write_result(run(root, name="outcomes"), "table", None)
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:2] == ["rule_set", "games"] and "2 rows" in out  # the answer before variant, rules_id


def test_cli_formats_and_describe(root):
    result = CliRunner().invoke(app, ["query", str(root), "--sql", "SELECT game_id, war_wins FROM games "
                                      "ORDER BY game_id LIMIT 2", "--format", "jsonl"])
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["game_id"] for line in result.stdout.splitlines()] == [0, 1]
    sql = "SELECT * FROM events"
    result = CliRunner().invoke(app, ["query", str(root), "--sql", sql, "--describe", "--format", "csv"])
    assert result.exit_code == 0, result.output
    described = [line.replace('"', "").split(",", 1) for line in result.stdout.splitlines()[1:]]
    truth = run(root, sql=f"DESCRIBE {sql}").to_pylist()
    assert described == [[r["column_name"], r["column_type"]] for r in truth]
    assert ["cards", "SMALLINT[]"] in described


def test_describe_does_not_run_the_query(root):
    """A query that fails on its first row still has columns to tell."""
    sql = "SELECT game_id, error('ran') AS boom FROM games"
    with pytest.raises(QueryError, match="ran"):
        run(root, sql=sql)
    columns = describe(root, sql=sql).to_pylist()
    assert [r["column"] for r in columns] == ["game_id", "boom"] and columns[0]["type"] == "BIGINT"


# ---------------------------------------------------------------- memory


ROWS = 4_000_000  # about 100 bytes a row in Arrow: 400 MB if the result were held whole
GROWTH_MB = 160


def peak_rss_mb(root, fmt: str, rows: int, tmp_path: Path) -> float:
    sql = f"SELECT range AS i, [range, range + 1, range + 2] AS l, repeat('x', 60) AS s FROM range({rows})"
    cmd = [sys.executable, "-m", "pipeline.cli", "query", str(root), "--sql", sql, "--format", fmt]
    if fmt == "parquet":
        cmd += ["--output", str(tmp_path / f"{rows}.parquet")]
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, proc.stderr.read().decode()
    return usage.ru_maxrss / 1024


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet", "table"])
def test_a_large_result_streams_in_flat_memory(root, fmt, tmp_path):
    """The same command with 10 rows and with 4,000,000 (hundreds of MB of output, which a
    whole-result implementation holds at once): the peak RSS grows by far less."""
    small = peak_rss_mb(root, fmt, 10, tmp_path)
    large = peak_rss_mb(root, fmt, ROWS, tmp_path)
    assert large - small < GROWTH_MB, f"{fmt}: {small:.0f} MB for 10 rows, {large:.0f} MB for {ROWS:,}"


def test_explain_prints_the_plan(root):
    lines = table_lines(root, "EXPLAIN SELECT outcome, count(*) FROM games GROUP BY outcome")
    assert any("AGGREGATE" in line.upper() for line in lines)
    assert not any(line.endswith(" rows") or line.endswith(" row") for line in lines)


def test_a_write_sweeps_the_hidden_files_of_killed_writers_and_keeps_a_running_one_s(tmp_path):
    """kill -9 (or SIGTERM) of `war query --output FILE` left `.FILE.PID.tmp` (54 MB of it), and
    every later write beside it left it be (hostile pass F, 5)."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        out = tmp_path / "out.csv"
        gone, kept = tmp_path / f".out.csv.{dead.pid}.tmp", tmp_path / f".out.csv.{running.pid}.tmp"
        other = tmp_path / f".other.csv.{dead.pid}.tmp"
        for left in (gone, kept, other):
            left.write_bytes(b"half a result")
        write_result(pa.table({"x": [1, 2]}), "csv", out)
        assert out.read_text().splitlines()[1:] == ["1", "2"]
        assert not gone.exists() and kept.exists() and other.exists()
    finally:
        running.kill()
        running.wait()
