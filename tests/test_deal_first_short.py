"""The option `deal` (docs/rules.md 1.4, issue 53 item 3): `first_short` deals every card, the
first seats one card fewer when the deck does not divide among them; `even` (the default) deals
equal piles and sets the rest aside, as before. Its piles; the compiled engines' games equal the
reference's in every family; every deal of a small odd deck counted on the open duel equals
every deal played one by one on the reference engine; a deck that divides deals the same either
way; search and records take it."""

from __future__ import annotations

import json
from collections import Counter

import pytest

import compiledkit as kit
from pipeline.engines.choice import compiled_engine, fast_path
from pipeline.engines.compiled.deals import first_of_class, swapped_indexes
from pipeline.engines.table import open_duel
from pipeline.jobs.generate import generate, make_plans
from pipeline.jobs.query import run
from pipeline.jobs.records import deal_of, entry, rules_of
from pipeline.jobs.search import search, write_records
from pipeline.jobs.validate import validate
from pipeline.log.counts import count_deals, counts_classes, tally_table
from pipeline.log.shard import play_range
from pipeline.log.tables import games_table
from pipeline.model.all_deals import AllDeals, deal_count, deal_index, enumerated_deal
from pipeline.model.deal import deal_deck, pile_sizes, shuffled_deal
from pipeline.model.rng import Xoshiro256
from pipeline.model.rules import build_rules

pytest.importorskip("numba")

OPEN = {"suits": "1", "pickup": "natural", "war_down": "0"}  # the field's game: one suit, natural pickup


def short(variant: str = "classic", **options) -> object:
    return build_rules(variant, {**options, "deal": "first_short"})


def test_every_card_is_dealt_and_the_first_seats_hold_one_fewer():
    """One suit of 13 ranks: seat 0 six cards, seat 1 seven; three seats of 52: 17, 17, 18; each
    deck order dealt one card a seat in turn, the last card to the last seat."""
    for rules, sizes in ((short(ranks="13", suits="1"), (6, 7)), (short("multiplayer"), (17, 17, 18)),
                         (short("multiplayer", players="5", ranks="4", suits="3"), (2, 2, 2, 3, 3))):
        deal = shuffled_deal(rules, Xoshiro256(11))
        assert tuple(map(len, deal.piles)) == sizes and deal.set_aside == ()
        assert sorted(c for p in deal.piles for c in p) == list(range(sum(sizes)))
        assert pile_sizes(rules) == (*sizes, 0)
        deck = list(range(100, 100 + sum(sizes)))
        piles, _ = deal_deck(rules, deck)
        n = rules.players
        assert piles[n - 1][-1] == deck[-1]  # the last card reaches the last seat
        assert piles[n - sum(sizes) % n][0] == deck[0]  # the deal begins at the first seat that holds one more
        for i in range(len(deck) - 1):  # one card a seat in turn
            seat = next(s for s, p in enumerate(piles) if deck[i] in p)
            assert deck[i + 1] in piles[(seat + 1) % n]


def test_the_same_shuffle_deals_the_same_deck_either_way():
    """Both deals deal the deck the generator shuffled: even's piles and set-aside cards are the
    first_short deal's cards; a deck that divides among the seats deals the very same piles."""
    odd, even = short(ranks="13", suits="1"), build_rules("classic", {"ranks": "13", "suits": "1"})
    a, b = shuffled_deal(odd, Xoshiro256(5)), shuffled_deal(even, Xoshiro256(5))
    assert len(b.set_aside) == 1 and tuple(map(len, b.piles)) == (6, 6)
    assert sorted(c for p in a.piles for c in p) == sorted([*b.set_aside, *(c for p in b.piles for c in p)])
    for options in ({"ranks": "12", "suits": "1"}, {"ranks": "13", "suits": "4", "players": "4"}):
        rules = build_rules("classic", options)
        assert shuffled_deal(short(**options), Xoshiro256(9)) == shuffled_deal(rules, Xoshiro256(9))


def test_even_is_the_default_and_changes_no_rule_set():
    """`deal = even` is recorded nowhere (manifests and ids as before); `first_short` is, and is
    in the rule set's label, which names it in records."""
    rules = build_rules("classic")
    assert rules.deal == "even" and "deal" not in rules.model_dump()
    assert build_rules("classic", {"deal": "even"}).rules_id == rules.rules_id
    odd = short(ranks="13", suits="1")
    assert odd.model_dump()["deal"] == "first_short" and odd.rules_id != build_rules(
        "classic", {"ranks": "13", "suits": "1"}).rules_id
    assert rules_of(odd.label) == odd
    for variant in ("classic", "multiplayer", "jokers", "razboi", "steal", "arneson"):
        assert short(variant).deal == "first_short"


