"""The named queries on a dataset that mixes variants, player counts and decks: Classic, 3- and
4-player Multiplayer War, War with Jokers, Război and Classic on a 28-card deck (7 ranks x 4
suits), in one dataset. Every named query must run on it and answer per variant and rule set
(a pair query per pair of rule sets); the variant queries (seat advantage, length by deck,
Război war sizes, Joker-decided battles) are checked against statistics recomputed in Python
from the Parquet files (read with pyarrow, not DuckDB): the games rows, and the events replayed
event by event."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline.storage.dataset import Dataset
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import named_queries, run
from pipeline.model.names import rule_set_names
from pipeline.model.rules import build_rules
from rulekit import games_rows, quantile_cont
from pipeline.log.tables import game_logs

GAMES_PER_RULE_SET = 200
SEED = 11
RANK_LABELS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
# rules 5.1: a tie on value v puts v - 1 cards down; J, Q, K are 10, the Ace ace_value (11).
RAZBOI_VALUES = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10,
                 "J": 10, "Q": 10, "K": 10, "A": 11, "JK": 12}
# Queries that answer only for some rule sets: which ones.
ONLY_FOR = {
    "joker_decides": lambda rules: rules.jokers > 0,
    "joker_wars": lambda rules: rules.jokers > 0,
    "razboi_war_sizes": lambda rules: rules.war_down == "by_rank",
    "policy_matchup": lambda rules: False,
    # every deal of a deck (--all-deals): tests/test_all_deals.py
    "exact_outcomes": lambda rules: False,
    "exact_length": lambda rules: False,
    "records": lambda rules: False,
    "cycle_periods": lambda rules: False,
    "exact_cards_laid": lambda rules: False,
    # cycles: only rule sets whose pickup can repeat a position (tests/test_cycles_and_cards_laid.py)
    "cycles": lambda rules: False,
}

# Queries that answer per pair of rule sets (rule_set_a, rule_set_b), not per rule set.
PER_PAIR = {"rule_set_pairs"}


def _family_queries() -> dict:
    """A family's own queries (Family.queries) answer only for its rule sets."""
    from pipeline.engines.families import family_of
    from pipeline.model.families import beside, registry

    return {path.stem: (lambda rules, f=family.name: family_of(rules).name == f)
            for family in registry().families.values() if family.queries
            for path in beside(family, family.queries).glob("*.sql")}


FAMILY_QUERIES = _family_queries()


@pytest.fixture(scope="module")
def plans():
    return [
        Plan(build_rules("classic"), GAMES_PER_RULE_SET),
        Plan(build_rules("multiplayer", {"players": "3"}), GAMES_PER_RULE_SET),
        Plan(build_rules("multiplayer", {"players": "4"}), GAMES_PER_RULE_SET),
        Plan(build_rules("jokers"), GAMES_PER_RULE_SET),
        Plan(build_rules("razboi"), GAMES_PER_RULE_SET),
        Plan(build_rules("classic", {"ranks": "7", "suits": "4"}), GAMES_PER_RULE_SET),
    ]


@pytest.fixture(scope="module")
def root(tmp_path_factory, plans) -> Path:
    out = tmp_path_factory.mktemp("variant_queries") / "ds"
    generate(out, plans, seed=SEED, shard_size=100)
    return out


@pytest.fixture(scope="module")
def rule_sets(plans) -> dict[str, object]:
    """rules_id -> RuleSet."""
    return {p.rules.rules_id: p.rules for p in plans}


@pytest.fixture(scope="module")
def games(root) -> list[dict]:
    return games_rows(root)


@pytest.fixture(scope="module")
def by_rules(games) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for g in games:
        out[g["rules_id"]].append(g)
    return dict(out)


def _events_of(root: Path, rules_id: str):
    """(game_id, event) of every event of one rule set, in file order (game_id, seq)."""
    ds = Dataset.open(root)
    ordinals = {e.ordinal for e in ds.manifest.rule_sets if e.rules_id == rules_id}
    for f in ds.files("events"):
        if f.rule_set in ordinals:
            for gid, log in game_logs(pq.read_table(ds.root / f.path)).items():
                yield from ((gid, ev) for ev in log)


def _battles(root: Path, rules_id: str):
    """Every battle of a rule set as (game_id, battle, its events), from the event log."""
    current, events = None, []
    for gid, ev in _events_of(root, rules_id):
        battle = ev.battle
        if battle == 0:
            continue
        if (gid, battle) != current:
            if current is not None:
                yield current[0], current[1], events
            current, events = (gid, battle), []
        events.append(ev)
    if current is not None:
        yield current[0], current[1], events


def _rules_id_of(rule_sets, predicate) -> list[str]:
    return [rid for rid, r in rule_sets.items() if predicate(r)]


approx = pytest.approx


# ---------------------------------------------------------------- the dataset

