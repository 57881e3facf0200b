"""The named queries in `queries/`, checked against statistics recomputed in Python from the
Parquet files (read with pyarrow, not DuckDB) of a small dataset that holds two rule sets of
the same variant: shuffled pickup, and table-order pickup with a low battle cap (so that it has
capped and cycle games)."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline.storage.dataset import Dataset
from pipeline.errors import QueryError
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import named_queries, parse_query, queries_dir, run
from pipeline.jobs.query.registry import query_files
from pipeline.model.rules import build_rules
from rulekit import dataset_events, quantile_cont

EXPECTED_QUERIES = {
    "outcomes", "game_length", "length_histogram", "seat_win_rate", "wars_per_game",
    "war_depth", "first_battle_war", "longest_games", "cycle_cap_by_pickup",
}
GAMES_PER_RULE_SET = 300


@pytest.fixture(scope="module")
def plans():
    return [
        Plan(build_rules("classic"), GAMES_PER_RULE_SET),
        Plan(build_rules("classic", {"pickup": "table_order", "max_battles": "400"}), GAMES_PER_RULE_SET),
    ]


@pytest.fixture(scope="module")
def root(tmp_path_factory, plans) -> Path:
    out = tmp_path_factory.mktemp("queries") / "ds"
    generate(out, plans, seed=7)
    return out


@pytest.fixture(scope="module")
def rule_sets(plans) -> dict[str, object]:
    """rules_id -> RuleSet."""
    return {p.rules.rules_id: p.rules for p in plans}


def _read(root: Path, table: str, columns: list[str] | None = None) -> list[dict]:
    ds = Dataset.open(root)
    rows: list[dict] = []
    for f in ds.files(table):
        rows.extend(pq.ParquetFile(ds.root / f.path).read(columns=columns).to_pylist())
    return rows


@pytest.fixture(scope="module")
def games(root) -> list[dict]:
    rows = _read(root, "games")
    assert len(rows) == 2 * GAMES_PER_RULE_SET
    return rows


@pytest.fixture(scope="module")
def by_rules(games) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for g in games:
        out[g["rules_id"]].append(g)
    return dict(out)


@pytest.fixture(scope="module")
def results(root) -> dict[str, list[dict]]:
    """Every named query run once with its default parameters."""
    return {name: run(root, name=name).to_pylist() for name in named_queries()}


def _one_row_per_rule_set(rows: list[dict]) -> dict[str, dict]:
    out = {}
    for r in rows:
        assert r["rules_id"] not in out, f"two rows for rule set {r['rules_id']}"
        out[r["rules_id"]] = r
    return out


def _median(values):
    return quantile_cont(values, 0.5)


approx = pytest.approx


# ---------------------------------------------------------------- the files themselves

def test_every_query_file_has_an_answers_header():
    """queries/ and each family's queries (Family.queries) alike."""
    files = [path for path, _ in query_files()]
    assert {p.stem for p in files} >= EXPECTED_QUERIES
    assert sorted(queries_dir().glob("*.sql")) == files[:len(list(queries_dir().glob("*.sql")))]
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert text.startswith("-- answers:"), path.name
        q = parse_query(path)
        assert q.answers and len(q.answers) > 20, path.name
        for p in q.params:
            assert p.default is not None and p.help, f"{path.name}: {p.name} needs a default and help"
            p.convert(p.default)


def test_params_are_declared_as_documented():
    queries = named_queries()
    assert [(p.name, p.type, p.default) for p in queries["length_histogram"].params] == [("width", "INTEGER", "50")]
    assert [(p.name, p.type, p.default) for p in queries["longest_games"].params] == [("limit", "INTEGER", "20")]
    assert "quantile_cont" in queries["game_length"].answers


