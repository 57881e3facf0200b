"""Two games columns of schema version 5: `cycle_key`, the same for every game that falls into the
same cycle (by ranks), and `cards_laid`, the cards a game put on the table; the named queries
that count over them (`cycles`, `cycle_periods`, `exact_cards_laid`); and datasets of version 4,
which read, validate and take appends in their own version."""

from __future__ import annotations

import shutil
from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import run
from pipeline.jobs.replay import replay_game
from pipeline.jobs.validate import validate
from pipeline.model.cards import Deck
from pipeline.model.rules import build_rules
from pipeline.model.schema import SCHEMA_VERSION
from pipeline.storage.dataset import Dataset



@pytest.fixture(scope="module")
def looping(tmp_path_factory) -> Path:
    """Every deal of two suits of four ranks in open play, won cards in table order: 2,520 deals,
    more than half of them cycles."""
    root = tmp_path_factory.mktemp("looping") / "d"
    rules = build_rules("classic", {"ranks": "4", "suits": "2", "pickup": "table_order", "war_down": "0"})
    generate(root, [Plan(rules, 2520, all_deals=True)], shard_size=1000)
    return root


def rank_positions(root: Path, game_id: int) -> tuple[list, int, int]:
    """The game's positions (each seat's pile before each battle, and after the last) by cards
    and by ranks, from its replay (the ledger's piles, not the engine's), and its games row."""
    rp = replay_game(root, game_id)
    rank = Deck(ranks=4, suits=2).rank
    positions = [[e.cards for e in rp.deal if e.kind == "deal"]] + [b.piles_after for b in rp.battles]
    as_ranks = [tuple(tuple(rank[c] for c in pile) for pile in p) for p in positions]
    return [tuple(map(tuple, p)) for p in positions], as_ranks, rp.record


def test_games_share_a_cycle_key_exactly_when_they_loop_through_the_same_positions(looping):
    """Worked out from each cycle game's replay (the ledger's piles, a brute force apart from the
    engine): the game stops at its first repeated position by ranks, its cycle_length the
    battles since that position came before, though the cards (suits) have not come back in
    some; two games have one key when their cycles hold the same positions by ranks, and
    different keys otherwise."""
    rows = run(looping, sql="SELECT game_id, cycle_key, cycle_length, outcome FROM games ORDER BY game_id").to_pylist()
    assert all((r["cycle_key"] is None) == (r["outcome"] != "cycle") for r in rows)
    cycles = [r for r in rows if r["outcome"] == "cycle"]
    assert len(cycles) > 1000
    by_key: dict[int, set] = defaultdict(set)
    by_cycle: dict[frozenset, set] = defaultdict(set)
    suits_differ = 0
    for r in cycles:
        cards, ranks, record = rank_positions(looping, r["game_id"])
        n, length = record["battles"], r["cycle_length"]
        assert ranks[n] == ranks[n - length] and len(set(ranks[:n])) == n
        suits_differ += cards[n] != cards[n - length]
        cycle = frozenset(ranks[n - length:n])
        by_key[r["cycle_key"]].add(cycle)
        by_cycle[cycle].add(r["cycle_key"])
    assert all(len(c) == 1 for c in by_key.values()) and all(len(k) == 1 for k in by_cycle.values())
    assert 1 < len(by_key) < len(cycles) and suits_differ > 0
    periods = run(looping, name="cycle_periods").to_pylist()
    assert sum(p["cycles"] for p in periods) == len(by_key)
    listed = run(looping, name="cycles", params={"limit": "1000"}).to_pylist()
    assert len(listed) == len(by_key) and sum(c["numerator"] for c in listed) == len(cycles)
    assert all(c["denominator"] == 2520 for c in listed)
    assert [c["numerator"] for c in listed] == sorted((c["numerator"] for c in listed), reverse=True)
    first = {r["cycle_key"]: r["game_id"] for r in reversed(cycles)}
    assert all(first[c["cycle_key"]] == c["first_game"] for c in listed)


def miscounted(root: Path) -> int:
    """The games whose cards_laid is not the count of their events' cards of a play, a down and a
    forfeit (the `events` view's, decoded by SQL: not the engines' count)."""
    return run(root, sql="""
        WITH laid AS (SELECT game_id, sum(len(cards)) AS n FROM events
                      WHERE kind IN ('play', 'down', 'forfeit') GROUP BY game_id)
        SELECT count(*) FROM games g LEFT JOIN laid l USING (game_id)
        WHERE g.cards_laid IS DISTINCT FROM coalesce(l.n, 0)""").column(0)[0].as_py()


def test_cards_laid_counts_every_card_put_on_the_table(looping):
    """The games column against the events: every card of a play, a down and a forfeit."""
    assert miscounted(looping) == 0