def test_dataset_mixes_variants(by_rules, rule_sets):
    """The test data is worth testing on: six rule sets, four variants, 2 to 4 players, three
    deck sizes, in one dataset."""
    assert set(by_rules) == set(rule_sets) and len(rule_sets) == 6
    assert {g["variant"] for gs in by_rules.values() for g in gs} == {"classic", "multiplayer", "jokers", "razboi"}
    assert {r.players for r in rule_sets.values()} == {2, 3, 4}
    assert {r.ranks * r.suits + r.jokers for r in rule_sets.values()} == {28, 52, 54}
    for rid, gs in by_rules.items():
        assert len(gs) == GAMES_PER_RULE_SET
        assert all(g["players"] == rule_sets[rid].players for g in gs)


# ---------------------------------------------------------------- every query, every variant

@pytest.mark.parametrize("name", sorted(named_queries()))
def test_every_query_answers_per_variant_and_rule_set(name, root, rule_sets):
    rows = run(root, name=name).to_pylist()
    if name in PER_PAIR:
        _answers_per_pair(rows, root, rule_sets)
        return
    wanted = set(_rules_id_of(rule_sets, ONLY_FOR.get(name, FAMILY_QUERIES.get(name, lambda rules: True))))
    assert bool(rows) == bool(wanted), name
    assert {r["rules_id"] for r in rows} == wanted, name
    for r in rows:
        assert r["variant"] == rule_sets[r["rules_id"]].variant, name
    # grouped: each rule set's rows come together, by name (policy_matchup's by its rules' name)
    key = "rules_name" if name == "policy_matchup" else "rule_set"
    runs = [k for i, k in enumerate(r[key] for r in rows) if i == 0 or rows[i - 1][key] != k]
    assert len(runs) == len(set(runs)), f"{name}: a rule set's rows are split"


def _answers_per_pair(rows, root, rule_sets):
    """A pair query answers per pair of rule sets, not per rule set: every pair once, the
    earlier rule set (dataset order) as a, each side's variant; a seat compared only between
    rule sets of the same players (the rest of its numbers: tests/test_report_comparisons.py)."""
    entries = sorted(Dataset.open(root).manifest.rule_sets, key=lambda e: e.ordinal)
    names = rule_set_names(entries)
    rules = {names[e.ordinal]: rule_sets[e.rules_id] for e in entries}
    assert [(r["rule_set_a"], r["rule_set_b"]) for r in rows] == list(itertools.combinations(rules, 2))
    for r in rows:
        a, b = rules[r["rule_set_a"]], rules[r["rule_set_b"]]
        assert (r["variant_a"], r["variant_b"]) == (a.variant, b.variant)
        assert (r["seat_p"] is not None) == (a.players == b.players), r


# ---------------------------------------------------------------- seat advantage

def test_seat_advantage_by_players(root, by_rules, rule_sets):
    rows = run(root, name="seat_advantage_by_players").to_pylist()
    got = {(r["rules_id"], r["seat"]): r for r in rows}
    assert len(got) == len(rows) == sum(r.players for r in rule_sets.values())
    for rid, gs in by_rules.items():
        n = rule_sets[rid].players
        decided = [g for g in gs if g["outcome"] == "win"]
        wins = Counter(g["winner"] for g in decided)
        for seat in range(n):
            row = got[(rid, seat)]
            assert row["players"] == n
            assert row["games"] == len(gs)
            assert row["decided_games"] == len(decided)
            assert row["wins"] == wins[seat]
            assert row["share"] == approx(wins[seat] / len(decided))
            assert row["advantage"] == approx(wins[seat] / len(decided) - 1 / n)
        assert sum(got[(rid, s)]["advantage"] for s in range(n)) == approx(0.0, abs=1e-9)
    assert {r["players"] for r in rows} == {2, 3, 4}


# ---------------------------------------------------------------- length by deck

def test_length_by_deck(root, by_rules, rule_sets):
    rows = run(root, name="length_by_deck").to_pylist()
    got = {r["rules_id"]: r for r in rows}
    assert len(got) == len(rows) == len(rule_sets)
    for rid, gs in by_rules.items():
        rules, row = rule_sets[rid], got[rid]
        battles = [g["battles"] for g in gs]
        capped = sum(g["outcome"] == "capped" for g in gs)
        assert (row["ranks"], row["suits"], row["jokers"]) == (rules.ranks, rules.suits, rules.jokers)
        assert row["deck_size"] == rules.ranks * rules.suits + rules.jokers
        assert row["games"] == len(gs)
        assert row["mean_battles"] == approx(sum(battles) / len(battles))
        assert row["median_battles"] == approx(quantile_cont(battles, 0.5))
        assert row["p90_battles"] == approx(quantile_cont(battles, 0.9))
        assert row["max_battles"] == max(battles)
        assert row["capped"] == capped
        assert row["capped_share"] == approx(capped / len(gs))
    small = next(r for r in rows if r["deck_size"] == 28)
    full = next(r for r in rows if r["deck_size"] == 52 and r["variant"] == "classic")
    assert small["mean_battles"] < full["mean_battles"]


# ---------------------------------------------------------------- Război war sizes

