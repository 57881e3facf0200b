"""The named queries `war report` added, checked against the same statistics recomputed in Python
from the Parquet files (games read with pyarrow, events decoded by pipeline.log.tables, not by
the SQL views), over a dataset of Classic War (shuffled, and table-order with a low cap, which
cycles and caps), 3-player Multiplayer, War with Jokers, a rule set dealt explicitly, and a
small Steal War tournament."""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from fractions import Fraction
from itertools import combinations

import pytest

from pipeline.errors import QueryError
from pipeline.jobs.generate import Plan, generate, make_plans
from pipeline.jobs.query import connect, named_queries, needs_events, open_query, reads_event_views, reads_log, run
from pipeline.model.deal import Deal
from pipeline.model.names import rule_set_names
from pipeline.model.rules import build_rules
from pipeline.storage.dataset import Dataset
from reportkit import wilson
from rulekit import dataset_events, games_rows

GAMES = 240
approx = pytest.approx


def _explicit_deals(rules, n: int, seed: int = 5) -> list[Deal]:
    rng = random.Random(seed)
    deals = []
    for _ in range(n):
        deck = list(range(52))
        rng.shuffle(deck)
        deals.append(Deal((tuple(deck[:26]), tuple(deck[26:]))))
    return deals


@pytest.fixture(scope="module")
def plans():
    classic = build_rules("classic")
    explicit = build_rules("classic", {"pickup": "winner_first"})
    return [
        Plan(classic, GAMES),
        Plan(build_rules("classic", {"pickup": "table_order", "max_battles": "400"}), GAMES),
        Plan(build_rules("multiplayer", {"players": "3"}), GAMES),
        Plan(build_rules("jokers"), GAMES),
        Plan(explicit, 60, _explicit_deals(explicit, 60)),
        *make_plans([build_rules("steal")], games=30, tournament=["steal:always", "steal:threshold:3"]),
    ]


@pytest.fixture(scope="module")
def root(tmp_path_factory, plans):
    out = tmp_path_factory.mktemp("report-queries") / "ds"
    generate(out, plans, seed=23)
    return out


@pytest.fixture(scope="module")
def names(root):
    """Each rule set's name (the queries' rule_set) by ordinal: the tournament's seatings apart."""
    return rule_set_names(Dataset.open(root).manifest.rule_sets)


@pytest.fixture(scope="module")
def rules_of(root, names):
    """A rule set's name -> its RuleSet."""
    return {names[e.ordinal]: e.rules for e in Dataset.open(root).manifest.rule_sets}


@pytest.fixture(scope="module")
def games(root):
    return games_rows(root)