def test_the_enumeration_numbers_first_short_deals():
    """Every deal of the enumeration is a deal of the deck dealt as first_short deals, and its
    number comes back from its piles."""
    rules = short(ranks="3", suits="3", players="2")
    for index in range(0, deal_count(rules), 97):
        deal = enumerated_deal(rules, index)
        assert tuple(map(len, deal.piles)) == (4, 5) and deal.set_aside == ()
        assert deal_index(rules, deal) == index


SHUFFLED = [("classic", {"ranks": "13", "suits": "1", "pickup": "natural", "war_down": "0"}, ()),
            ("classic", {"ranks": "5", "suits": "3"}, ()),
            ("multiplayer", {"players": "4", "ranks": "5", "suits": "3"}, ()),
            ("razboi", {"players": "3"}, ()),
            ("jokers", {"ranks": "5", "suits": "3", "pickup": "winner_first"}, ()),
            ("steal", {"players": "3", "ranks": "5", "suits": "4", "jokers": "0"}, ("random",)),
            ("steal", {"ranks": "5", "suits": "3", "jokers": "0"}, ("greedy",)),
            ("arneson", {"ranks": "5", "suits": "3"}, ("random",)),
            ("arneson", {"ranks": "7", "suits": "3", "pickup": "natural"}, ("save_high",))]


@pytest.mark.parametrize("variant, options, seating", SHUFFLED, ids=lambda v: str(v))
def test_the_compiled_engines_play_first_short_games_as_the_reference(variant, options, seating):
    """Shuffled games and games of the enumeration, each family: the same events and games."""
    rules = short(variant, **options)
    specs = kit.seat_specs(rules, seating) if seating else ()
    assert compiled_engine(rules, specs) is not None
    logs = kit.assert_same_as_reference(rules, 1, 31, 0, 25, None, specs).logs
    dealt = [e for log in logs for e in log if e.battle == 0 and e.kind in ("deal", "set_aside")]
    assert [e.kind for e in dealt] == ["deal"] * 25 * rules.players  # every card dealt, none set aside
    assert sorted(len(e.cards) for e in dealt[:rules.players]) == sorted(pile_sizes(rules)[:-1])
    if variant != "razboi":  # a deck of 52 cards is not enumerated
        deals = AllDeals(rules, 40, 65)
        kit.assert_same_as_reference(rules, 1, 31, 40, 65, deals, specs, through_shard=True)


@pytest.mark.parametrize("ranks, suits, pickup", [(7, 1, "natural"), (5, 1, "winner_first"), (3, 3, "sorted"),
                                                  (3, 3, "table_order")])
def test_the_open_duel_plays_first_short_as_the_compiled_engine(ranks, suits, pickup):
    rules = short(ranks=str(ranks), suits=str(suits), pickup=pickup, war_down="0")
    assert fast_path(rules, None, (), events=False) is not None and open_duel.extra_card(rules) == 1
    count = deal_count(rules)
    expected = compiled_engine(rules, ()).play_arrays(rules, 3, 0, count, (), deals=AllDeals(rules, 0, count))
    found, _ = open_duel.play_arrays(rules, 3, 0, count, True)
    assert (expected.summaries == found.summaries).all() and (expected.final_cards == found.final_cards).all()
    assert set(found.final_cards.sum(axis=1)) <= {ranks * suits}  # no card set aside
    shuffled, _ = open_duel.play_arrays(rules, 3, 0, 300, False)
    again = compiled_engine(rules, ()).play_arrays(rules, 3, 0, 300, ())
    assert (shuffled.summaries == again.summaries).all()


def brute_force(rules) -> Counter:
    """Every deal of the deck played one by one on the reference engine, counted by kind."""
    count = deal_count(rules)
    ids, logs, records = play_range(rules, 0, 0, 0, count, AllDeals(rules, 0, count))
    games = games_table(records)
    columns = [games.column(c).to_pylist() for c in ("outcome", "winner", "battles", "cards_laid", "cycle_length",
                                                      "cycle_key")]
    return Counter(zip(*columns))