def _razboi_wars(root: Path, rules_id: str) -> dict[str, dict]:
    """Per tied rank label: wars, player entries (a tied seat that turned a new card up in the
    war), face-down cards of those entries, and entries with fewer than v - 1 down."""
    out: dict[str, dict] = defaultdict(lambda: {"wars": 0, "entries": 0, "down": 0, "short": 0})
    for _gid, _battle, events in _battles(root, rules_id):
        last_up: dict[int, int] = {}
        wars = []  # [tied rank label, seats, {seat: down cards}, seats that turned a card up]
        for ev in events:
            if ev.kind == "play":
                if wars:
                    wars[-1][3].add(ev.seat)
                last_up[ev.seat] = ev.cards[0]
            elif ev.kind == "down":
                wars[-1][2][ev.seat] = wars[-1][2].get(ev.seat, 0) + len(ev.cards)
            elif ev.kind == "war":
                ranks = {13 if last_up[s] >= 52 else last_up[s] // 4 for s in ev.seats}  # standard deck
                assert len(ranks) == 1, "the tied cards of a war have one rank"
                r = ranks.pop()
                wars.append(["JK" if r == 13 else RANK_LABELS[r], set(ev.seats), {}, set()])
        for label, seats, down, up in wars:
            assert set(down) <= up <= seats
            stat = out[label]
            stat["wars"] += 1
            stat["entries"] += len(up)
            stat["down"] += sum(down.get(s, 0) for s in up)
            stat["short"] += sum(down.get(s, 0) < RAZBOI_VALUES[label] - 1 for s in up)
    return dict(out)


def test_razboi_war_sizes(root, by_rules, rule_sets):
    rows = run(root, name="razboi_war_sizes").to_pylist()
    (rid,) = _rules_id_of(rule_sets, lambda r: r.war_down == "by_rank")
    expected = _razboi_wars(root, rid)
    got = {r["tied_rank"]: r for r in rows}
    assert len(got) == len(rows)
    assert set(got) == set(expected)
    assert [r["tied_rank"] for r in rows] == [l for l in RANK_LABELS + ("JK",) if l in got]
    for label, row in got.items():
        e = expected[label]
        assert row["value"] == RAZBOI_VALUES[label]
        assert row["full_down"] == RAZBOI_VALUES[label] - 1
        assert row["wars"] == e["wars"]
        assert row["player_entries"] == e["entries"]
        assert row["mean_down_per_player"] == approx(e["down"] / e["entries"])
        assert row["short_entries"] == e["short"]
        # running short only ever shortens a war (rules 2.3), and rarely
        assert row["mean_down_per_player"] <= row["full_down"]
        assert row["short_entries"] < row["player_entries"] / 4
    # every war of the games table, a double war counting 2, is one war here
    assert sum(r["wars"] for r in rows) == sum(g["wars"] for g in by_rules[rid])
    # a war on 8s puts 7 down, on Kings 9 (rules 5.1): sizes grow with the rank up to 10
    assert got["8"]["full_down"] == 7 and got["K"]["full_down"] == 9
    assert got["2"]["mean_down_per_player"] < got["8"]["mean_down_per_player"] < got["A"]["mean_down_per_player"]


# ---------------------------------------------------------------- Joker-decided battles

def test_joker_decides(root, by_rules, rule_sets):
    rows = run(root, name="joker_decides").to_pylist()
    (rid,) = _rules_id_of(rule_sets, lambda r: r.jokers > 0)
    rules = rule_sets[rid]
    first_joker = rules.ranks * rules.suits
    last_battle = {g["game_id"]: g["battles"] for g in by_rules[rid]}
    battles = joker_battles = joker_last = 0
    seen_battles: Counter = Counter()
    for gid, battle, events in _battles(root, rid):
        battles += 1
        seen_battles[gid] += 1
        last_up: dict[int, int] = {}
        winner = None
        for ev in events:
            if ev.kind == "play":
                last_up[ev.seat] = ev.cards[0]
            elif ev.kind == "collect":
                assert winner is None
                winner = ev.seat
        if winner is not None and last_up[winner] >= first_joker:
            joker_battles += 1
            joker_last += battle == last_battle[gid]
    assert dict(seen_battles) == last_battle  # battles 1..games.battles all in the log

    assert len(rows) == 1
    row = rows[0]
    assert (row["variant"], row["rules_id"]) == ("jokers", rid)
    assert row["battles"] == battles
    assert row["joker_battles"] == joker_battles
    assert row["joker_share"] == approx(joker_battles / battles)
    assert row["games"] == GAMES_PER_RULE_SET
    assert row["joker_last_battles"] == joker_last
    assert row["joker_last_battle_share"] == approx(joker_last / GAMES_PER_RULE_SET)
    # 2 Jokers in 54 cards: some battles are theirs, most are not
    assert 0 < joker_battles < battles / 4


def test_cards_view_labels_match_the_deck(root):
    """The SQL `cards` view and pipeline.cards.Deck agree on every label of every deck."""
    from pipeline.model.cards import Deck

    for row in run(root, sql="SELECT ranks, suits, jokers, code, label FROM cards").to_pylist():
        assert row["label"] == Deck(row["ranks"], row["suits"], row["jokers"]).label(row["code"])