def test_dataset_mixes_outcomes(by_rules, rule_sets):
    """The test data is worth testing on: two rule sets, and the fixed-order one caps and cycles."""
    assert set(by_rules) == set(rule_sets)
    fixed = next(rid for rid, r in rule_sets.items() if r.pickup == "table_order")
    outcomes = Counter(g["outcome"] for g in by_rules[fixed])
    assert outcomes["capped"] > 0 and outcomes["cycle"] > 0 and outcomes["win"] > 0


@pytest.mark.parametrize("name", sorted(EXPECTED_QUERIES))
def test_every_query_has_rows_for_both_rule_sets(name, results, rule_sets, games):
    rows = results[name]
    assert rows, name
    assert {r["rules_id"] for r in rows} == set(rule_sets)
    for r in rows:
        assert r["variant"] == rule_sets[r["rules_id"]].variant


# ---------------------------------------------------------------- statistics

def test_outcomes(results, by_rules):
    got = _one_row_per_rule_set(results["outcomes"])
    for rid, gs in by_rules.items():
        row = got[rid]
        counts = Counter(g["outcome"] for g in gs)
        assert row["games"] == len(gs)
        for outcome, count_col, share_col in (("win", "wins", "win_share"), ("draw", "draws", "draw_share"),
                                              ("capped", "capped", "capped_share"),
                                              ("cycle", "cycles", "cycle_share")):
            assert row[count_col] == counts[outcome]
            assert row[share_col] == approx(counts[outcome] / len(gs))
        assert row["win_share"] + row["draw_share"] + row["capped_share"] + row["cycle_share"] == approx(1.0)


def test_game_length(results, by_rules):
    """Lengths are of the games that end (a win or a draw); cycles and capped games are counted
    beside them, and the fixed-order rule set has both, so leaving them in would move every
    statistic."""
    got = _one_row_per_rule_set(results["game_length"])
    for rid, all_games in by_rules.items():
        row = got[rid]
        gs = [g for g in all_games if g["outcome"] in ("win", "draw")]
        battles = [g["battles"] for g in gs]
        outcomes = Counter(g["outcome"] for g in all_games)
        assert (row["games"], row["ended"]) == (len(all_games), len(gs))
        assert (row["cycles"], row["capped"]) == (outcomes["cycle"], outcomes["capped"])
        assert row["mean_battles"] == approx(sum(battles) / len(battles))
        assert row["median_battles"] == approx(_median(battles))
        assert row["p90_battles"] == approx(quantile_cont(battles, 0.9))
        assert row["p99_battles"] == approx(quantile_cont(battles, 0.99))
        assert row["min_battles"] == min(battles)
        assert row["max_battles"] == max(battles)