@pytest.fixture(scope="module")
def by_rules(games, names):
    """A rule set's name -> its games (each with its `rule_set`)."""
    out = defaultdict(list)
    for g in games:
        g["rule_set"] = names[g["game_id"] // 1_000_000_000]
        out[g["rule_set"]].append(g)
    return dict(out)


@pytest.fixture(scope="module")
def events(root):
    return dataset_events(root)


def _rows(root, name, **params):
    return run(root, name=name, params={k: str(v) for k, v in params.items()}).to_pylist()


def test_the_dataset_is_worth_testing_on(by_rules, rules_of):
    fixed = next(rid for rid, r in rules_of.items() if r.pickup == "table_order")
    outcomes = Counter(g["outcome"] for g in by_rules[fixed])
    assert outcomes["cycle"] and outcomes["capped"] and outcomes["win"]
    assert {g["deal"] for gs in by_rules.values() for g in gs} == {"shuffle", "explicit"}


def test_the_games_only_queries_do_not_set_up_the_event_views():
    """They read `battles` as a column of games: no pass over every battle for them."""
    for name in ("game_length", "length_distribution", "seat_win_interval", "war_battles_distribution",
                 "deepest_war", "first_battle_war_exact", "notable_games", "outcomes",
                 "wars_per_game", "longest_games", "exact_length", "exact_outcomes", "exact_cards_laid",
                 "records", "cycles", "cycle_periods"):
        assert not needs_events(name=name), name
    for name in ("war_depth", "joker_wars", "joker_decides", "steals", "razboi_war_sizes", "arneson_consolation",
                 "deal_win_rate"):  # the `deals` view: from the copies, or decoded
        assert needs_events(name=name), name


def test_every_named_query_said_not_to_read_the_event_views_runs_without_them(root):
    """No query is left without a view it reads: each one said to need no event views runs in
    a session that has none."""
    session = connect(root, events=False)
    try:
        ran = 0
        for name in named_queries():
            if not needs_events(name=name):
                with open_query(root, name=name, session=session) as result:
                    for _ in result.batches():
                        pass
                ran += 1
        assert ran >= 20
    finally:
        session.close()


@pytest.mark.parametrize("sql,reads", [
    ("SELECT * FROM events", True), ("select count(*) from battles", True),
    ("SELECT * FROM games g,\n  battles b", True), ("SELECT * FROM (SELECT * FROM events)", True),
    ("SELECT g.battles FROM games g JOIN\n  events e USING (game_id)", True),
    ("SELECT avg(battles) FROM games", False), ("-- from events\nSELECT 1", False),
    ("SELECT variant, battles, outcome FROM games", False), ("SELECT max_by(game_id, (wars, battles)) FROM games", False),
    ("DESCRIBE events", True), ("SUMMARIZE battles", True), ("PRAGMA table_info('events')", True),
    ("SHOW battles", True), ("EXPLAIN SELECT * FROM\n  battles", True), ("PIVOT events ON kind", True),
    ("SELECT variant, battles, count(*) FROM games\nGROUP BY variant, battles\nORDER BY 1", False),
    ("SELECT game_id,\n  battles\nFROM games", False), ("FROM events", True),
    ("SELECT * FROM games WHERE game_id IN (SELECT game_id FROM battles WHERE depth > 2)", True),
    ("SELECT * FROM games UNION ALL SELECT * FROM \"Events\"", True),
    ("WITH events AS (SELECT game_id FROM games) SELECT * FROM events, battles", True),
])
def test_event_views_are_found_where_sql_reads_them(sql, reads):
    assert reads_event_views(sql) == reads
    assert reads_log(sql) == reads


@pytest.mark.parametrize("sql,reads", [
    ("SELECT count(*) FROM event_rows", True), ("EXPLAIN SELECT * FROM event_rows", True),
    ("-- event_rows\nSELECT 1", False), ("SELECT event_rows_seen FROM games", False),
])
def test_the_rows_of_the_log_are_found_where_sql_reads_them(sql, reads):
    assert reads_log(sql) == reads
    assert not reads_event_views(sql)


def test_length_distribution(root, by_rules, rules_of):
    for per_decade in (20, 3):
        rows = _rows(root, "length_distribution", bins_per_decade=per_decade)
        for rid, every in by_rules.items():
            gs = [g for g in every if g["outcome"] in ("win", "draw")]  # of the games that end
            mine = [r for r in rows if r["rule_set"] == rid]
            outcomes = Counter(g["outcome"] for g in every)
            assert {(r["cycles"], r["capped"]) for r in mine} == {(outcomes["cycle"], outcomes["capped"])}
            expected = Counter(math.floor(math.log10(g["battles"]) * per_decade + 1e-9) for g in gs)
            assert [r["bucket"] for r in mine] == list(range(min(expected), max(expected) + 1))
            cumulative = 0
            for r in mine:
                k = r["bucket"]
                assert r["games"] == expected.get(k, 0)
                assert r["bucket_low"] == approx(10 ** (k / per_decade))
                assert r["bucket_high"] == approx(10 ** ((k + 1) / per_decade))
                cumulative += r["games"]
                assert r["share"] == approx(r["games"] / len(gs))
                assert r["cumulative_share"] == approx(cumulative / len(gs))
                assert r["max_battles"] == rules_of[rid].max_battles
            assert mine[-1]["cumulative_share"] == approx(1.0)
    with pytest.raises(QueryError, match="bins_per_decade"):
        _rows(root, "length_distribution", bins_per_decade=0)


def test_seat_win_interval(root, by_rules, rules_of):
    rows = _rows(root, "seat_win_interval")
    for rid, gs in by_rules.items():
        players = rules_of[rid].players
        mine = [r for r in rows if r["rule_set"] == rid]
        assert [r["seat"] for r in mine] == list(range(players))
        decided = [g for g in gs if g["outcome"] == "win"]
        wins = Counter(g["winner"] for g in decided)
        for r in mine:
            assert r["wins"] == wins[r["seat"]] and r["decided_games"] == len(decided)
            assert r["share"] == approx(wins[r["seat"]] / len(decided))
            lo, hi = wilson(wins[r["seat"]], len(decided))
            assert (r["ci_low"], r["ci_high"]) == (approx(lo), approx(hi))
            assert r["ci_low"] <= r["share"] <= r["ci_high"]
            assert r["fair_share"] == approx(1 / players)
    wider = _rows(root, "seat_win_interval", z=2.576)
    for a, b in zip(rows, wider):
        assert b["ci_low"] <= a["ci_low"] and b["ci_high"] >= a["ci_high"]


def test_war_battles_distribution_and_deepest_war(root, by_rules):
    wars = _rows(root, "war_battles_distribution")
    deepest = _rows(root, "deepest_war")
    for rid, gs in by_rules.items():
        counts = Counter(g["war_battles"] for g in gs)
        mine = [r for r in wars if r["rule_set"] == rid]
        assert [r["war_battles"] for r in mine] == list(range(max(counts) + 1))
        assert [r["games"] for r in mine] == [counts.get(k, 0) for k in range(max(counts) + 1)]
        assert mine[-1]["cumulative_share"] == approx(1.0)
        depths = Counter(g["max_war_depth"] for g in gs)
        mine = [r for r in deepest if r["rule_set"] == rid]
        assert [r["depth"] for r in mine] == list(range(max(depths) + 1))
        for r in mine:
            assert r["games"] == depths.get(r["depth"], 0)
            assert r["share"] == approx(r["games"] / len(gs))
            assert r["at_least_share"] == approx(sum(1 for g in gs if g["max_war_depth"] >= r["depth"]) / len(gs))


def _exact_first_war(rules) -> Fraction:
    """Brute force: every set of `players` top cards, is the highest rank tied?"""
    n = rules.ranks * rules.suits + rules.jokers

    def rank(c):
        return rules.ranks if c >= rules.ranks * rules.suits else c // rules.suits

    tied = total = 0
    for hand in combinations(range(n), rules.players):
        ranks = [rank(c) for c in hand]
        total += 1
        tied += ranks.count(max(ranks)) > 1
    return Fraction(tied, total)


def test_first_battle_war_exact(root, by_rules, rules_of):
    rows = {r["rule_set"]: r for r in _rows(root, "first_battle_war_exact")}
    for rid, gs in by_rules.items():
        r, rules = rows[rid], rules_of[rid]
        flagged = sum(1 for g in gs if g["first_battle_war"])
        assert (r["games"], r["first_battle_wars"]) == (len(gs), flagged)
        lo, hi = wilson(flagged, len(gs))
        assert (r["ci_low"], r["ci_high"]) == (approx(lo), approx(hi))
        if gs[0]["deal"] == "explicit":
            assert r["exact"] is None and r["exact_fraction"] is None
            continue
        exact = _exact_first_war(rules)
        assert r["exact"] == approx(float(exact), rel=1e-9)
        num, den = map(int, r["exact_fraction"].split("/"))
        assert Fraction(num, den) == exact
        if rules.players == 2 and rules.jokers == 0:
            assert r["exact_fraction"] == "3/51"


def _deals(events) -> dict[tuple[int, int], list[int]]:
    return {(e["game_id"], e["seat"]): e["cards"] for e in events if e["kind"] == "deal"}


def _check_win_rates(rows, by_rules, rules_of, key_of):
    """Rows of deal_win_rate for one `by`: per rule set and value, the seats, decided seats and wins."""
    for rid, gs in by_rules.items():
        seats = defaultdict(lambda: [0, 0, 0, [], 0])  # seat-games, decided, wins, values, not mirrored
        players = rules_of[rid].players
        for g in gs:
            keys = [key_of(g, seat)[0] for seat in range(players)]
            for seat in range(players):
                k, value = key_of(g, seat)
                seats[k][0] += 1
                seats[k][3].append(value)
                if g["outcome"] == "win":
                    seats[k][1] += 1
                    seats[k][2] += g["winner"] == seat
                    # a 2-player game whose two seats were dealt alike is one game seen from each side
                    seats[k][4] += not (players == 2 and keys[0] == keys[1])
        mine = {r["low"]: r for r in rows if r["rule_set"] == rid}
        assert set(mine) == set(seats), rid
        for k, (n, decided, wins, values, unmirrored) in seats.items():
            r = mine[k]
            assert (r["seats"], r["decided_seats"], r["wins"]) == (n, decided, wins), (rid, k)
            assert r["mean_value"] == approx(sum(values) / len(values))
            if decided and not unmirrored:  # 1/2 by symmetry: no interval
                assert r["share"] == 0.5 and (r["ci_low"], r["ci_high"]) == (None, None), (rid, k)
            elif decided:
                assert r["share"] == approx(wins / decided)
                lo, hi = wilson(wins, decided)
                assert (r["ci_low"], r["ci_high"]) == (approx(lo), approx(hi))
            else:
                assert r["share"] is None
            assert r["fair_share"] == approx(1 / rules_of[rid].players)


def _rank(rules, c):
    return rules.ranks if c >= rules.ranks * rules.suits else c // rules.suits


@pytest.mark.parametrize("top_ranks,width", [(1, 4), (2, 7)])
def test_deal_win_rate(root, by_rules, rules_of, events, top_ranks, width):
    deals = _deals(events)
    rows = _rows(root, "deal_win_rate", top_ranks=top_ranks, width=width)
    assert {r["by"] for r in rows} == {"top_cards", "strength"}

    def top(g, seat):
        rules = rules_of[g["rule_set"]]
        n = sum(_rank(rules, c) >= rules.ranks - top_ranks for c in deals[(g["game_id"], seat)])
        return n, n

    def strength(g, seat):
        rules = rules_of[g["rule_set"]]
        s = sum(_rank(rules, c) - (rules.ranks - 1) / 2 for c in deals[(g["game_id"], seat)])
        return math.floor(s / width) * width, s

    tops = [r for r in rows if r["by"] == "top_cards"]
    strengths = [r for r in rows if r["by"] == "strength"]
    _check_win_rates(tops, by_rules, rules_of, top)
    _check_win_rates(strengths, by_rules, rules_of, strength)
    assert all(r["high"] == r["low"] for r in tops)
    assert all(r["high"] == r["low"] + width for r in strengths)
    # a standard deck deals out its 4 Aces between the 2 seats of Classic War
    classic = next(rid for rid, r in rules_of.items() if r.variant == "classic" and r.players == 2)
    if top_ranks == 1:
        assert {r["low"] for r in tops if r["rule_set"] == classic} <= set(range(5))
    for name, value in (("top_ranks", 0), ("width", 0), ("z", 0)):
        with pytest.raises(QueryError, match=name):
            _rows(root, "deal_win_rate", **{name: value})


def test_two_seats_strengths_mirror(root, rules_of):
    """Two seats share a standard deck: their strengths sum to 0."""
    rows = _rows(root, "deal_win_rate", width=1)
    classic = next(rid for rid, r in rules_of.items() if r.variant == "classic" and r.players == 2)
    counts = {r["low"]: r["seats"] for r in rows if r["rule_set"] == classic and r["by"] == "strength"}
    assert counts and all(counts.get(-k, 0) == n for k, n in counts.items())


def test_joker_wars(root, by_rules, rules_of, events):
    rows = _rows(root, "joker_wars")
    jokers = {rid for rid, r in rules_of.items() if r.jokers}
    assert {r["rule_set"] for r in rows} == jokers
    rule_of_game = {g["game_id"]: g["rule_set"] for gs in by_rules.values() for g in gs}
    per_battle = defaultdict(lambda: {"depth": 0, "plays": {}, "winner": None, "fight": False})
    for e in events:
        rid = rule_of_game[e["game_id"]]
        if rid not in jokers or e["battle"] == 0:
            continue
        b = per_battle[(e["game_id"], e["battle"])]
        if e["kind"] in ("play", "down", "war", "collect", "set_aside", "forfeit"):
            b["fight"] = True
        if e["kind"] == "war":
            b["depth"] = max(b["depth"], e["value"])
        elif e["kind"] == "play":
            b["plays"][e["seat"]] = e["cards"][0]
        elif e["kind"] == "collect" and b["winner"] is None:
            b["winner"] = e["seat"]
    expected = defaultdict(lambda: [0, 0])
    for (gid, _), b in per_battle.items():
        if not b["fight"]:
            continue
        rules = rules_of[rule_of_game[gid]]
        card = b["plays"].get(b["winner"])
        key = (rule_of_game[gid], b["depth"])
        expected[key][0] += 1
        expected[key][1] += card is not None and card >= rules.ranks * rules.suits
    got = {(r["rule_set"], r["war_depth"]): r for r in rows}
    assert set(got) == set(expected)
    for key, (n, by_joker) in expected.items():
        r = got[key]
        assert (r["battles"], r["joker_battles"]) == (n, by_joker), key
        assert r["joker_share"] == approx(by_joker / n)


@pytest.mark.parametrize("limit", [0, 2, 5])
def test_notable_games(root, by_rules, limit):
    rows = _rows(root, "notable_games", limit=limit)
    kinds = {
        "longest": (lambda g: g["outcome"] in ("win", "draw"), lambda g: (-g["battles"], g["game_id"])),
        "cycle": (lambda g: g["outcome"] == "cycle", lambda g: (-g["cycle_length"], -g["battles"], g["game_id"])),
        "capped": (lambda g: g["outcome"] == "capped", lambda g: (-g["wars"], g["game_id"])),
        "deepest_war": (lambda g: g["max_war_depth"] > 0, lambda g: (-g["max_war_depth"], -g["battles"], g["game_id"])),
    }
    expected = []
    for rid, gs in by_rules.items():
        for kind, (keep, order) in kinds.items():
            top = sorted((g for g in gs if keep(g)), key=order)[:limit]
            expected += [(rid, kind, i + 1, g["game_id"]) for i, g in enumerate(top)]
    got = [(r["rule_set"], r["kind"], r["rank"], r["game_id"]) for r in rows]
    assert sorted(got) == sorted(expected)
    by_id = {g["game_id"]: g for gs in by_rules.values() for g in gs}
    for r in rows:
        g = by_id[r["game_id"]]
        for col in ("variant", "battles", "outcome", "winner", "wars", "max_war_depth", "cycle_length", "policies"):
            assert r[col] == g[col], col
    with pytest.raises(QueryError, match="limit"):
        _rows(root, "notable_games", limit=-1)