def counted(rules, start: int = 0, stop: int | None = None) -> Counter:
    table = tally_table(count_deals(rules, 0, 0, start, deal_count(rules) if stop is None else stop))
    out: Counter = Counter()
    for row in table.to_pylist():
        out[tuple(row[c] for c in ("outcome", "winner", "battles", "cards_laid", "cycle_length", "cycle_key"))] += \
            row["games"]
    return out


@pytest.mark.parametrize("ranks", [5, 7])
def test_every_deal_counted_equals_every_deal_played_on_the_reference(ranks):
    """One suit of 5 and of 7 ranks, natural pickup: the open duel's counts (every deal played:
    a deal's swap is no deal) are the reference engine's games, kind by kind; every deal is the
    first of its class of one."""
    rules = short(ranks=str(ranks), **{k: v for k, v in OPEN.items() if k != "suits"}, suits="1")
    assert fast_path(rules, None, (), events=False) is not None and not counts_classes(rules)
    truth = brute_force(rules)
    assert counted(rules) == truth and sum(truth.values()) == deal_count(rules)
    assert counted(rules, 0, 17) + counted(rules, 17) == truth  # a range starts anywhere
    numbers = list(range(deal_count(rules)))
    assert first_of_class(rules, numbers).all() and list(swapped_indexes(rules, numbers)) == numbers


def test_all_deals_counts_and_rows_answer_the_same_exact_queries(tmp_path):
    """`war generate --all-deals` of one suit of 7 ranks under first_short, counted and as rows:
    the same exact answers over 7! deals, each deal its own class."""
    rules = short(ranks="7", **{k: v for k, v in OPEN.items() if k != "suits"}, suits="1")
    generate(tmp_path / "rows", make_plans([rules], all_deals=True, log="games"))
    generate(tmp_path / "counts", make_plans([rules], all_deals=True, log="counts"))
    queries = ("exact_outcomes", "exact_length", "cycle_periods")
    rows = {q: run(tmp_path / "rows", name=q).to_pylist() for q in queries}
    assert rows == {q: run(tmp_path / "counts", name=q).to_pylist() for q in queries}
    # a 3|4 deal's swap is no deal: the games view says so (null), and each is first of its class
    sql = "SELECT count(*) AS n, count(swapped_index) AS swapped, bool_and(first_of_class) AS first FROM games"
    assert run(tmp_path / "rows", sql=sql).to_pylist() == [{"n": deal_count(rules), "swapped": 0, "first": True}]
    decided = next(r for r in rows["exact_outcomes"] if r["result"] == "decided")
    assert decided["denominator"] == deal_count(rules) == decided["class_denominator"]
    assert validate(tmp_path / "counts").ok and validate(tmp_path / "rows").ok


def test_a_deck_that_divides_counts_the_same_either_way():
    """One suit of 8 ranks: first_short deals even's piles, so its counts (by classes) are even's."""
    options = {**OPEN, "ranks": "8"}
    even, odd = build_rules("classic", options), short(**options)
    assert counts_classes(odd) and open_duel.extra_card(odd) == 0
    assert tally_table(count_deals(odd, 0, 0, 0, deal_count(odd))).equals(
        tally_table(count_deals(even, 0, 0, 0, deal_count(even))))


@pytest.mark.parametrize("options", [{**OPEN, "ranks": "11"}, {"ranks": "5", "suits": "3", "pickup": "winner_first"}])
def test_search_and_records_take_first_short(tmp_path, options):
    """A search of an odd deck under first_short (on the compiled engine: the open duel's polish
    takes battles back to equal piles) finds deals of 5|6 piles that replay and validate to their
    numbers, and its records file line names the option and gives the deal back."""
    rules = short(**options)
    found = search(rules, rounds=2, searchers=2, keep=3, seed=5)
    assert found.engine == "compiled" and found.records
    size = rules.ranks * rules.suits
    for record in found.records:
        line = entry(rules, record, found, "battles")
        assert [len(p) for p in line["piles"]] == [size // 2, size - size // 2] and line["set_aside"] == []
        assert "deal=first_short" in line["rules"]
        again, deal = deal_of(json.loads(json.dumps(line)))
        assert again == rules and tuple(map(len, deal.piles)) == (size // 2, size - size // 2)
    write_records(tmp_path / "rec", rules, found.records)
    assert validate(tmp_path / "rec").ok
    table = run(tmp_path / "rec", sql="SELECT battles, cards_laid FROM games ORDER BY game_id")
    assert list(zip(*(table.column(i).to_pylist() for i in range(2)))) == \
        [(r.battles, r.cards_laid) for r in found.records]