def _check_histogram(rows, by_rules, width):
    """Buckets of the games that end; each row counts the rule set's cycles and capped games."""
    for rid, all_games in by_rules.items():
        gs = [g for g in all_games if g["outcome"] in ("win", "draw")]
        mine = [r for r in rows if r["rules_id"] == rid]
        outcomes = Counter(g["outcome"] for g in all_games)
        assert {(r["cycles"], r["capped"]) for r in mine} == {(outcomes["cycle"], outcomes["capped"])}
        assert sum(r["games"] for r in mine) == len(gs)
        assert sum(r["share"] for r in mine) == approx(1.0)
        starts = [r["bucket_start"] for r in mine]
        assert starts == sorted(starts)
        # contiguous buckets of `width`, from the shortest game's to the longest game's
        assert all(b - a == width for a, b in zip(starts, starts[1:]))
        assert starts[0] == min(g["battles"] for g in gs) // width * width
        assert starts[-1] == max(g["battles"] for g in gs) // width * width
        expected = Counter(g["battles"] // width * width for g in gs)
        for r in mine:
            assert r["bucket_start"] % width == 0
            assert r["bucket_end"] == r["bucket_start"] + width - 1
            assert r["games"] == expected.get(r["bucket_start"], 0)
            assert r["share"] == approx(r["games"] / len(gs))


def test_length_histogram_default_width(results, by_rules):
    _check_histogram(results["length_histogram"], by_rules, 50)


@pytest.mark.parametrize("width", [1, 7, 100000])
def test_length_histogram_width_param(root, by_rules, width):
    rows = run(root, name="length_histogram", params={"width": str(width)}).to_pylist()
    _check_histogram(rows, by_rules, width)
    if width == 100000:
        assert len(rows) == len(by_rules)


@pytest.mark.parametrize("width", ["0", "-5"])
def test_length_histogram_refuses_width_below_one(root, width):
    with pytest.raises(QueryError, match="width"):
        run(root, name="length_histogram", params={"width": width})


def test_seat_win_rate(results, by_rules, rule_sets):
    rows = results["seat_win_rate"]
    for rid, gs in by_rules.items():
        players = rule_sets[rid].players
        mine = sorted((r for r in rows if r["rules_id"] == rid), key=lambda r: r["seat"])
        assert [r["seat"] for r in mine] == list(range(players))
        decided = [g for g in gs if g["outcome"] == "win"]
        wins = Counter(g["winner"] for g in decided)
        for r in mine:
            assert r["players"] == players
            assert r["games"] == len(gs)
            assert r["decided_games"] == len(decided)
            assert r["wins"] == wins[r["seat"]]
            assert r["share_of_decided"] == approx(wins[r["seat"]] / len(decided))
            assert r["share_of_games"] == approx(wins[r["seat"]] / len(gs))
        assert sum(r["wins"] for r in mine) == len(decided)
        assert sum(r["share_of_decided"] for r in mine) == approx(1.0)


def test_wars_per_game(results, by_rules):
    got = _one_row_per_rule_set(results["wars_per_game"])
    for rid, gs in by_rules.items():
        row = got[rid]
        assert row["games"] == len(gs)
        for col in ("wars", "war_battles"):
            values = [g[col] for g in gs]
            assert row[f"mean_{col}"] == approx(sum(values) / len(values))
            assert row[f"median_{col}"] == approx(_median(values))
            assert row[f"max_{col}"] == max(values)


@pytest.fixture(scope="module")
def war_events(root) -> list[dict]:
    """The `war` events, read with pyarrow: a war's value is its depth within the battle."""
    events = dataset_events(root)
    return [e for e in events if e["kind"] == "war"]


def test_war_depth_matches_events(results, by_rules, games, war_events):
    rules_of = {g["game_id"]: g["rules_id"] for g in games}
    depth: dict[tuple[int, int], int] = {}
    for e in war_events:
        key = (e["game_id"], e["battle"])
        depth[key] = max(depth.get(key, 0), e["value"])
    rows = results["war_depth"]
    for rid, gs in by_rules.items():
        counts = Counter(d for (gid, _), d in depth.items() if rules_of[gid] == rid)
        total = sum(g["battles"] for g in gs)
        war_total = sum(counts.values())
        counts[0] = total - war_total
        mine = {r["war_depth"]: r for r in rows if r["rules_id"] == rid}
        assert set(mine) == {d for d, n in counts.items() if n}
        assert set(mine) >= {0, 1, 2}
        for d, r in mine.items():
            assert r["battles"] == counts[d], (rid, d)
            assert r["share_of_battles"] == approx(counts[d] / total)
            if d == 0:
                assert r["share_of_war_battles"] is None
            else:
                assert r["share_of_war_battles"] == approx(counts[d] / war_total)
        # agrees with the games table's own summary columns
        assert sum(r["battles"] for r in mine.values()) == total
        assert war_total == sum(g["war_battles"] for g in gs)
        assert sum(d * r["battles"] for d, r in mine.items()) == sum(g["wars"] for g in gs)
        assert max(mine) == max(g["max_war_depth"] for g in gs)


def test_first_battle_war(results, by_rules, war_events):
    got = _one_row_per_rule_set(results["first_battle_war"])
    first_war_games = {e["game_id"] for e in war_events if e["battle"] == 1}
    for rid, gs in by_rules.items():
        row = got[rid]
        flagged = sum(1 for g in gs if g["first_battle_war"])
        from_events = sum(1 for g in gs if g["game_id"] in first_war_games)
        assert flagged == from_events
        assert row["games"] == len(gs)
        assert row["first_battle_wars"] == flagged
        assert row["share"] == approx(flagged / len(gs))


def _expected_longest(gs, limit):
    return sorted(gs, key=lambda g: (-g["battles"], g["game_id"]))[:limit]


def test_longest_games(results, by_rules):
    rows = results["longest_games"]
    for rid, gs in by_rules.items():
        mine = [r for r in rows if r["rules_id"] == rid]
        expected = _expected_longest(gs, 20)
        assert [r["game_id"] for r in mine] == [g["game_id"] for g in expected]
        assert [r["rank"] for r in mine] == list(range(1, 21))
        for r, g in zip(mine, expected):
            for col in ("variant", "battles", "outcome", "winner", "wars"):
                assert r[col] == g[col], col
        assert mine[0]["battles"] == max(g["battles"] for g in gs)


@pytest.mark.parametrize("limit", [0, 3, 1000])
def test_longest_games_limit(root, by_rules, limit):
    rows = run(root, name="longest_games", params={"limit": str(limit)}).to_pylist()
    assert len(rows) == sum(min(limit, len(gs)) for gs in by_rules.values())
    for rid, gs in by_rules.items():
        mine = [r["game_id"] for r in rows if r["rules_id"] == rid]
        assert mine == [g["game_id"] for g in _expected_longest(gs, limit)]


def test_longest_games_refuses_negative_limit(root):
    with pytest.raises(QueryError, match="limit") as caught:
        run(root, name="longest_games", params={"limit": "-1"})
    assert str(caught.value).startswith("parameter limit must be at least 0, got -1"), str(caught.value)
    assert caught.value.params == ("params",)


def test_cycle_cap_by_pickup(results, by_rules, rule_sets):
    got = _one_row_per_rule_set(results["cycle_cap_by_pickup"])
    for rid, gs in by_rules.items():
        row = got[rid]
        assert row["pickup"] == rule_sets[rid].pickup
        assert row["max_battles"] == rule_sets[rid].max_battles
        cycles = [g for g in gs if g["outcome"] == "cycle"]
        capped = [g for g in gs if g["outcome"] == "capped"]
        assert row["games"] == len(gs)
        assert row["cycles"] == len(cycles)
        assert row["capped"] == len(capped)
        assert row["cycle_share"] == approx(len(cycles) / len(gs))
        assert row["capped_share"] == approx(len(capped) / len(gs))
        if cycles:
            assert row["mean_cycle_length"] == approx(sum(g["cycle_length"] for g in cycles) / len(cycles))
        else:
            assert row["mean_cycle_length"] is None
        assert all(g["battles"] == rule_sets[rid].max_battles for g in capped)
    shuffled = next(r for r in got.values() if r["pickup"] == "shuffled")
    fixed = next(r for r in got.values() if r["pickup"] == "table_order")
    assert shuffled["cycles"] == 0  # a cycle needs a fixed pickup order (rules 2.6)
    assert fixed["cycles"] > 0 and fixed["capped"] > 0


# ---------------------------------------------------------------- errors

def test_unknown_param_name(root):
    with pytest.raises(QueryError, match="no parameter 'bucket'"):
        run(root, name="length_histogram", params={"bucket": "10"})
    with pytest.raises(QueryError, match="no parameter"):
        run(root, name="outcomes", params={"limit": "3"})


@pytest.mark.parametrize("name,params", [
    ("length_histogram", {"width": "wide"}),
    ("length_histogram", {"width": "2.5"}),
    ("longest_games", {"limit": "many"}),
])
def test_bad_param_value(root, name, params):
    with pytest.raises(QueryError, match="wants integer"):
        run(root, name=name, params=params)


def test_unknown_query_name(root):
    with pytest.raises(QueryError, match="unknown query 'no_such_query'") as caught:
        run(root, name="no_such_query")
    assert "outcomes" in str(caught.value)  # nothing close: every name


@pytest.mark.parametrize("name, said", [
    ("outcome", "did you mean outcomes"),
    ("longest_game", "did you mean longest_games"),
    ("SELECT count(*) FROM games", "SQL goes after --sql"),
    ("with t as (select 1) select * from t", "SQL goes after --sql"),
    ("from games", "SQL goes after --sql"),
])
def test_an_unknown_query_name_points_to_what_was_meant(root, name, said):
    with pytest.raises(QueryError, match="unknown query") as caught:
        run(root, name=name)
    assert said in str(caught.value) and "named queries:" not in str(caught.value)


@pytest.mark.parametrize("sql", [
    "SELEC 1",
    "SELECT no_such_column FROM games",
    "SELECT * FROM no_such_table",
])
def test_bad_adhoc_sql(root, sql):
    with pytest.raises(QueryError, match="SQL error"):
        run(root, sql=sql)


def test_adhoc_sql_sees_the_same_games(root, games):
    rows = run(root, sql="SELECT count(*) AS n, sum(battles) AS b FROM games").to_pylist()
    assert rows == [{"n": len(games), "b": sum(g["battles"] for g in games)}]


# ---------------------------------------------------------------- finding your way


def _war(*args):
    from typer.testing import CliRunner

    from pipeline.cli import app

    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_list_is_one_line_a_query():
    from pipeline.jobs.query.registry import solution_queries

    # the games' queries, and vs_exact, which asks games beside a solution
    queries = {**named_queries(), **{n: q for n, q in solution_queries().items() if q.dataset != "solution"}}
    lines = _war("query", "--list").splitlines()
    assert [line.split()[0] for line in lines] == list(queries)
    for line, q in zip(lines, queries.values()):
        assert q.summary in line and len(q.summary) <= 90, q.name
        assert q.summary.endswith(("?", ".")) and q.summary.count("? ") == 0, q.name
        for p in q.params:
            assert f"[--param {p.name}={p.default if p.default is not None else '...'}]" in line
    assert queries["longest_games"].summary == "Which games last longest?"
    assert queries["steals"].summary.startswith("How much do players steal in Steal War")


@pytest.mark.parametrize("name", ["game_length", "length_by_deck", "length_by_policy", "median_interval",
                                  "length_distribution", "length_histogram"])
def test_show_says_a_length_is_of_the_games_that_end(name):
    text = " ".join(_war("query", "--show", name).split())
    assert "games that end" in text and "cycles" in text and "capped" in text, name


@pytest.mark.parametrize("with_dataset", [False, True])
def test_show_tells_everything_about_a_query(root, with_dataset):
    args = ["query", root, "--show", "longest_games"] if with_dataset else ["query", "--show", "longest_games"]
    text = _war(*args)
    q = named_queries()["longest_games"]
    assert " ".join(text.split()).count(q.answers) == 1
    assert "limit INTEGER = 20 >= 0  -- how many games to list per rule set" in text
    assert q.body.strip() in text and "-- answers:" not in text
    columns = text.split("Columns:\n", 1)[1].split("\n\n", 1)[0].split("\n")
    real = run(root, name="longest_games")
    assert [c.split()[0] for c in columns] == real.column_names
    types = {r["column_name"]: r["column_type"] for r in
             run(root, sql="DESCRIBE " + q.body.replace("$limit", "20").rstrip().rstrip(";")).to_pylist()}
    assert [c.split()[1] for c in columns] == [types[n] for n in real.column_names]


def test_show_of_every_query_names_its_columns_without_a_dataset(results):
    for name in named_queries():
        text = _war("query", "--show", name)
        columns = text.split("Columns:\n", 1)[1].split("\n\n", 1)[0].split("\n")
        if results[name]:
            assert [c.split()[0] for c in columns] == list(results[name][0]), name


def test_show_of_an_unknown_query(monkeypatch, capsys):
    import sys

    from pipeline.cli import main

    monkeypatch.setattr(sys, "argv", ["war", "query", "--show", "nosuch"])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 2 and "unknown query 'nosuch'" in capsys.readouterr().err


# ---------------------------------------------------------------- upper bounds (hostile pass C, 14)

def _header(tmp_path, line: str):
    path = tmp_path / "bounded.sql"
    path.write_text(f"-- answers: How does a parameter's header read? A query of the tests alone.\n{line}\n"
                    f"SELECT 1 AS one\n", encoding="utf-8")
    return parse_query(path)


@pytest.mark.parametrize("line, taken, refused, said", [
    ("-- param: n INTEGER = 3 <= 7 -- a number", "7", "8", "parameter n must be at most 7, got 8"),
    ("-- param: n INTEGER = 3 < 7", "6", "7", "parameter n must be below 7, got 7"),
    ("-- param: n INTEGER = 3 >= 0 <= 7 -- a seat", "0", "8", "parameter n must be at least 0 and at most 7, got 8"),
    ("-- param: n INTEGER = 3 >= 0 <= 7 -- a seat", "7", "-1", "parameter n must be at least 0 and at most 7, got -1"),
    ("-- param: z DOUBLE = 1.96 > 0 < 40 -- a quantile", "39.9", "1e308",
     "parameter z must be positive and below 40, got 1e308"),
    ("-- param: z DOUBLE = 1.96 > 0 < 40 -- a quantile", "0.1", "0", "parameter z must be positive and below 40, got 0"),
])
def test_a_parameter_declares_an_upper_bound_checked_before_it_binds(tmp_path, line, taken, refused, said):
    """`<= HIGH`, `< HIGH` and both bounds together, said in one line as the lower bounds are."""
    q = _header(tmp_path, line)
    name = q.params[0].name
    assert q.bind({name: taken}) == {name: type(q.bind({})[name])(taken)}
    assert q.params[0].help == (line.split(" -- ")[1] if " -- " in line else "")
    with pytest.raises(QueryError) as caught:
        q.bind({name: refused})
    assert str(caught.value).startswith(said) and "\n" not in str(caught.value), str(caught.value)
    assert caught.value.params == ("params",)


@pytest.mark.parametrize("line, said", [
    ("-- param: s VARCHAR = a < 3", "parameter 's' of type VARCHAR takes no bound (< 3)"),
    ("-- param: n INTEGER = 5 >= 5 < 5", "parameter 'n': its bounds >= 5 and < 5 leave no number"),
    ("-- param: n INTEGER = 9 >= 0 <= 7", "parameter 'n': its default '9' is refused"),
    ("-- param: z DOUBLE = 1 < players", "parameter 'z': only an integer is bounded by players"),
])
def test_a_header_whose_upper_bound_cannot_hold_is_refused_by_its_file(tmp_path, line, said):
    with pytest.raises(QueryError, match=re.escape(f"bounded.sql: {said}")):
        _header(tmp_path, line)


def test_a_seat_beyond_the_dataset_s_players_is_refused(root):
    """`rule_set_pairs --param seat=7` of a 2-player dataset answered null shares with the
    interval [-1, 1]: its header bounds the seat by the dataset's players (`< players`), checked
    once the dataset is open, whatever columns are asked for."""
    assert [p.high for p in named_queries()["rule_set_pairs"].params if p.name == "seat"] == [("<", "players")]
    for seat in ("2", "7"):
        for columns in (None, "rule_set_a"):
            with pytest.raises(QueryError) as caught:
                with war_open_query(root, seat, columns):
                    pass
            assert str(caught.value).startswith(
                f"parameter seat must be below 2 (the dataset's rule sets seat at most 2 players), got {seat}")
            assert caught.value.params == ("params",)
    rows = run(root, name="rule_set_pairs", params={"seat": "1"}).to_pylist()
    assert rows and all(r["seat"] == 1 and -1 <= r["seat_share_low"] <= r["seat_share_high"] <= 1 for r in rows)
    from pipeline.jobs.query import describe  # no dataset, no players to bound it by: its columns told
    assert "seat_share_low" in describe(None, name="rule_set_pairs", params={"seat": "7"}).column("column").to_pylist()


def war_open_query(root, seat, columns):
    from contextlib import contextmanager

    from pipeline.jobs.query import open_query

    @contextmanager
    def opened():
        with open_query(root, name="rule_set_pairs", params={"seat": seat}) as result:
            if columns:
                result.choose(columns)
            result.batches().read_all()
            yield result
    return opened()


def test_a_share_that_is_not_compared_has_no_interval(tmp_path):
    """A pair of rule sets of different players compares no seat: its seat share was null with
    the interval [-1, 1] (DuckDB's greatest(-1, null) is -1); now null too."""
    out = tmp_path / "mixed"
    generate(out, [Plan(build_rules("classic"), 3), Plan(build_rules("multiplayer"), 3)], seed=2)
    [row] = run(out, name="rule_set_pairs").to_pylist()
    assert row["seat_share_diff"] is None and row["seat_share_low"] is None and row["seat_share_high"] is None
    assert row["draw_share_low"] is not None and row["draw_share_high"] is not None


def test_every_interval_s_z_is_bounded_to_keep_its_arithmetic_finite(root):
    """`seat_win_interval --param z=1e308` gave ci_low = nan (z*z overflows, inf/inf), and
    rule_set_pairs an interval up to inf. Every query with a normal quantile z bounds it below
    40, past where the level's tail itself is 0 in doubles (erfc(z / sqrt 2) is 0 from z = 39):
    the intervals stay finite."""
    from pipeline.jobs.query.registry import solution_queries

    queries = {**named_queries(), **solution_queries()}
    bounded = {name: p.high for name, q in queries.items() for p in q.params if p.name == "z"}
    assert {"seat_win_interval", "median_interval", "rule_set_pairs", "outcome_interval", "vs_exact"} <= set(bounded)
    assert set(bounded.values()) == {("<", 40.0)}
    with pytest.raises(QueryError, match="parameter z must be positive and below 40, got 1e308"):
        run(root, name="seat_win_interval", params={"z": "1e308"})
    for name in ("seat_win_interval", "outcome_interval", "median_interval", "rule_set_pairs", "deal_win_rate"):
        for row in run(root, name=name, params={"z": "39.99"}).to_pylist():
            numbers = [v for v in row.values() if isinstance(v, float)]
            assert all(math.isfinite(v) for v in numbers), (name, row)


def test_show_says_each_parameter_s_bounds_as_its_header_does():
    """The bounds were checked but never shown: a user learnt them from the error."""
    text = _war("query", "--show", "rule_set_pairs")
    assert "  z DOUBLE = 1.96 > 0 < 40  -- " in text and "  seat INTEGER = 0 >= 0 < players  -- " in text, text
    assert "  width INTEGER = 50 >= 1  -- " in _war("query", "--show", "length_histogram")


def test_an_integer_parameter_beyond_64_bits_is_refused_in_one_line(root):
    """It reached DuckDB, whose Binder Error said nothing of the parameter."""
    with pytest.raises(QueryError, match="parameter 'width' wants a 64-bit integer, got '99999999999999999999'"):
        run(root, name="length_histogram", params={"width": "99999999999999999999"})


def test_length_distribution_bounds_its_buckets(root):
    """bins_per_decade=2147483647 listed every empty bucket between the shortest game and the
    longest, billions of rows, until the process was killed."""
    with pytest.raises(QueryError, match="parameter bins_per_decade must be at least 1 and at most 1000, got 1001"):
        run(root, name="length_distribution", params={"bins_per_decade": "1001"})
    assert run(root, name="length_distribution", params={"bins_per_decade": "1000"}).num_rows > 0


# ---------------------------------------------------------------- no interval of too few games (hostile pass C, 6)

@pytest.fixture(scope="module")
def few(tmp_path_factory) -> Path:
    """Rule sets of 1 game that ends each (Classic War and Jokers, as the hostile pass had them),
    and one of 6, the fewest a 95% interval of the median takes ([shortest, longest] covers it
    1 - 2^-5 = 96.9% of the time; of 5, 93.75%)."""
    out = tmp_path_factory.mktemp("few") / "ds"
    generate(out, [Plan(build_rules("classic"), 1), Plan(build_rules("jokers"), 1),
                   Plan(build_rules("classic", {"war_down": "1"}), 6)], seed=3)
    return out


def test_a_median_of_too_few_games_has_no_interval(few):
    """median_interval clamped its ranks to 1..n, so 1 game had the "95% interval" [500, 500]."""
    rows = {r["rule_set"]: r for r in run(few, name="median_interval").to_pylist()}
    assert sorted(r["ended"] for r in rows.values()) == [1, 1, 6]
    for row in rows.values():
        battles = sorted(g["battles"] for g in run(few, sql="SELECT battles FROM games WHERE rule_set = "
                                                           f"'{row['rule_set']}'").to_pylist())
        assert row["median_battles"] == approx(_median(battles))
        if row["ended"] == 1:
            assert row["ci_low"] is None and row["ci_high"] is None
        else:  # its widest interval, of the same answer as before
            assert (row["ci_low"], row["ci_high"]) == (battles[0], battles[-1])
    at_99 = run(few, name="median_interval", params={"z": "2.576"}).to_pylist()  # 6 games fall short of 99%
    assert all(r["ci_low"] is None and r["ci_high"] is None for r in at_99)
    assert all(r["median_battles"] is not None for r in at_99)


def test_a_ratio_of_medians_of_too_few_games_has_no_interval(few):
    """rule_set_pairs gave Classic War's 1 game against Jokers' 1 the ratio 1.401 [1.401, 1.401],
    of its medians and of its means alike."""
    rows = run(few, name="rule_set_pairs").to_pylist()
    assert len(rows) == 3
    for row in rows:
        assert min(row["ended_a"], row["ended_b"]) == 1
        assert row["median_ratio"] is not None and row["mean_ratio"] is not None and row["median_p"] is not None
        for column in ("median_ratio_low", "median_ratio_high", "mean_ratio_low", "mean_ratio_high"):
            assert row[column] is None, (column, row)


def test_a_share_of_none_or_all_has_the_bound_0_or_1_exactly(root):
    """The Wilson bound of 0 of n is 0 (and of n of n, 1), not the float noise 1e-19 a reader could
    take for a computed positive bound; a share between has its interval as before."""
    [row] = run(root, sql="SELECT wilson_low(0.0, 7, 1.96) AS lo, wilson_high(1.0, 7, 1.96) AS hi, "
                          "wilson_low(0.5, 100, 1.96) AS m_lo, wilson_high(0.5, 100, 1.96) AS m_hi").to_pylist()
    assert (row["lo"], row["hi"]) == (0.0, 1.0)  # 0 of 7 was 3.6e-17
    z = 1.96
    centre, half = (0.5 + z * z / 200) / (1 + z * z / 100), z * (0.25 / 100 + z * z / 40000) ** 0.5 / (1 + z * z / 100)
    assert row["m_lo"] == pytest.approx(centre - half) and row["m_hi"] == pytest.approx(centre + half)
