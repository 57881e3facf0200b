"""The named queries about choices (policies): steals, policy win rates, the pooled policy
matchup, game length by policy and Arneson's consolation cards, on a small tournament: Steal War
with every ordered pair of three steal policies, Arneson's War with two hand policies in both
seatings, and Classic War (no decisions) beside them. Every number is checked against statistics
recomputed in Python from the Parquet files (read with pyarrow, not DuckDB): the games rows, and
the events read event by event."""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline.engines.event import Event
from pipeline.storage.dataset import Dataset
from pipeline.errors import QueryError
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import named_queries, run
from pipeline.model.rules import build_rules
from rulekit import games_rows, quantile_cont
from pipeline.log.tables import game_logs

NEW_QUERIES = ("steals", "policy_win_rate", "policy_matchup", "length_by_policy", "arneson_consolation")
STEAL_POLICIES = ("steal:always", "steal:never", "steal:threshold:4")
STEAL_GAMES = 120
ARNESON_GAMES = 60
CLASSIC_GAMES = 50
SEED = 3

approx = pytest.approx


@pytest.fixture(scope="module")
def plans():
    out = [Plan(build_rules("steal"), STEAL_GAMES, policies=(a, b))
           for a, b in itertools.permutations(STEAL_POLICIES, 2)]
    out += [
        Plan(build_rules("arneson"), ARNESON_GAMES, policies=("hand:highest", "hand:save_high")),
        Plan(build_rules("arneson"), ARNESON_GAMES, policies=("hand:save_high", "hand:highest")),
        Plan(build_rules("classic"), CLASSIC_GAMES),
    ]
    return out


@pytest.fixture(scope="module")
def root(tmp_path_factory, plans) -> Path:
    out = tmp_path_factory.mktemp("choice_queries") / "ds"
    generate(out, plans, seed=SEED, shard_size=60)
    return out


@pytest.fixture(scope="module")
def canonical() -> dict[str, str]:
    """Bare steal policy -> its canonical string, as the games table records it."""
    rules = build_rules("steal")
    return {p: Plan(rules, 1, policies=(p, p)).policies[0] for p in STEAL_POLICIES}


@pytest.fixture(scope="module")
def games(root) -> list[dict]:
    return games_rows(root)


@pytest.fixture(scope="module")
def by_group(games) -> dict[tuple, list[dict]]:
    """(variant, rules_id, policies tuple) -> its games."""
    out: dict[tuple, list[dict]] = defaultdict(list)
    for g in games:
        out[(g["variant"], g["rules_id"], tuple(g["policies"]))].append(g)
    return dict(out)


@pytest.fixture(scope="module")
def events(root) -> dict[int, list[Event]]:
    """game_id -> its events."""
    ds = Dataset.open(root)
    out: dict[int, list[Event]] = defaultdict(list)
    for f in ds.files("events"):
        for gid, log in game_logs(pq.read_table(ds.root / f.path)).items():
            out[gid].extend(log)
    return dict(out)


def _key(row: dict) -> tuple:
    return (row["variant"], row["rules_id"], tuple(row["policies"]))


@pytest.fixture(scope="module")
def order(root) -> dict[str, int]:
    """A rule set's name (or its rules' name) -> its place in the dataset: the manifest's order,
    the rules view's first ordinal of that name (steal's six seatings, Arneson's two, Classic)."""
    rows = run(root, sql="SELECT name, min(ordinal) AS at FROM (SELECT rule_set AS name, ordinal FROM rules "
                         "UNION ALL SELECT rules_name, ordinal FROM rules) GROUP BY name").to_pylist()
    return {r["name"]: r["at"] for r in rows}


def _in_dataset_order(rows: list[dict], order: dict[str, int], extra: tuple[str, ...] = (),
                      by: str = "rule_set") -> bool:
    """Whether the rows give their rule sets in the dataset's order (issue 51: not the alphabet's),
    and within one by `extra`."""
    keys = [(order[r[by]],) + tuple(r[c] for c in extra) for r in rows]
    return keys == sorted(keys)


