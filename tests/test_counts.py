"""Every deal without a row a deal (`--log counts`, jobs.counts): every exact query answers from the
counts exactly as from the games rows of every deal; slices of the deals join into the whole;
validation plays the counts again and names what differs; an interrupted count resumes to the
same bytes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from faultkit import one_line, sign, tree, war
from pipeline.jobs import counts as counting
from pipeline.jobs.combine import combine
from pipeline.jobs.generate import generate, make_plans
from pipeline.jobs.query import run
from pipeline.jobs.validate import validate
from pipeline.model.all_deals import deal_count
from pipeline.model.rules import build_rules

EXACT = (("exact_outcomes", {}), ("exact_length", {}), ("exact_cards_laid", {}), ("records", {"limit": "5"}),
         ("cycle_periods", {}), ("cycles", {"limit": "1000"}))
GAME_IDS = ("game_id", "first_game")  # a counts rule set has no games

RULE_SETS = {
    # the open-play engine, one deal of each class played
    "open natural": ("classic", {"ranks": "3", "suits": "4", "pickup": "natural", "war_down": "0"}),
    # the open-play engine, every deal (table order does not treat the seats alike)
    "open table order": ("classic", {"ranks": "4", "suits": "2", "pickup": "table_order", "war_down": "0"}),
    # counted from the compiled engine's rows: wars of three down, and three seats
    "wars of three": ("classic", {"ranks": "3", "suits": "3", "pickup": "natural"}),
    "three seats": ("multiplayer", {"ranks": "4", "suits": "3", "pickup": "winner_first"}),
}


def answers(root: Path) -> dict:
    return {name: [{k: v for k, v in row.items() if k not in GAME_IDS}
                   for row in run(root, name=name, params=params).to_pylist()] for name, params in EXACT}


@pytest.mark.parametrize("case", sorted(RULE_SETS))
def test_counts_answer_every_exact_query_as_the_rows_of_every_deal_do(tmp_path, case):
    variant, options = RULE_SETS[case]
    rules = build_rules(variant, options)
    generate(tmp_path / "rows", make_plans([rules], all_deals=True, log="games"), shard_size=5000)
    generate(tmp_path / "counts", make_plans([rules], all_deals=True, log="counts"))
    rows, counted = answers(tmp_path / "rows"), answers(tmp_path / "counts")
    assert rows == counted
    assert rows["exact_outcomes"] and rows["records"]
    assert sum(r["numerator"] for r in rows["exact_outcomes"] if not r["result"].startswith("seat")) == \
        deal_count(rules)
    assert not (tmp_path / "counts" / "games").exists() and not (tmp_path / "counts" / ".war").exists()


@pytest.fixture(scope="module")
def slices(tmp_path_factory) -> tuple[Path, list[Path], Path]:
    """Every deal of four suits of three ranks in open play, counted whole and in three slices."""
    base = tmp_path_factory.mktemp("slices")
    rules = build_rules("classic", {"ranks": "3", "suits": "4", "pickup": "natural", "war_down": "0"})
    generate(base / "whole", make_plans([rules], all_deals=True, log="counts"))
    parts = []
    for first, stop in ((20000, 34650), (0, 7777), (7777, 20000)):
        parts.append(base / f"slice-{first}")
        generate(parts[-1], make_plans([rules], all_deals=True, log="counts", deal_range=(first, stop)))
    return base / "whole", parts, base


def test_slices_join_into_the_whole_in_any_order(slices, tmp_path):
    whole, parts, _ = slices
    combine(parts, tmp_path / "joined")
    counts = "counts/variant=classic/part-00000.parquet"
    assert (tmp_path / "joined" / counts).read_bytes() == (whole / counts).read_bytes()
    assert answers(tmp_path / "joined") == answers(whole)
    assert validate(tmp_path / "joined").ok
    combine(parts[::-1], tmp_path / "again")
    assert tree(tmp_path / "again") == tree(tmp_path / "joined")
    two = combine(parts[1:], tmp_path / "two")  # a slice of deals 0 .. 19,999: said as a slice
    assert list(two.deals.values()) == [(0, 20000, 34650)]


@pytest.mark.parametrize("pick, culprit", [((1, 0), "no slice counts deals 7,777 .. 19,999"),
                                           ((1, 1), "deals 0 .. 7,776 are counted by both")])
def test_slices_with_a_gap_or_an_overlap_are_refused_by_name(slices, tmp_path, monkeypatch, capsys, pick, culprit):
    _, parts, _ = slices
    code, out, err = war(monkeypatch, capsys, "combine", *[parts[i] for i in pick], "--out", tmp_path / "j")
    one_line(code, out, err, 2, culprit)
    assert not (tmp_path / "j").exists()


def test_rows_are_not_joined_as_counts(slices, tmp_path, monkeypatch, capsys):
    rules = build_rules("classic", {"ranks": "3", "suits": "2", "war_down": "0"})
    generate(tmp_path / "rows", make_plans([rules], all_deals=True))
    code, out, err = war(monkeypatch, capsys, "combine", tmp_path / "rows", "--out", tmp_path / "j")
    one_line(code, out, err, 2, "not counts")


def test_validation_plays_the_counts_again_and_names_a_row_and_a_shard_that_differ(slices, tmp_path):
    whole, _, _ = slices
    for what in ("counts", "count_shards"):
        root = tmp_path / what
        shutil.copytree(whole, root)
        part = root / what / "variant=classic" / "part-00000.parquet"
        table = pq.read_table(part)
        column = "games" if what == "counts" else "digest"
        values = table.column(column).to_pylist()
        values[-1] += 1
        table = table.set_column(table.schema.get_field_index(column), column, pa.array(values, pa.int64()))
        pq.write_table(table, part, compression="zstd")
        sign(root)
        report = validate(root)
        said = " ".join(str(p) for p in report.problems)
        assert not report.ok
        assert ("counts differ from the deals played again" in said) == (what == "counts"), said
        assert ("differ from the shard's digest" in said) == (what == "count_shards"), said


def test_validation_names_counts_whose_kind_is_split_over_two_rows(slices, tmp_path):
    """A row split in two of the same kind sums to the same counts, and validated as good: it is
    not a file war writes, and `SELECT * FROM counts` shows the kind twice (hostile pass E, 10)."""
    whole, _, _ = slices
    root = tmp_path / "split"
    shutil.copytree(whole, root)
    part = root / "counts" / "variant=classic" / "part-00000.parquet"
    table = pq.read_table(part)
    rows = table.to_pylist()
    first = next(i for i, r in enumerate(rows) if r["games"] > 1)
    rows.insert(first + 1, {**rows[first], "games": 1})
    rows[first] = {**rows[first], "games": rows[first]["games"] - 1}
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), part, compression="zstd")
    sign(root)
    report = validate(root)
    said = " ".join(str(p) for p in report.problems)
    assert not report.ok and "its counts are not as war writes them, one row a kind of game in order" in said, said
    assert "counts differ from the deals played again" not in said, said


def test_an_interrupted_count_resumes_to_the_same_bytes(tmp_path, monkeypatch):
    """Shards of 5,000 deals: the run stops after counting two; --resume counts the other five
    only and writes what an uninterrupted run writes."""
    monkeypatch.setattr(counting, "SMALLEST_COUNT_SHARD", 5000)
    rules = build_rules("classic", {"ranks": "3", "suits": "4", "pickup": "natural", "war_down": "0"})
    plans = make_plans([rules], all_deals=True, log="counts")
    generate(tmp_path / "straight", plans)
    real, done = counting.run_count_shard, []

    def stopping(shard, tick=None):
        if len(done) == 2:
            raise KeyboardInterrupt
        done.append(shard.part)
        return real(shard, tick)

    monkeypatch.setattr("pipeline.jobs.generate.run_count_shard", stopping)
    with pytest.raises(KeyboardInterrupt):
        generate(tmp_path / "stopped", plans)
    assert (tmp_path / "stopped" / ".war" / "counts").is_dir() and not (tmp_path / "stopped" / "manifest.json").exists()
    again = []

    def counting_again(shard, tick=None):
        again.append(shard.part)
        return real(shard, tick)

    monkeypatch.setattr("pipeline.jobs.generate.run_count_shard", counting_again)
    generate(tmp_path / "stopped", plans, resume=True)
    assert tree(tmp_path / "stopped") == tree(tmp_path / "straight")
    assert set(done).isdisjoint(again) and len(done) + len(again) == 7  # the two counted are kept
    assert len(pq.read_table(tmp_path / "straight" / "count_shards/variant=classic/part-00000.parquet")) == 7


def test_a_counts_dataset_says_what_it_holds(slices, monkeypatch, capsys):
    """Queries of the games or the log say the dataset holds counts and which queries read them."""
    whole, _, _ = slices
    code, out, err = war(monkeypatch, capsys, "query", whole, "--sql", "SELECT count(*) FROM events")
    one_line(code, out, err, 2, "counts")
    code, out, err = war(monkeypatch, capsys, "query", whole, "exact_outcomes", "--format", "csv")
    assert code == 0 and "seat 0 wins" in out


def test_a_query_that_reads_the_counts_too_is_not_warned_the_games_view_lacks_them(slices, monkeypatch, capsys):
    """The note that the games view holds no rows of a counted rule set is for a query of the
    games alone: `cycles` reads the games and the counts, and answers from the counts."""
    whole, _, _ = slices
    code, out, err = war(monkeypatch, capsys, "query", whole, "cycles", "--format", "csv")
    assert code == 0 and "holds no rows" not in err, err
    code, out, err = war(monkeypatch, capsys, "query", whole, "--sql", "SELECT count(*) AS n FROM games")
    assert code == 0 and "holds no rows" in err, err
    assert "--keep" not in err, err  # it keeps no games: the note names no option it was not given


def test_the_report_and_war_serve_show_a_counts_dataset(slices, tmp_path):
    """Its exact block alone in the report; the server's pages and queries answer (an empty games
    list, the exact queries from the counts)."""
    import json
    import urllib.request

    from pipeline.present.report_page import write_report
    from servekit import war_serve

    whole, _, _ = slices
    page = tmp_path / "report.html"
    write_report(whole, page)
    text = page.read_text(encoding="utf-8")
    assert "Exact results, over every deal" in text and "exact_outcomes" in text
    with war_serve(whole) as (url, _):
        for path in ("", "games", "sql", "queries/exact_outcomes", "queries/records?limit=2"):
            with urllib.request.urlopen(url + path, timeout=120) as response:
                assert response.status == 200, path
        with urllib.request.urlopen(url + "games.json", timeout=120) as response:
            listing = json.loads(response.read())
        assert listing["rows"] == [] and listing["total"] == 0 and listing["next"] is None
        assert listing["columns"] and listing["columns"][0] == "game_id"
        with urllib.request.urlopen(url + "queries/exact_outcomes?format=json", timeout=120) as response:
            rows = json.loads(response.read())
        assert sum(r["numerator"] for r in rows if not r["result"].startswith("seat")) == 34650


@pytest.mark.parametrize("case", ["open natural", "wars of three"])
def test_kept_games_are_the_games_the_condition_chooses_with_their_rows(tmp_path, case):
    """--keep: the games rows of exactly the deals whose games the condition chooses, each row
    the one a row-a-deal dataset has for that deal (but its id and its explicit deal), each a
    game that replays, the whole validating."""
    variant, options = RULE_SETS[case]
    rules = build_rules(variant, options)
    generate(tmp_path / "rows", make_plans([rules], all_deals=True, log="games"), shard_size=5000)
    longest = run(tmp_path / "rows", sql="SELECT max(battles) FROM games WHERE outcome = 'win'").column(0)[0].as_py()
    keep = f"outcome = 'cycle' OR battles >= {longest - 3}"
    generate(tmp_path / "kept", make_plans([rules], all_deals=True, log="counts", keep=keep))
    want = run(tmp_path / "rows", sql=f"SELECT * EXCLUDE (game_id, game_index, deal, piles, swapped_index, "
                                      f"first_of_class, rule_set) FROM games WHERE {keep} ORDER BY deal_index").to_pylist()
    got = run(tmp_path / "kept", sql="SELECT * EXCLUDE (game_id, game_index, deal, piles, swapped_index, "
                                     "first_of_class, rule_set) FROM games ORDER BY deal_index").to_pylist()
    assert got == want and len(got) > 10
    report = validate(tmp_path / "kept")
    assert report.ok, [str(p) for p in report.problems]
    from pipeline.jobs.replay import replay_game
    longest = max(got, key=lambda r: r["battles"])
    game = run(tmp_path / "kept", sql=f"SELECT game_id FROM games WHERE deal_index = {longest['deal_index']}")
    assert len(replay_game(tmp_path / "kept", game.column(0)[0].as_py()).battles) == longest["battles"]


def test_a_kept_deal_said_wrong_is_named_and_a_bad_condition_refused_before_counting(tmp_path, monkeypatch, capsys):
    rules = build_rules("classic", {"ranks": "3", "suits": "4", "pickup": "natural", "war_down": "0"})
    code, out, err = war(monkeypatch, capsys, "generate", "--set", "ranks=3", "--set", "suits=4", "--all-deals",
                         "--log", "counts", "--keep", "length > 3", "--out", tmp_path / "bad")
    one_line(code, out, err, 2, "--keep", "length")
    assert not (tmp_path / "bad").exists()
    root = tmp_path / "kept"
    generate(root, make_plans([rules], all_deals=True, log="counts", keep="outcome = 'cycle'"))
    seeds = root / "seeds" / "rule_set-0.jsonl"
    lines = seeds.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace('"deal_index":', '"deal_index":1')
    seeds.write_text("\n".join(lines) + "\n", encoding="utf-8")
    sign(root)
    report = validate(root)
    assert any("line 4: deal_index" in str(p) for p in report.problems), [str(p) for p in report.problems]