def test_cards_laid_in_wars_and_by_hand(tmp_path):
    """Seeded games with wars of three down (every variant's families): the column equals the
    count of the events; a game of one battle with no war lays one card a seat."""
    for variant, options in (("classic", {}), ("steal", {}), ("arneson", {}), ("classic", {"shortfall": "lose"})):
        root = tmp_path / f"{variant}-{len(options)}"
        generate(root, [Plan(build_rules(variant, options), 60)], seed=3)
        assert miscounted(root) == 0, variant
    root = tmp_path / "tiny"
    generate(root, [Plan(build_rules("classic", {"ranks": "2", "suits": "1"}), 2, all_deals=True)])
    assert run(root, sql="SELECT battles, cards_laid FROM games").to_pylist() == [{"battles": 1, "cards_laid": 2}] * 2


def test_exact_cards_laid_is_the_distribution_of_the_games_that_end(looping):
    rows = run(looping, name="exact_cards_laid").to_pylist()
    ended = run(looping, sql="SELECT cards_laid FROM games WHERE outcome IN ('win', 'draw')").column(0).to_pylist()
    assert sum(r["numerator"] for r in rows) == rows[0]["denominator"] == len(ended)
    assert rows[0]["mean_numerator"] == sum(ended)
    assert {r["cards_laid"]: r["numerator"] for r in rows} == {n: ended.count(n) for n in set(ended)}


def test_a_version_4_dataset_is_read_with_the_new_columns_null(old_dataset):
    assert Dataset.open(old_dataset).manifest.schema_version == 4 < SCHEMA_VERSION
    rows = run(old_dataset, sql="SELECT count(*) AS n, count(cards_laid) AS laid, count(cycle_key) AS keys "
                                "FROM games").to_pylist()
    assert rows == [{"n": 60, "laid": 0, "keys": 0}]
    assert run(old_dataset, name="cycles").num_rows == 0
    assert replay_game(old_dataset, 0).disagreements == []


def test_a_version_4_dataset_takes_an_append_in_its_own_version(old_dataset):
    """The appended files have the columns of version 4, the manifest stays at 4, and the whole
    validates; a version 5 dataset's games files have the new columns."""
    generate(old_dataset, [Plan(build_rules("classic", {"pickup": "table_order"}), 30)], append=True, shard_size=20)
    ds = Dataset.open(old_dataset)
    assert ds.manifest.schema_version == 4
    for f in ds.manifest.files:
        schema = pq.read_schema(old_dataset / f.path)
        assert schema.metadata[b"war.schema_version"] == b"4"
        assert "cards_laid" not in schema.names and "cycle_key" not in schema.names
    report = validate(old_dataset)
    assert report.ok and report.good == 90, [str(p) for p in report.problems]
    cycled = run(old_dataset, sql="SELECT count(*) FROM games WHERE outcome = 'cycle'").column(0).to_pylist()
    assert cycled[0] > 0 and run(old_dataset, name="cycles").num_rows == 0  # no keys: no cycle listed as one
    new = old_dataset.parent / "new"
    generate(new, [Plan(build_rules("classic"), 5)])
    assert {"cards_laid", "cycle_key"} <= set(pq.read_schema(next((new / "games").rglob("*.parquet"))).names)


ENGINE_1 = Path(__file__).parent / "fixtures" / "dataset-engine-1"


def test_games_an_older_engine_ended_later_are_named_with_the_reason(tmp_path):
    """Engine version 1 compared positions card for card (fixtures/README.md): validation finds
    its cycling games that repeat their ranks earlier, and says in one line why they differ; the
    games that do not cycle, and those whose cards came back with their ranks, are good. An
    append by this war keeps that rule set's engine version and adds rule sets of its own."""
    root = tmp_path / "old"
    shutil.copytree(ENGINE_1, root)
    report = validate(root)
    rows = run(root, sql="SELECT game_id, outcome FROM games").to_pylist()
    bad = {p.game_id for p in report.problems if p.game_id is not None}
    assert bad and bad <= {r["game_id"] for r in rows if r["outcome"] == "cycle"}
    notes = [str(p) for p in report.problems if "engine version 1" in str(p)]
    assert len(notes) == 1 and f"{len(bad)} games of it differ" in notes[0]
    assert report.good == len(rows) - len(bad)
    generate(root, [Plan(build_rules("classic", {"ranks": "4", "suits": "2", "pickup": "natural"}), 20)],
             append=True, shard_size=20)
    manifest = Dataset.open(root).manifest
    assert manifest.engine_version != "1"
    assert [e.engine_version for e in manifest.rule_sets] == ["1", None]
    again = validate(root)
    assert {p.game_id for p in again.problems if p.game_id is not None} == bad
    assert again.good == report.good + 20