# ---------------------------------------------------------------- the dataset and the files

def test_dataset_is_a_tournament(by_group, plans, canonical):
    """The test data is worth testing on: all six ordered steal pairs in canonical form, both
    Arneson seatings and a variant without policies; every game decided or not, as it fell."""
    steal = {k: gs for k, gs in by_group.items() if k[0] == "steal"}
    assert {k[2] for k in steal} == {(canonical[a], canonical[b])
                                     for a, b in itertools.permutations(STEAL_POLICIES, 2)}
    assert all(len(gs) == STEAL_GAMES for gs in steal.values())
    assert len({k[1] for k in steal}) == 1  # one rule set, six policy pairs
    arneson = {k[2] for k in by_group if k[0] == "arneson"}
    assert arneson == {("hand:highest", "hand:save_high"), ("hand:save_high", "hand:highest")}
    assert [k[2] for k in by_group if k[0] == "classic"] == [()]


def test_new_queries_are_listed_with_documented_params():
    queries = named_queries()
    assert set(NEW_QUERIES) <= set(queries)
    for name in NEW_QUERIES:
        q = queries[name]
        assert q.sql.startswith("-- answers:") and len(q.answers) > 100, name
        for p in q.params:
            assert p.default is not None and p.help, f"{name}: {p.name} needs a default and help"
            p.convert(p.default)
    assert [(p.name, p.type, p.default) for p in queries["steals"].params] == [("per_seat", "BOOLEAN", "false")]
    assert [(p.name, p.type, p.default) for p in queries["policy_matchup"].params] == [("z", "DOUBLE", "1.96")]
    assert [p.name for p in queries["policy_win_rate"].params] == []
    assert [p.name for p in queries["length_by_policy"].params] == []
    assert [p.name for p in queries["arneson_consolation"].params] == []
    assert "second `collect`" in queries["arneson_consolation"].answers


@pytest.mark.parametrize("name, params", [
    ("steals", {}), ("steals", {"per_seat": "true"}), ("policy_win_rate", {}), ("policy_matchup", {}),
    ("policy_matchup", {"z": "2.576"}), ("length_by_policy", {}), ("arneson_consolation", {}),
])
def test_every_new_query_runs(root, name, params):
    table = run(root, name=name, params=params)
    assert table.num_rows > 0
    assert {"variant", "rules_id"} <= set(table.column_names)


def test_bad_params_are_refused(root):
    with pytest.raises(QueryError, match="z must be positive"):
        run(root, name="policy_matchup", params={"z": "0"})
    with pytest.raises(QueryError, match="true or false"):
        run(root, name="steals", params={"per_seat": "maybe"})


# ---------------------------------------------------------------- steals

def _steal_counts(evs: list[Event], players: int) -> dict[int, Counter]:
    per_seat = {seat: Counter() for seat in range(players)}
    for ev in evs:
        if ev.kind == "steal":
            per_seat[ev.seat]["steals"] += 1
            per_seat[ev.seat]["cards_gained"] += len(ev.cards) - 1
            assert len(ev.cards) - 1 >= len(ev.seats) >= 1
        elif ev.kind == "decision" and ev.note == "steal":
            per_seat[ev.seat]["opportunities"] += 1
            per_seat[ev.seat]["taken"] += bool(ev.seats)
            assert ev.options and set(ev.seats) <= set(ev.options)
    return per_seat


