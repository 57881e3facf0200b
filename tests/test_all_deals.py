"""Every deal of a small deck (`war generate --all-deals`, model.all_deals): the numbering of
deals against a brute force written here, each deal played once, the counts of outcomes against
an independent simulator of every deal, the exact named queries, and datasets that store the
games table alone (`--log games`): replay, validation and the queries that need the log."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from independent_war import simulate
from pipeline.engines.compiled.deals import deals_at, enumerated_deals, first_of_class, swapped_indexes
from pipeline.errors import QueryError, RulesError
from pipeline.jobs.generate import Plan, generate, make_plans
from pipeline.jobs.query import run
from pipeline.jobs.replay import replay_game
from pipeline.jobs.validate import validate
from pipeline.model.all_deals import (
    AllDeals, deal_count, deal_index, enumerated_deal, index_of, rank_counts, ranks_of,
)
from pipeline.model.rng import game_seed
from pipeline.model.rules import build_rules


def every_sequence(counts) -> list[tuple[int, ...]]:
    """The brute force: every distinct sequence of the ranks, in lexicographic order."""
    ranks = [r for r, c in enumerate(counts) for _ in range(c)]
    return sorted(set(itertools.permutations(ranks)))


@pytest.mark.parametrize("options", [{"ranks": "3", "suits": "2"}, {"ranks": "2", "suits": "3", "jokers": "2"},
                                     {"ranks": "5", "suits": "1", "players": "3"}])
def test_deal_i_is_the_sequence_of_rank_i(options):
    rules = build_rules("classic", options)
    counts = rank_counts(rules)
    sequences = every_sequence(counts)
    assert deal_count(rules) == len(sequences)
    compiled = enumerated_deals(rules, 0, len(sequences))
    for i, sequence in enumerate(sequences):
        assert ranks_of(counts, i) == list(sequence) and index_of(counts, sequence) == i
        deal = enumerated_deal(rules, i)
        assert deal_index(rules, deal) == i and deal.kind == "all"
        assert list(compiled.cards[i]) == [c for pile in deal.piles for c in pile] + list(deal.set_aside)
    every = np.arange(len(sequences))[::-1].copy()
    assert (deals_at(rules, every).cards == compiled.cards[::-1]).all()


def test_a_deal_is_each_ranks_cards_in_code_order_dealt_round_the_table():
    """Deal 0 is the ranks in order: 3 ranks of 2 suits give the deck 0 1 2 3 4 5; two seats
    take 0 2 4 and 1 3 5. The last deal is the ranks reversed, each rank's cards still in code
    order: 4 5 2 3 0 1."""
    rules = build_rules("classic", {"ranks": "3", "suits": "2"})
    assert enumerated_deal(rules, 0).piles == ((0, 2, 4), (1, 3, 5))
    assert enumerated_deal(rules, 89).piles == ((4, 2, 0), (5, 3, 1))


def test_the_swapped_deal_is_the_same_deal_with_the_seats_exchanged():
    rules = build_rules("classic", {"ranks": "3", "suits": "2"})
    got = swapped_indexes(rules, np.arange(90))
    for i in range(90):
        deal = enumerated_deal(rules, i)
        swapped = enumerated_deal(rules, int(got[i]))
        ranks = [[c // 2 for c in pile] for pile in deal.piles]
        assert [[c // 2 for c in pile] for pile in swapped.piles] == ranks[::-1]
        assert got[got[i]] == i


@pytest.mark.parametrize("options", [{"ranks": "3", "suits": "2"}, {"ranks": "5", "suits": "1"},
                                     {"ranks": "3", "suits": "3"}, {"ranks": "2", "suits": "2", "jokers": "2"}, {"ranks": "7", "suits": "1"}])
def test_the_first_of_a_class_is_the_deal_numbered_below_its_swap(options):
    """first_of_class, which the games view and exact_outcomes use, says deal_index <= its swapped
    deal's without computing that: on every deal of decks even and odd (a card set aside), with
    deals that are their own swap, in order and in any order (a run of numbers is stepped)."""
    rules = build_rules("classic", options)
    count = deal_count(rules)
    indexes = np.arange(count)
    wanted = indexes <= swapped_indexes(rules, indexes)
    assert first_of_class(rules, indexes).tolist() == wanted.tolist()
    shuffled = np.random.default_rng(4).permutation(count)
    assert first_of_class(rules, shuffled).tolist() == wanted[shuffled].tolist()
    assert first_of_class(rules, indexes[5:]).tolist() == wanted[5:].tolist()


def test_an_enumeration_over_ten_to_the_ten_deals_is_refused_with_the_count():
    rules = build_rules("classic", {"ranks": "13", "suits": "2"})
    with pytest.raises(RulesError, match=r"is [\d,]+ deals, more than 10,000,000,000") as caught:
        make_plans([rules], all_deals=True)
    assert "options" in caught.value.params
    assert "smaller deck (ranks and suits in --set)" in caught.value.spoken(lambda p: "--set" if p == "options" else p)
    with pytest.raises(RulesError, match="`deals` or `all_deals`, not both"):
        make_plans([build_rules("classic")], deals="x.jsonl", all_deals=True)


@pytest.mark.parametrize("pickup", ["natural", "sorted", "winner_first", "table_order"])
def test_every_deal_counts_as_an_independent_simulator_of_every_deal_counts(tmp_path, pickup):
    """Open play on 4 ranks of 2 suits: 2,520 deals, each played once by the tool and by
    tests/independent_war.py from the same deck order; the outcomes and lengths agree deal by
    deal, and the exact shares are the counts over 2,520."""
    rules = build_rules("classic", {"ranks": "4", "suits": "2", "war_down": "0", "pickup": pickup})
    generate(tmp_path / "d", make_plans([rules], all_deals=True, log="games"), seed=3, shard_size=700)
    rows = run(tmp_path / "d", sql="SELECT deal_index, outcome, winner, battles FROM games ORDER BY deal_index")
    mine = []
    for index in range(2520):
        deal = enumerated_deal(rules, index)
        deck = [deal.piles[i % 2][i // 2] for i in range(8)]
        result = simulate(rules.model_dump(), game_seed(3, index), deck)
        mine.append((index, result["outcome"], result["winner"], result["battles"]))
    assert list(zip(*rows.to_pydict().values())) == mine
    exact = run(tmp_path / "d", name="exact_outcomes").to_pylist()
    counts = Counter(o if o != "win" else f"seat {w} wins" for _, o, w, _ in mine)
    counts["decided"] = sum(1 for _, o, _, _ in mine if o == "win")
    assert {r["result"]: Fraction(r["numerator"], r["denominator"]) for r in exact} == \
        {k: Fraction(v, 2520) for k, v in counts.items() if v}
    # classes are counted of outcomes, never of a seat's wins (a class's two deals may be won by either seat)
    assert all((r["classes"] is None) == r["result"].startswith("seat ") for r in exact)


def test_records_and_cycles_of_one_suit_of_six_ranks(tmp_path):
    """One suit of 6 ranks, winner's cards first: 720 deals; the records query lists the longest
    games that end by each measure with their deals, which replay to that length, and the cycle
    periods count every deal that cycles."""
    rules = build_rules("classic", {"ranks": "6", "suits": "1", "pickup": "winner_first"})
    generate(tmp_path / "d", make_plans([rules], all_deals=True), seed=1)
    records = run(tmp_path / "d", name="records", params={"limit": "3"}).to_pylist()
    longest = run(tmp_path / "d", sql="SELECT max(battles) FROM games WHERE outcome = 'win'").column(0)[0].as_py()
    most = run(tmp_path / "d", sql="SELECT max(cards_laid) FROM games WHERE outcome = 'win'").column(0)[0].as_py()
    by = {m: [r for r in records if r["measure"] == m] for m in ("battles", "cards_laid")}
    assert by["battles"][0]["battles"] == longest and by["cards_laid"][0]["cards_laid"] == most
    assert [len(rows) for rows in by.values()] == [3, 3]
    assert by["battles"][0]["deals"] == run(tmp_path / "d", sql=(
        f"SELECT count(*) FROM games WHERE outcome = 'win' AND battles = {longest} "
        f"AND cards_laid = {by['battles'][0]['cards_laid']}")).column(0)[0].as_py()
    top = by["battles"][0]
    assert [tuple(p) for p in top["piles"]] == list(enumerated_deal(rules, top["deal_index"]).piles)
    assert len(replay_game(tmp_path / "d", top["game_id"]).battles) == longest
    periods = run(tmp_path / "d", name="cycle_periods").to_pylist()
    cycles = run(tmp_path / "d", sql="SELECT count(*) FROM games WHERE outcome = 'cycle'").column(0)[0].as_py()
    assert sum(p["numerator"] for p in periods) == cycles and all(p["denominator"] == 720 for p in periods)
    length = run(tmp_path / "d", name="exact_length").to_pylist()
    ended = run(tmp_path / "d", sql="SELECT sum(battles), count(*) FROM games WHERE outcome IN ('win', 'draw')")
    total, count = ended.to_pylist()[0].values()
    assert all(r["mean_numerator"] == total and r["denominator"] == count for r in length)


def test_a_games_only_dataset_replays_validates_and_names_what_it_lacks(tmp_path):
    rules = build_rules("classic")
    generate(tmp_path / "g", [Plan(rules, 40, log="games")], seed=9, shard_size=15)
    generate(tmp_path / "e", [Plan(rules, 40)], seed=9, shard_size=15)
    assert not list((tmp_path / "g").glob("events/**/*.parquet"))
    games = run(tmp_path / "g", sql="SELECT * FROM games ORDER BY game_id")
    assert games.equals(run(tmp_path / "e", sql="SELECT * FROM games ORDER BY game_id"))
    stored, again = replay_game(tmp_path / "e", 17), replay_game(tmp_path / "g", 17)
    assert [b.events for b in again.battles] == [b.events for b in stored.battles] and not again.disagreements
    report = validate(tmp_path / "g")
    assert report.ok and report.good == 40
    with pytest.raises(QueryError, match="games table alone.*war generate --from"):
        run(tmp_path / "g", sql="SELECT count(*) FROM events")
    with pytest.raises(QueryError, match="games table alone"):
        run(tmp_path / "g", name="war_depth")


def test_all_deals_plays_each_deal_once_on_both_engines(tmp_path, monkeypatch):
    """The reference engine (WAR_ENGINE=reference) and the compiled engine give the same tables
    for every deal; a shard of deals is a slice of the enumeration."""
    rules = build_rules("classic", {"ranks": "3", "suits": "2", "pickup": "sorted", "war_down": "1"})
    generate(tmp_path / "c", make_plans([rules], all_deals=True), seed=4, shard_size=25)
    monkeypatch.setenv("WAR_ENGINE", "reference")
    generate(tmp_path / "r", make_plans([rules], all_deals=True), seed=4, shard_size=25)
    for table in ("games", "events"):
        sql = f"SELECT * FROM {table} ORDER BY game_id" + (", seq" if table == "events" else "")
        assert run(tmp_path / "c", sql=sql).equals(run(tmp_path / "r", sql=sql)), table
    assert list(AllDeals(rules, 10, 20)[2:5]) == [enumerated_deal(rules, i) for i in (12, 13, 14)]
