"""`war query`'s columns as a person reads them (issue 51, item 5): a table shows the answer
first (the rule set's name, then the answer, then `variant`, `rules_id`, `policies`) and leaves
out the columns of one value in every row, saying which and their value; CSV, JSON and Parquet
keep every column in the query's order; `--columns a,b,c` chooses and orders the columns of any
format. Named queries give the rule sets in the dataset's order, not the alphabet's.
"""

from __future__ import annotations

import csv
import io
import json
import sys

import pytest
from typer.testing import CliRunner

from pipeline.cli import app, main
from pipeline.jobs.query import describe, named_queries, open_query, run
from pipeline.jobs.request import GenerateArgs, generate_request
from pipeline.present.output import write_result
from clikit import error_lines

ORDER = ["zulu", "alpha", "mike"]  # the dataset's order, appended so; the alphabet's is alpha, mike, zulu
GAMES = 20


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    out = tmp_path_factory.mktemp("columns") / "ds"
    generate_request(GenerateArgs(variants=["classic"], names=["zulu"], games=GAMES, out=out, seed=5)).run()
    generate_request(GenerateArgs(variants=["classic"], options=["pickup=table_order", "max_battles=300"],
                                  names=["alpha"], games=GAMES, out=out, append=True)).run()
    generate_request(GenerateArgs(variants=["jokers"], names=["mike"], games=GAMES, out=out, append=True)).run()
    return out


def table(root, width=400, columns=None, limit=None, **query) -> list[str]:
    buf = io.BytesIO()

    class Out:
        buffer = buf

    saved, sys.stdout = sys.stdout, Out()
    try:
        write_result(open_query(root, **query), "table", width=width, columns=columns, limit=limit)
    finally:
        sys.stdout = saved
    return buf.getvalue().decode().splitlines()


def note(lines: list[str]) -> str:
    at = next((i for i, line in enumerate(lines) if line.startswith("same in every row: ")), None)
    return "" if at is None else " ".join(line.strip() for line in lines[at:])


def cli(*args):
    return CliRunner().invoke(app, ["query", *map(str, args)], catch_exceptions=False)


# ---------------------------------------------------------------- the dataset's order


@pytest.mark.parametrize("name", ["outcomes", "game_length", "wars_per_game", "seat_win_rate", "length_histogram",
                                  "war_depth", "longest_games"])
def test_named_queries_give_rule_sets_in_the_datasets_order(root, name):
    names = run(root, name=name).column("rule_set").to_pylist()
    assert list(dict.fromkeys(names)) == ORDER, name


def test_the_views_know_each_rule_sets_place_and_policies(root):
    rows = run(root, sql="SELECT rule_set, rule_set_order(rule_set) AS place, rule_set_policies(rule_set) AS policies "
                         "FROM rules ORDER BY place").to_pylist()
    assert rows == [{"rule_set": n, "place": i, "policies": []} for i, n in enumerate(ORDER)]
    assert run(root, sql="SELECT rule_set_order('nobody') AS o").to_pylist() == [{"o": None}]


# ---------------------------------------------------------------- the table


def test_a_table_shows_the_answer_first_and_leaves_out_one_value_columns(root):
    lines = table(root, name="outcomes")
    header = lines[0].split()
    assert header[:2] == ["rule_set", "games"] or header[0] == "rule_set"
    answer = [c for c in header if c not in ("rule_set", "variant", "rules_id", "policies")]
    assert answer and header.index(answer[-1]) < header.index("rules_id")  # the answer before the ids
    assert "variant" in header and header.index("variant") > header.index(answer[-1])
    # every rule set played GAMES games and none has policies: said once, below, not in a column
    assert "games" not in header and "policies" not in header
    said = note(lines)
    assert said.startswith("same in every row: ") and f"games = {GAMES}" in said and "policies = []" in said
    assert lines[lines.index("3 rows") + 1].startswith("same in every row: ")
    # every other format keeps every column, in the query's order
    columns = describe(root, name="outcomes").column("column").to_pylist()
    assert columns[:4] == ["rule_set", "variant", "rules_id", "policies"]
    result = cli(root, "outcomes", "--format", "csv")
    assert next(csv.reader(io.StringIO(result.stdout))) == columns
    first = json.loads(cli(root, "outcomes", "--format", "jsonl").stdout.splitlines()[0])
    assert list(first) == columns


def test_one_value_is_told_over_every_row_not_the_rows_shown(root):
    # rule_set is zulu in the first five games, not in all 60: kept; `k` is 'x' in all of them: left out
    lines = table(root, sql="SELECT game_id, rule_set, 'x' AS k, battles FROM games ORDER BY game_id", limit=5)
    assert lines[0].split() == ["rule_set", "game_id", "battles"]
    assert f"{3 * GAMES} rows (5 shown)" in lines
    assert note(lines) == "same in every row: k = x"
    # a single row has no column of one value: it is the answer
    one = table(root, sql="SELECT count(*) AS games, 'x' AS k FROM games")
    assert one[0].split() == ["games", "k"] and not note(one)
    # without a column naming the rule set, the query's order
    plain = table(root, sql="SELECT variant, count(*) AS n FROM games GROUP BY ALL ORDER BY variant")
    assert plain[0].split() == ["variant", "n"]


def test_a_cut_table_names_its_columns_in_the_tables_order(root):
    lines = table(root, width=60, name="game_length")
    assert lines[0].split()[0] == "rule_set"
    cut = " ".join(line.strip() for line in lines if line.startswith(("… ", "  ")))
    assert "rules_id" in cut and cut.index("rules_id") > cut.index("max_battles")


# ---------------------------------------------------------------- --columns


def test_columns_choose_and_order_any_format(root):
    result = cli(root, "game_length", "--columns", "median_battles, rule_set,games")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["median_battles", "rule_set", "games"]  # chosen: kept though of one value
    assert not note(lines)
    rows = list(csv.reader(io.StringIO(cli(root, "game_length", "-f", "csv", "--columns", "rule_set,games").stdout)))
    assert rows[0] == ["rule_set", "games"] and [r[0] for r in rows[1:]] == ORDER
    jsonl = cli(root, "--sql", "SELECT game_id, battles FROM games ORDER BY game_id LIMIT 2", "-f", "jsonl",
                "--columns", "battles").stdout.splitlines()
    assert [list(json.loads(line)) for line in jsonl] == [["battles"], ["battles"]]
    described = cli(root, "outcomes", "--describe", "--columns", "wins,rule_set").stdout.splitlines()
    assert [line.split()[0] for line in described[2:4]] == ["wins", "rule_set"]


@pytest.mark.parametrize("columns,mentions", [("rule_set,bogus", "'bogus'"), ("games,games", "twice"),
                                              (",", "column names")])
def test_an_unknown_column_is_one_line(root, monkeypatch, capsys, columns, mentions):
    monkeypatch.setattr(sys, "argv", ["war", "query", str(root), "outcomes", "--columns", columns])
    with pytest.raises(SystemExit) as exit_:
        main()
    err = capsys.readouterr().err
    assert exit_.value.code == 2, err
    [line] = error_lines(err)
    assert line.startswith("error: --columns") and mentions in line, line
    if mentions == "'bogus'":
        assert "rule_set, variant, rules_id, policies, games" in line  # the columns there are


def test_every_named_query_keeps_its_columns_for_programs(root):
    """The table's order is the table's: a program reading CSV or Arrow gets the query's."""
    for name in ("outcomes", "game_length", "war_depth"):
        assert run(root, name=name).column_names[:4] == ["rule_set", "variant", "rules_id", "policies"]
    assert "outcomes" in named_queries()