@pytest.mark.parametrize("per_seat", [False, True])
def test_steals(root, by_group, events, order, per_seat):
    rows = run(root, name="steals", params={"per_seat": str(per_seat).lower()}).to_pylist()
    steal_groups = {k: gs for k, gs in by_group.items() if k[0] == "steal"}
    assert {_key(r) for r in rows} == set(steal_groups)  # no rows for Arneson or Classic
    assert len(rows) == len(steal_groups) * (2 if per_seat else 1)
    assert _in_dataset_order(rows, order, ("policies", "seat") if per_seat else ("policies",))
    for r in rows:
        gs = steal_groups[_key(r)]
        totals = Counter()
        for g in gs:
            counts = _steal_counts(events[g["game_id"]], g["players"])
            for seat, c in counts.items():
                if not per_seat or seat == r["seat"]:
                    totals.update(c)
        assert r["games"] == len(gs)
        assert r["steals"] == totals["steals"]
        assert r["steals_per_game"] == approx(totals["steals"] / len(gs))
        assert r["cards_gained"] == totals["cards_gained"]
        if totals["steals"]:
            assert r["cards_per_steal"] == approx(totals["cards_gained"] / totals["steals"])
        else:
            assert r["cards_per_steal"] is None
        assert r["opportunities"] == totals["opportunities"]
        assert r["taken"] == totals["taken"] == totals["steals"]  # each taken decision is one steal
        if totals["opportunities"]:
            assert r["taken_share"] == approx(totals["taken"] / totals["opportunities"])
        else:
            assert r["taken_share"] is None
        if per_seat:
            policy = r["policies"][r["seat"]]
            assert r["policy"] == policy
            assert "steal:" + r["steal_policy"] in policy.split(",")
        else:
            assert r["seat"] is None and r["policy"] is None and r["steal_policy"] is None


def test_steal_policies_behave(root):
    """always takes every opportunity, never none, threshold:4 some: the query sees the policies."""
    rows = run(root, name="steals", params={"per_seat": "true"}).to_pylist()
    by_policy: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        by_policy[r["steal_policy"]]["taken"] += r["taken"]
        by_policy[r["steal_policy"]]["opportunities"] += r["opportunities"]
    assert set(by_policy) == {"always", "never", "threshold:4"}
    assert by_policy["always"]["taken"] == by_policy["always"]["opportunities"] > 0
    assert by_policy["never"]["taken"] == 0 < by_policy["never"]["opportunities"]
    assert 0 < by_policy["threshold:4"]["taken"] < by_policy["threshold:4"]["opportunities"]


# ---------------------------------------------------------------- win rate by policy and seat

def test_policy_win_rate(root, by_group, order):
    rows = run(root, name="policy_win_rate").to_pylist()
    assert _in_dataset_order(rows, order, ("policies", "seat"))
    assert list(dict.fromkeys(r["variant"] for r in rows)) == ["steal", "arneson", "classic"]  # the plans' order
    got = {(_key(r), r["seat"]): r for r in rows}
    assert len(got) == len(rows) == sum(gs[0]["players"] for gs in by_group.values())
    for key, gs in by_group.items():
        decided = [g for g in gs if g["outcome"] == "win"]
        wins = Counter(g["winner"] for g in decided)
        for seat in range(gs[0]["players"]):
            r = got[(key, seat)]
            assert r["policy"] == (key[2][seat] if key[2] else None)
            assert r["games"] == len(gs)
            assert r["decided_games"] == len(decided)
            assert r["wins"] == wins[seat]
            assert r["share"] == approx(wins[seat] / len(decided))
            assert r["share_of_games"] == approx(wins[seat] / len(gs))


# ---------------------------------------------------------------- the pooled matchup

def _wilson(share: float, n: int, z: float) -> tuple[float, float]:
    centre, half = share + z * z / (2 * n), z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n))
    return max(0.0, (centre - half) / (1 + z * z / n)), min(1.0, (centre + half) / (1 + z * z / n))


@pytest.mark.parametrize("z", [1.96, 2.576])
def test_policy_matchup(root, games, order, z):
    rows = run(root, name="policy_matchup", params={"z": str(z)}).to_pylist()
    pools: dict[tuple, list[dict]] = defaultdict(list)
    for g in games:
        p = g["policies"]
        if g["players"] == 2 and len(p) == 2 and p[0] != p[1]:
            pools[(g["variant"], g["rules_id"], min(p), max(p))].append(g)
    got = {(r["variant"], r["rules_id"], r["policy_a"], r["policy_b"]): r for r in rows}
    assert len(got) == len(rows) == len(pools) == 3 + 1  # three steal pairs, one Arneson pair
    assert _in_dataset_order(rows, order, ("policy_a", "policy_b"), by="rules_name")
    assert [r["variant"] for r in rows] == ["steal"] * 3 + ["arneson"]  # the dataset's order, not the alphabet's
    for key, gs in pools.items():
        r = got[key]
        a, b = key[2], key[3]
        assert a < b
        decided = [g for g in gs if g["outcome"] == "win"]
        wins_a = sum(g["policies"][g["winner"]] == a for g in decided)
        wins_b = sum(g["policies"][g["winner"]] == b for g in decided)
        assert r["games"] == len(gs)
        assert r["games_a_seat0"] == sum(g["policies"][0] == a for g in gs)
        assert r["games_b_seat0"] == sum(g["policies"][0] == b for g in gs)
        assert r["decided_games"] == len(decided)
        assert (r["wins_a"], r["wins_b"]) == (wins_a, wins_b)
        share = wins_a / len(decided)
        assert r["share_a"] == approx(share)
        lo, hi = _wilson(share, len(decided), z)
        assert (r["ci_low"], r["ci_high"]) == (approx(lo), approx(hi))
        assert r["ci_low"] <= r["share_a"] <= r["ci_high"]


def test_policy_matchup_pools_both_seatings(root, canonical):
    rows = run(root, name="policy_matchup").to_pylist()
    steal = {(r["policy_a"], r["policy_b"]): r for r in rows if r["variant"] == "steal"}
    assert set(steal) == {tuple(sorted((canonical[a], canonical[b])))
                          for a, b in itertools.combinations(STEAL_POLICIES, 2)}
    for r in steal.values():
        assert r["games"] == 2 * STEAL_GAMES == 240
        assert r["games_a_seat0"] == r["games_b_seat0"] == STEAL_GAMES
    arneson = [r for r in rows if r["variant"] == "arneson"]
    assert len(arneson) == 1 and arneson[0]["games"] == 2 * ARNESON_GAMES
    assert not [r for r in rows if r["variant"] == "classic"]
    # Stealing pays in this engine: always beats never, with the whole interval above one half.
    r = steal[(canonical["steal:always"], canonical["steal:never"])]
    assert r["policy_a"] == canonical["steal:always"]
    assert r["wins_a"] > r["wins_b"]
    assert r["ci_low"] > 0.5


def test_policy_matchup_agrees_with_policy_win_rate(root):
    """Pooling the two seatings of policy_win_rate gives the matchup's wins."""
    seats = run(root, name="policy_win_rate").to_pylist()
    pooled: Counter = Counter()
    for r in seats:
        if r["policy"] is not None and len(set(r["policies"])) == 2:
            pooled[(r["rules_id"], frozenset(r["policies"]), r["policy"])] += r["wins"]
    for m in run(root, name="policy_matchup").to_pylist():
        pair = frozenset((m["policy_a"], m["policy_b"]))
        assert pooled[(m["rules_id"], pair, m["policy_a"])] == m["wins_a"]
        assert pooled[(m["rules_id"], pair, m["policy_b"])] == m["wins_b"]


# ---------------------------------------------------------------- length by policy

def test_length_by_policy(root, by_group, order):
    rows = run(root, name="length_by_policy").to_pylist()
    assert _in_dataset_order(rows, order, ("policies",))
    assert [order[r["rule_set"]] for r in rows] == list(range(len(by_group)))  # one row a rule set, in order
    got = {_key(r): r for r in rows}
    assert len(got) == len(rows) == len(by_group)
    for key, gs in by_group.items():
        r = got[key]
        battles = [g["battles"] for g in gs]
        capped = sum(g["outcome"] == "capped" for g in gs)
        assert r["games"] == len(gs)
        assert r["mean_battles"] == approx(sum(battles) / len(battles))
        assert r["median_battles"] == approx(quantile_cont(battles, 0.5))
        assert r["p90_battles"] == approx(quantile_cont(battles, 0.9))
        assert r["capped"] == capped
        assert r["capped_share"] == approx(capped / len(gs))


# ---------------------------------------------------------------- Arneson's consolation cards

def _consolation_stats(game: dict, evs: list[Event]) -> dict:
    """Per game, from the events: consolation collects (the second collect of a battle with a
    war), their cards, whether the winner received one, and whether the winner later played one
    of those cards in a battle it won (a battle's winner: the seat of its first collect)."""
    wars: set[int] = set()
    collects: dict[int, list[tuple[int, list[int]]]] = defaultdict(list)
    plays: list[tuple[int, int, int]] = []
    for ev in evs:
        if ev.battle == 0:
            continue
        if ev.kind == "war":
            wars.add(ev.battle)
        elif ev.kind == "collect":
            collects[ev.battle].append((ev.seat, list(ev.cards)))
        elif ev.kind == "play":
            plays.append((ev.battle, ev.seat, ev.cards[0]))
    assert all(len(cs) <= 2 for cs in collects.values())
    consolations = [(b, cs[1][0], cs[1][1]) for b, cs in collects.items() if b in wars and len(cs) == 2]
    for b, seat, cards in consolations:
        assert len(cards) == 2 and seat != collects[b][0][0]
    winner_of = {b: cs[0][0] for b, cs in collects.items()}
    w = game["winner"] if game["outcome"] == "win" else None
    mine = [(b, set(cards)) for b, seat, cards in consolations if seat == w]
    used = any(pb > b and seat == w and card in cards and winner_of.get(pb) == w
               for b, cards in mine for pb, seat, card in plays)
    return {"consolations": len(consolations), "cards": sum(len(c) for _, _, c in consolations),
            "consoled": bool(mine), "used": used}


def test_arneson_consolation(root, by_group, events, order):
    rows = run(root, name="arneson_consolation").to_pylist()
    arneson = {k: gs for k, gs in by_group.items() if k[0] == "arneson"}
    got = {_key(r): r for r in rows}
    assert len(got) == len(rows) and set(got) == set(arneson)
    assert _in_dataset_order(rows, order, ("policies",))
    consoled_total = used_total = 0
    for key, gs in arneson.items():
        r = got[key]
        stats = [_consolation_stats(g, events[g["game_id"]]) for g in gs]
        decided = sum(g["outcome"] == "win" for g in gs)
        consoled = sum(s["consoled"] for s in stats)
        used = sum(s["used"] for s in stats)
        assert r["games"] == len(gs)
        assert r["games_with_war"] == sum(g["war_battles"] > 0 for g in gs)
        assert r["consolation_collects"] == sum(s["consolations"] for s in stats)
        assert r["consolation_cards"] == sum(s["cards"] for s in stats) == 2 * r["consolation_collects"]
        assert r["decided_games"] == decided
        assert r["consoled_winners"] == consoled
        assert r["consolation_wins"] == used
        assert r["consoled_winner_share"] == approx(consoled / decided)
        assert r["consolation_win_share"] == approx(used / decided)
        assert used <= consoled
        consoled_total += consoled
        used_total += used
    # The data exercises the definitions: some winners were consoled and played a card back.
    assert consoled_total > 0 and used_total > 0


def test_battles_view_names_the_war_winner_not_the_consoled_loser(root, events):
    """In an Arneson war two seats collect; the `battles` view's winner is the first collector."""
    rows = run(root, sql="SELECT game_id, battle, winner FROM battles WHERE variant = 'arneson'").to_pylist()
    got = {(r["game_id"], r["battle"]): r["winner"] for r in rows}
    expected = {}
    for gid, evs in events.items():
        for ev in evs:
            if ev.kind == "collect" and (gid, ev.battle) not in expected and (gid, ev.battle) in got:
                expected[(gid, ev.battle)] = ev.seat
    assert expected and all(got[k] == v for k, v in expected.items())
