"""The compiled fast path (pipeline/engines/compiled/) against the reference engine: for a grid of every
table-family option, the events and games tables must be equal to the ones built from
generate.play_range, and the Parquet files written from them identical byte for byte."""

from __future__ import annotations

import os
import random
import sys

import numpy as np
import pyarrow as pa
import pytest

pytest.importorskip("numba")

from pipeline.engines.compiled.rng import bounded_draws, game_seeds, shuffled_range, splitmix_outputs, xoshiro_outputs  # noqa: E402
from pipeline.engines.compiled.layout import EVENT_CARDS_END, EVENT_KIND, SUMMARY_OUTCOME  # noqa: E402
from pipeline.engines.compiled.state import Workspace  # noqa: E402
from pipeline.engines.table.compiled import compile_rules, play_arrays  # noqa: E402
from pipeline.engines.game import policy_specs  # noqa: E402
from pipeline.engines.choice import ENGINES, compiled_plays  # noqa: E402
from pipeline.log.batches import compiled_shard  # noqa: E402
from pipeline.log.shard import play_range_fast, shard_tables  # noqa: E402
from pipeline.log.warm import all_builds, warm_rules  # noqa: E402
from pipeline.model.schema import EVENT_KINDS, OUTCOMES  # noqa: E402
from pipeline.model.deal import check_deal, shuffled_deal  # noqa: E402
from pipeline.errors import RulesError  # noqa: E402
from pipeline.log.shard import play_range  # noqa: E402
from pipeline.model.rng import MASK, SplitMix64, Xoshiro256, game_seed  # noqa: E402
from pipeline.model.rules import build_rules  # noqa: E402
from pipeline.log.tables import events_table, games_table
from pipeline.storage.files import write_parquet  # noqa: E402
from pipeline.model.variants import VARIANTS  # noqa: E402
from rulekit import OPTION_GRID  # noqa: E402


# Combinations, custom decks and corners the single options do not reach.
COMBINATIONS = [
    ("classic", {"pickup": "pooled", "shortfall": "lose"}),
    ("classic", {"war_tiebreak": "single_up", "pickup": "pooled"}),
    ("classic", {"war_tiebreak": "single_up", "pickup": "winner_first", "shortfall": "lose"}),
    ("razboi", {"jokers": "2", "ace_value": "14"}),
    ("razboi", {"ace_value": "1", "pickup": "winner_first"}),
    ("razboi", {"players": "4", "shortfall": "lose", "pickup": "pooled", "jokers": "2"}),
    ("razboi", {"war_tiebreak": "single_up", "pickup": "table_order", "win": "wars:2"}),
    ("multiplayer", {"players": "3", "ranks": "5", "suits": "3"}),
    ("multiplayer", {"players": "4", "ranks": "4", "suits": "6", "jokers": "2"}),
    ("multiplayer", {"players": "8", "ranks": "5", "suits": "8"}),
    ("multiplayer", {"players": "8", "ranks": "7", "suits": "6", "shortfall": "lose", "pickup": "winner_first"}),
    ("multiplayer", {"players": "4", "pickup": "pooled", "war_tiebreak": "single_up", "shortfall": "lose",
                     "win": "wars:3"}),
    ("multiplayer", {"players": "3", "war_down": "by_rank", "pickup": "table_order"}),
    ("classic", {"win": "wars:2", "pickup": "table_order"}),
    ("classic", {"win": "wars:2", "pickup": "winner_first", "ranks": "3", "suits": "4"}),
    ("classic", {"max_battles": "30"}),
    ("classic", {"pickup": "table_order", "ranks": "3", "suits": "4"}),
    ("classic", {"pickup": "winner_first", "ranks": "5", "suits": "2"}),
    ("classic", {"pickup": "table_order", "ranks": "2", "suits": "7", "players": "2", "war_down": "1"}),
    ("classic", {"ranks": "1", "suits": "10"}),
    ("classic", {"ranks": "1", "suits": "12", "shortfall": "lose", "pickup": "pooled"}),
    ("classic", {"ranks": "2", "suits": "5", "jokers": "2", "war_tiebreak": "single_up", "shortfall": "lose"}),
    ("classic", {"war_down": "by_rank", "players": "3"}),
    ("classic", {"war_down": "10", "shortfall": "lose", "pickup": "pooled"}),
    ("classic", {"war_down": "10", "pickup": "winner_first"}),
    ("classic", {"war_down": "1000000000000"}),
    ("jokers", {"players": "8", "pickup": "table_order", "war_tiebreak": "single_up"}),
    ("jokers", {"players": "5", "war_down": "0", "pickup": "pooled"}),
    ("jokers", {"players": "6", "win": "wars:1", "shortfall": "lose"}),
]
GAMES = 40
# A few larger runs of the defaults and the pickups that detect cycles.
LARGE = [("classic", {}, 400), ("classic", {"pickup": "winner_first"}, 300),
         ("classic", {"pickup": "table_order"}, 200), ("multiplayer", {}, 120), ("razboi", {}, 200)]

TABLE_VARIANTS = [name for name, spec in VARIANTS.items() if spec.family == "table"]


def grid():
    for name in TABLE_VARIANTS:
        spec = VARIANTS[name]
        yield name, {}, GAMES
        for option, values in OPTION_GRID.items():
            if option in spec.options:
                for value in values:
                    yield name, {option: value}, GAMES
    for name, options in COMBINATIONS:
        yield name, options, GAMES
    yield from LARGE


CASES = list(grid())


def case_id(case):
    name, options, games = case
    return name + "".join(f"-{k}={v}" for k, v in options.items()) + f"-x{games}"


def case_args(case):
    """Each case plays its own games: (ordinal, master seed, first game index)."""
    number = CASES.index(case)
    return number % 3, 1000 + 7919 * number, (number * 37) % 101


def rules_of(name, options):
    try:
        return build_rules(name, options)
    except RulesError as err:
        pytest.skip(f"not a playable combination: {err}")


def first_difference(fast: pa.Table, ref: pa.Table) -> str:
    """Where two tables first differ: the row (with its game and seq) and both versions of it."""
    if fast.schema != ref.schema or fast.schema.metadata != ref.schema.metadata:
        return f"schemas differ:\n{fast.schema}\nvs\n{ref.schema}"
    if fast.num_rows != ref.num_rows:
        note = f"{fast.num_rows} rows vs {ref.num_rows}; "
    else:
        note = ""
    first, where = None, []
    for name in ref.schema.names:
        a, b = fast.column(name), ref.column(name)
        if a.equals(b):
            continue
        la, lb = a.to_pylist(), b.to_pylist()
        rows = [i for i, (x, y) in enumerate(zip(la, lb)) if x != y][:1]
        if not rows and len(la) == len(lb):
            where.append(f"column {name}: same values, other encoding "
                         f"({a.combine_chunks().type} dictionary {getattr(a.combine_chunks(), 'dictionary', None)} "
                         f"vs {getattr(b.combine_chunks(), 'dictionary', None)})")
            continue
        row = rows[0] if rows else min(len(la), len(lb))
        where.append(f"column {name} from row {row}")
        first = row if first is None else min(first, row)
    if first is None:
        return note + "; ".join(where)
    show = lambda t: t.slice(first, 1).to_pylist() if first < t.num_rows else "no row"  # noqa: E731
    return (note + "; ".join(where) + f"\nfirst differing row {first}:\n fast: {show(fast)}\n  ref: {show(ref)}")


def assert_same_tables(fast: pa.Table, ref: pa.Table, what: str) -> None:
    assert fast.schema.equals(ref.schema, check_metadata=True), first_difference(fast, ref)
    assert fast.equals(ref), f"{what}: " + first_difference(fast, ref)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_fast_tables_equal_the_reference(case, tmp_path):
    name, options, games = case
    rules = rules_of(name, options)
    assert compiled_plays(rules, None, ())
    ordinal, seed, start = case_args(case)
    ids, logs, records = play_range(rules, ordinal, seed, start, start + games)
    ref_events, ref_games = events_table(ids, logs), games_table(records)
    events, games_ = play_range_fast(rules, ordinal, seed, start, start + games)
    assert_same_tables(games_, ref_games, "games")
    assert_same_tables(events, ref_events, "events")
    for table, ref, key in ((events, ref_events, ("game_id", "seq")), (games_, ref_games, ("game_id",))):
        mine = write_parquet(table, tmp_path / "fast.parquet", key)
        theirs = write_parquet(ref, tmp_path / "ref.parquet", key)
        assert mine == theirs, f"Parquet bytes differ ({key[-1]} table)"


def random_deals(rules, count: int, seed: int) -> list:
    """Explicit deals a user might write: the deck shuffled, a few cards set aside now and then,
    the rest cut into piles of uneven sizes (none empty)."""
    r = random.Random(seed)
    size = rules.ranks * rules.suits + rules.jokers
    deals = []
    for _ in range(count):
        deck = list(range(size))
        r.shuffle(deck)
        aside = r.choice([0, 0, 1, 3]) if size - 3 >= rules.players else 0
        dealt = size - aside
        cuts = sorted(r.sample(range(1, dealt), rules.players - 1)) if r.random() < 0.7 else \
            [dealt * (s + 1) // rules.players for s in range(rules.players - 1)]
        bounds = [0, *cuts, dealt]
        deals.append(check_deal(rules, [deck[a:b] for a, b in zip(bounds, bounds[1:])], deck[dealt:]))
    return deals


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_explicit_deals_equal_the_reference(case, tmp_path):
    """Explicit deals (war generate --deals) through the compiled engine: the same tables and
    Parquet bytes as the reference engine playing them."""
    name, options, games = case
    rules = rules_of(name, options)
    ordinal, seed, start = case_args(case)
    games = min(games, 25)
    deals = random_deals(rules, games, seed)
    ids, logs, records = play_range(rules, ordinal, seed, start, start + games, deals)
    ref_events, ref_games = events_table(ids, logs), games_table(records)
    ticks = []
    events, games_ = shard_tables(rules, ordinal, seed, start, start + games, deals, (), ticks.append)
    assert sum(ticks) == games
    assert_same_tables(games_, ref_games, "games")
    assert_same_tables(events, ref_events, "events")
    for table, ref, key in ((events, ref_events, ("game_id", "seq")), (games_, ref_games, ("game_id",))):
        assert write_parquet(table, tmp_path / "fast.parquet", key) == write_parquet(ref, tmp_path / "ref.parquet",
                                                                                     key)


def test_explicit_deals_go_through_the_compiled_engine(monkeypatch):
    """shard_tables does not fall back to the reference for explicit deals."""
    import pipeline.log.shard as shard

    rules = build_rules("classic")
    deals = random_deals(rules, 5, 3)
    monkeypatch.setattr(shard, "play_game", lambda *a, **k: pytest.fail("the reference engine played"))
    _events, games_ = shard_tables(rules, 0, 1, 0, 5, deals)
    assert games_.column("deal").to_pylist() == ["explicit"] * 5


def test_the_grid_reaches_every_outcome_and_event_kind():
    """The games compared above between them end in every way and log every table-family event."""
    outcomes, kinds = set(), set()
    for case in CASES:
        name, options, games = case
        try:
            rules = build_rules(name, options)
        except RulesError:
            continue
        _ordinal, seed, start = case_args(case)
        evi, *_, summ, _ww, _fc, _seeds = play_arrays(rules, seed, start, start + games)
        outcomes |= {OUTCOMES[c] for c in np.unique(summ[:, SUMMARY_OUTCOME])}
        kinds |= {EVENT_KINDS[c] for c in np.unique(evi[:, EVENT_KIND])}
    assert outcomes == {"win", "draw", "capped", "cycle"}
    assert kinds == {"deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect",
                     "reshuffle", "out", "end"}


@pytest.mark.parametrize("name,options", [
    ("classic", {"pickup": "winner_first"}),
    ("classic", {"pickup": "table_order", "win": "wars:2"}),
    ("multiplayer", {"pickup": "pooled", "shortfall": "lose"}),
    ("razboi", {}),
])
def test_growing_buffers_changes_nothing(name, options):
    """Tiny first buffers make every game grow them (and be replayed); the result is the same."""
    rules = build_rules(name, options)
    big = play_arrays(rules, 11, 5, 45)
    small = play_arrays(rules, 11, 5, 45, capacity=1, positions=2)
    for a, b in zip(big, small):
        assert np.array_equal(a, b)


WATCHED = [
    ("classic", {"pickup": "winner_first"}),
    ("classic", {"pickup": "table_order", "ranks": "3", "suits": "4"}),
    ("classic", {"pickup": "table_order", "ranks": "3", "suits": "4", "max_battles": "12"}),
    ("classic", {"pickup": "table_order", "win": "wars:3"}),
    ("multiplayer", {"players": "3", "pickup": "winner_first", "ranks": "5", "suits": "3"}),
    ("razboi", {"pickup": "table_order", "war_tiebreak": "single_up", "shortfall": "lose"}),
]


@pytest.mark.parametrize("name,options", WATCHED)
def test_games_played_before_looking_for_cycles_are_the_same(name, options):
    """A game played without looking for cycles until battle `watch`, and from its start again
    looking for them when it gets there, is the game played looking from the first battle:
    whatever the watch, below, at or beyond the cap."""
    rules = build_rules(name, options)
    looking = play_arrays(rules, 5, 0, 60, watch=0)
    outcomes = {OUTCOMES[o] for o in looking.summaries[:, SUMMARY_OUTCOME]}
    assert outcomes & {"cycle", "capped"} or name == "classic" and "ranks" not in options
    for watch in (1, 2, 7, 11, 12, 13, 200, 1 << 40, None):
        watched = play_arrays(rules, 5, 0, 60, watch=watch)
        for a, b in zip(looking, watched):
            assert np.array_equal(a, b), watch


def test_a_workspace_looks_for_cycles_first_where_they_are_common():
    """Games are played without looking for cycles while few need playing again (winner_first,
    two seats); where many loop (three seats), the workspace soon looks from the first battle."""
    rare, common = build_rules("classic", {"pickup": "winner_first"}), \
        build_rules("multiplayer", {"players": "3", "pickup": "winner_first"})
    workspace = Workspace()
    for start in range(0, 300, 100):
        for rules in (rare, common):
            play_arrays(rules, 2, start, start + 100, workspace=workspace)
    assert workspace.watch(rare, compile_rules(rare)) == 20 * 52
    assert workspace.unwatched[rare.rules_id] == [300, 0]
    assert workspace.watch(common, compile_rules(common)) == 0
    assert workspace.unwatched[common.rules_id][0] < 300  # it stopped after the first range or two
    assert workspace.watch(build_rules("classic"), compile_rules(build_rules("classic"))) == 0  # shuffled: no cycles


def test_workspace_kept_between_ranges_changes_nothing():
    """A workspace carried from range to range (its log, positions and attempt numbers reused,
    grown once, dropped when the rules change shape) gives each range what fresh buffers give."""
    workspace = Workspace()
    ranges = [("classic", {"pickup": "winner_first"}, 0, 30), ("classic", {"pickup": "winner_first"}, 30, 70),
              ("classic", {"pickup": "table_order", "win": "wars:2"}, 0, 25),
              ("multiplayer", {"pickup": "winner_first"}, 5, 30), ("classic", {"pickup": "winner_first"}, 70, 90),
              ("classic", {}, 0, 20)]
    for i, (name, options, start, stop) in enumerate(ranges):
        rules = build_rules(name, options)
        fresh = play_arrays(rules, 4, start, stop)
        reused = play_arrays(rules, 4, start, stop, capacity=1 if i == 0 else None, positions=2,
                             workspace=workspace)
        for a, b in zip(fresh, reused):
            assert np.array_equal(a, b)
    assert workspace.attempt > sum(stop - start for *_, start, stop in ranges)  # the tiny first buffers grew


@pytest.mark.parametrize("name,options,dealt,seating", [
    ("classic", {"pickup": "winner_first"}, False, ()),
    ("classic", {}, True, ()),
    ("multiplayer", {"players": "3", "shortfall": "lose", "pickup": "pooled"}, False, ()),
    ("steal", {}, False, ()),
    ("steal", {"players": "3"}, True, ("random", "greedy")),
    ("arneson", {}, False, ()),
    ("arneson", {}, False, ("cautious", "hand:random")),
])
def test_a_shard_played_in_batches_is_the_shard_played_at_once(name, options, dealt, seating):
    """compiled_shard plays and encodes a shard a batch of games at a time: whatever the batch,
    the tables are the ones of the whole shard at once (shape ids run on from batch to batch),
    and every batch's cards balance; with explicit deals and seats' policies too."""
    rules = build_rules(name, options)
    deals = random_deals(rules, 60, 5) if dealt else None
    policies = policy_specs(rules, tuple(seating[s % len(seating)] for s in range(rules.players))) if seating else ()
    whole = compiled_shard(rules, 2, 11, 40, 100, policies, deals, check_balance=True, batch=60)
    assert whole[2] is True
    assert compiled_shard(rules, 2, 11, 40, 100, policies, deals, batch=60)[2] is None  # not asked
    for batch in (1, 7, 59):
        events, games_, balanced = compiled_shard(rules, 2, 11, 40, 100, policies, deals, check_balance=True,
                                                  batch=batch)
        assert balanced is True
        assert_same_tables(events, whole[0], "events")
        assert_same_tables(games_, whole[1], "games")
        assert events.column("shape").chunk(0).dictionary.equals(whole[0].column("shape").chunk(0).dictionary)


def test_batches_are_sized_by_the_games_the_workspace_has_seen(monkeypatch):
    """A batch holds about BATCH_EVENTS events: by the engine's estimate until games of the rule
    set have been played, then by the events they logged on average (rounded up), counted per
    rule set. First to three wars logs a few times fewer events than the estimate says, so its
    batches grow after the first; the tables stay those of the shard played at once."""
    import pipeline.engines.table.compiled as table_engine
    import pipeline.log.batches as shard
    from pipeline.engines.table.compiled import events_a_game

    monkeypatch.setattr(shard, "WORKSPACE", Workspace())
    short, other = build_rules("classic", {"win": "wars:3"}), build_rules("classic")
    assert shard.batch_games(short) == shard.BATCH_EVENTS // events_a_game(short)
    sizes = []
    real = table_engine.play_arrays
    monkeypatch.setattr(table_engine, "play_arrays", lambda rules, seed, first, last, *a, **kw:
                        sizes.append(last - first) or real(rules, seed, first, last, *a, **kw))
    events, games_, _ = compiled_shard(short, 0, 1, 0, 3000)
    logged = games_.column("events").to_pylist()
    played, shard_events = shard.WORKSPACE.logged[short.rules_id]
    assert (played, shard_events) == (3000, sum(logged))
    mean = -(-shard_events // played)
    assert sizes[0] == shard.BATCH_EVENTS // events_a_game(short) and sizes[1] > 2 * sizes[0]
    assert shard.WORKSPACE.events_a_game(short) == mean
    assert shard.batch_games(short) == shard.BATCH_EVENTS // mean
    assert shard.batch_games(other) == shard.BATCH_EVENTS // events_a_game(other)  # not these rules' games
    monkeypatch.setattr(shard, "WORKSPACE", Workspace())
    again = compiled_shard(short, 0, 1, 0, 3000, batch=shard.BATCH_EVENTS // events_a_game(short))
    assert_same_tables(events, again[0], "events")
    assert_same_tables(games_, again[1], "games")


def test_a_batch_that_does_not_balance_fails_the_shard(monkeypatch):
    """One batch whose cards do not balance makes the shard's check fail, and the batches after
    it are not checked."""
    import pipeline.log.batches as shard

    verdicts = iter([True, False])
    checked = []
    monkeypatch.setattr(shard, "cards_balance", lambda arrays, deck: checked.append(deck) or next(verdicts))
    assert compiled_shard(build_rules("classic"), 0, 1, 0, 40, check_balance=True, batch=10)[2] is False
    assert checked == [52, 52]


def test_empty_range():
    rules = build_rules("classic")
    events, games_ = play_range_fast(rules, 0, 1, 10, 10)
    assert_same_tables(events, events_table([], []), "events")
    assert_same_tables(games_, games_table([]), "games")


@pytest.mark.parametrize("name", ["classic", "steal", "arneson"])
def test_shard_tables_uses_the_fast_path_only_where_it_applies(name):
    rules = build_rules(name)
    ticks = []
    events, games_ = shard_tables(rules, 1, 8, 3, 9, None, (), ticks.append)
    ids, logs, records = play_range(rules, 1, 8, 3, 9)
    assert_same_tables(events, events_table(ids, logs), "events")
    assert_same_tables(games_, games_table(records), "games")
    assert sum(ticks) == 6


def test_supported():
    assert compiled_plays(build_rules("classic"))
    assert compiled_plays(build_rules("razboi", {"jokers": "2"}), None, ())
    assert compiled_plays(build_rules("classic"), deals=[])
    assert not compiled_plays(build_rules("classic"), None, ("default", "default"))
    assert compiled_plays(build_rules("steal"))
    assert compiled_plays(build_rules("steal"), None, ("steal:random,top:protect", "cautious"))
    assert compiled_plays(build_rules("arneson"))
    assert compiled_plays(build_rules("arneson"), None, ("hand:lowest", "cautious"))
    assert compiled_plays(build_rules("arneson"), [])
    # int16 card codes: the largest deck the rules allow (32,768 cards) goes to the reference engine
    assert compiled_plays(build_rules("classic", {"ranks": "511", "suits": "64"}))
    assert not compiled_plays(build_rules("classic", {"ranks": "512", "suits": "64"}))


# ---------------------------------------------------------------- the generator, bit for bit

def test_design_test_vectors():
    assert splitmix_outputs(np.uint64(0), 3).tolist() == [
        16294208416658607535, 7960286522194355700, 487617019471545679]
    assert game_seeds(np.uint64(42), 0, 3).tolist() == [
        13679457532755275413, 2949826092126892291, 5139283748462763858]
    assert xoshiro_outputs(np.uint64(game_seed(42, 0)), 3).tolist() == [
        1865750160070900731, 6791145067590612263, 14118064813682728970]


@pytest.mark.parametrize("master", [0, 1, 42, 2**63 - 1, 2**63, MASK - 5, MASK])
def test_game_seeds_and_streams_match_rng_py(master):
    assert game_seeds(np.uint64(master), 0, 200).tolist() == [game_seed(master, i) for i in range(200)]
    assert game_seeds(np.uint64(master), 10**9, 10**9 + 5).tolist() == [
        game_seed(master, i) for i in range(10**9, 10**9 + 5)]
    sm = SplitMix64(master)
    assert splitmix_outputs(np.uint64(master), 20).tolist() == [sm.next() for _ in range(20)]
    x = Xoshiro256(master)
    assert xoshiro_outputs(np.uint64(master), 100).tolist() == [x.next() for _ in range(100)]


def test_bounded_matches_rng_py_including_rejections():
    r = random.Random(5)
    bounds = [1, 2, 3, 52, 53, 1000, 2**32 + 1, 2**63 - 1, 2**63, 2**63 + 1, 3 * 2**62, MASK - 1, MASK]
    bounds += [r.randrange(1, 2**64) for _ in range(200)] + [r.randrange(1, 200) for _ in range(200)]
    for seed in (0, 9, MASK):
        x = Xoshiro256(seed)
        assert bounded_draws(np.uint64(seed), np.array(bounds, np.uint64)).tolist() == [
            x.bounded(b) for b in bounds]


@pytest.mark.parametrize("size", [1, 2, 10, 52, 54, 1000])
def test_shuffle_matches_rng_py(size):
    for i in range(20):
        seed = game_seed(77, i)
        deck = list(range(size))
        Xoshiro256(seed).shuffle(deck)
        assert shuffled_range(np.uint64(seed), size).tolist() == deck


def test_deal_matches_shuffled_deal():
    rules = build_rules("multiplayer", {"players": "3"})
    evi, cv, *_ = play_arrays(rules, 42, 0, 1)
    deal = shuffled_deal(rules, Xoshiro256(game_seed(42, 0)))
    ends = evi[:4, EVENT_CARDS_END].tolist()
    got = [tuple(cv[a:b].tolist()) for a, b in zip([0] + ends, ends)]
    assert got == list(deal.piles) + [deal.set_aside]


# ---------------------------------------------------------------- the first run

def test_compile_estimate_reads_numbas_cache(tmp_path):
    """With an empty cache the engine is announced as compiling; once warm, as not. Run in a
    fresh process whose cache is an empty folder: only the check runs there, nothing compiles."""
    import subprocess
    import sys

    from pipeline.log.warm import compile_estimate, warm

    warm(validation=True)
    assert compile_estimate(validation=True) == 0
    code = "from pipeline.log.warm import compile_estimate as e; print(e(), e(validation=True))"
    env = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    engine, with_checks = map(float, out.split())
    assert engine > 5 and with_checks == engine  # the checks compile beside the engine, in warm's helper


def test_each_rule_set_names_the_build_that_plays_it():
    """A game keeps positions only when its rules can repeat one (a fixed pickup order), and
    Arneson's War always: warm compiles the build a run's rule sets name, and its tiny game is
    played by that build."""
    from pipeline.log.warm import engines_for

    builds = {("classic", ()): ("table", False), ("classic", (("pickup", "pooled"),)): ("table", False),
              ("classic", (("pickup", "winner_first"),)): ("table", True),
              ("multiplayer", (("players", "3"), ("pickup", "table_order"))): ("table", True),
              ("steal", ()): ("steal", False), ("arneson", ()): ("arneson", True),
              ("arneson", (("pickup", "shuffled"),)): ("arneson", True)}
    for (variant, options), build in builds.items():
        rules = build_rules(variant, dict(options))
        assert engines_for([rules]) == {build}, (variant, options)
        game = ENGINES[build[0]].structures(rules)["game"]
        assert (game.positions is not None) == build[1], (variant, options)
    assert engines_for([build_rules("classic"), build_rules("steal")]) == {("table", False), ("steal", False)}
    for build in all_builds():
        assert engines_for([warm_rules(build)]) == {build}


def test_a_kept_game_serves_only_rules_with_the_same_kind_of_positions():
    """The workspace (shared by every compiled engine of a process) gives a game without
    positions only to rules that keep none: Arneson's War after Classic War gets positions."""
    from pipeline.engines.arneson import compiled as compiled_arneson

    workspace = Workspace()
    classic = compile_rules(build_rules("classic"))
    game = workspace.game_for(classic, 64, 64, 64, 16)
    assert game.positions is None
    workspace.keep(game)
    assert workspace.game_for(classic, 64, 64, 64, 16).seats is game.seats  # reused
    assert workspace.game_for(classic, 64, 64, 64, 16, keep_positions=True).positions is not None
    workspace.keep(game)
    arneson = build_rules("arneson", {"pickup": "shuffled"})
    assert compiled_arneson.structures(arneson, workspace=workspace)["game"].positions is not None
    assert play_arrays(build_rules("classic"), 1, 0, 3, workspace=workspace).summaries.shape[0] == 3


def build_id(build) -> str:
    return build[0] + ("-positions" if build[1] else "")


# What a fresh process has compiled for a literal: each compiled function of the project with a
# signature that holds one (Literal[int](0)). A caller that passes a literal (`count = 0`)
# where its other calls pass an int64 makes numba type and compile the callee a second time,
# a second or more of a first run each.
FOR_LITERALS = """
import sys
import numba
def for_literals():
    return {f"{d.py_func.__module__}.{d.py_func.__name__}": [str(s) for s in d.signatures]
            for m in list(sys.modules.values()) if getattr(m, "__name__", "").startswith("pipeline.")
            for d in vars(m).values() if isinstance(d, numba.core.dispatcher.Dispatcher)
            and any(isinstance(t, numba.types.Literal) for s in d.signatures for t in s)}
"""


# A first run in a fresh process with an empty cache: warm shares the compile between two
# processes, then reports each called step's signatures, and whether it came from the cache.
# A step of this process's that calls one of the helper's (open_battle calls reshuffle) waits
# for the helper's (Helper.awaited): before, which process compiled it first was a race, which
# a loaded machine once lost (a fresh clone's suite, 2026-12-02), and which this process lost
# on every run once its own steps compiled faster (2026-12-02, afternoon).
FIRST_RUN = FOR_LITERALS + """
import json, sys, threading, time
import pipeline.log.warm as shard
from pipeline.engines.compiled.state import called, step_types, with_parts
from pipeline.engines.choice import ENGINES
from pipeline.log.warm import all_builds, compile_estimate, warm, warm_rules
from pipeline.model.rules import build_rules
build = (sys.argv[1], sys.argv[2] == "True")
helpers = []
class Seen(shard.Helper):
    def __init__(self, engines, validation):
        super().__init__(engines, validation)
        helpers.append("forked" if self.pid else "new python")
shard.Helper = Seen
if sys.argv[3:] == ["thread"]:
    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
warm(validation=True, engines=(build,))
print(json.dumps(helpers))
module = ENGINES[build[0]]
structures = with_parts(module.structures(warm_rules(build)))
print(json.dumps([[group, step.py_func.__name__, [str(s) for s in step.signatures],
                   str(step_types(step, structures)) if called(step, structures) else None,
                   sum(step.stats.cache_hits.values())] for group, steps in enumerate(module.STEPS) for step in steps]))
print(json.dumps({str(other[1]): compile_estimate(engines=(other,)) for other in all_builds() if other[0] == build[0]}))
print(json.dumps(for_literals()))
"""


@pytest.mark.parametrize("build, thread", [(build, False) for build in all_builds()] + [(("table", False), True)],
                         ids=lambda p: build_id(p) if isinstance(p, tuple) else ("another-thread" if p else "alone"))
def test_a_first_run_compiles_each_step_once(build, thread, tmp_path):
    """The types warm compiles each step for are those its game calls it with: the game compiles
    no second version of a step, and loads those the helper compiled from the cache (a wrong
    type, or a helper that did nothing, would compile them again). A step only another step
    calls (Steal War's lay_down) is not compiled by this process at all; one of this process's
    own the helper may have needed first, and compiled into the cache. A step the build never
    calls (cycle detection's, in a build without positions) is not compiled. Then numba's
    cache holds this build and not the engine's other one (the table engine's): a run that needs
    the other is told it compiles. The helper is forked on Linux, and a new Python when this
    process has another thread (whose locks a forked child would inherit half-held). Nothing
    this process compiles is compiled for a literal (FOR_LITERALS)."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", FIRST_RUN, build[0], str(build[1])] + ["thread"] * thread,
                         capture_output=True, text=True, env=env, check=True).stdout
    helpers, steps, estimates, literals = map(json.loads, out.splitlines())
    assert literals == {}
    assert helpers == ["new python" if thread or sys.platform != "linux" else "forked"]
    assert estimates.pop(str(build[1])) == 0
    assert all(seconds > 0 for seconds in estimates.values()) and len(estimates) == (build[0] == "table")
    assert steps and all(group in (0, 1) for group, *_ in steps)
    assert any(expected is not None for _, _, _, expected, _ in steps)
    for group, name, signatures, expected, hits in steps:
        if expected is None:
            assert signatures == [], name
            continue
        assert signatures in ([expected], []), name
        assert signatures or group == 1, name
        if signatures and group == 1:
            assert hits == 1, name  # loaded: the helper compiled it


def test_the_helpers_share_of_a_first_run_compiles_nothing_for_a_literal(tmp_path):
    """What warm's helper compiles (the second group of steps of every build, the encoder, the
    checks; here in one fresh process) is compiled for numbers, never for a literal that one
    caller passes where the others pass a number. The first process's share is checked by the
    test above."""
    import json
    import subprocess

    code = FOR_LITERALS + f"""
import json, os
from pipeline.log.warm import all_builds, compile_in_helper
compile_in_helper(sorted(all_builds()), {str(tmp_path / "checks")!r}, open(os.devnull, "w"))
print(json.dumps(for_literals()))
"""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert json.loads(out) == {}


INTERRUPTED_RUN = """
import os, sys
import pipeline.log.warm as shard
helpers = []
class Seen(shard.Helper):
    def __init__(self, engines, validation):
        super().__init__(engines, validation)
        helpers.append(self)
def interrupted(self):
    raise KeyboardInterrupt
shard.Helper = Seen
shard.Helper.steps_compiled = interrupted
try:
    shard.warm(validation=True)
except KeyboardInterrupt:
    pass
helper = helpers[0]
try:
    os.kill(helper.pid, 0)
    alive = True
except ProcessLookupError:
    alive = False
print(alive, os.path.exists(helper.folder))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="the helper is forked on Linux only")
def test_a_first_run_interrupted_stops_its_helper(tmp_path):
    """Ctrl-C while a first run compiles: warm ends its forked helper, reaps it and removes its
    claim folder, rather than leaving it compiling on its own."""
    import subprocess

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", INTERRUPTED_RUN], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["False", "False"], out.stderr


def test_the_checks_are_claimed_by_one_process(tmp_path):
    """A first run's two processes claim the checks' compile through one file: the first to come
    compiles them, the other finds the claim taken."""
    from pipeline.log.warm import claimed

    claim = str(tmp_path / "checks")
    assert claimed(claim) and not claimed(claim) and not claimed(claim)


def test_this_process_waits_for_the_helpers_step_as_long_as_the_helper_may_say_it():
    """Helper.wait_for reads what the helper says (a step's key once it is in numba's cache)
    until it has said the step this process needs, and no further; a step it never says is
    waited for only until the helper has said all of its steps, or has ended (a helper that
    failed: this process then compiles the step itself)."""
    import io

    from pipeline.log.warm import STEPS_DONE, Helper

    def helper(said: str) -> Helper:
        h = Helper.__new__(Helper)
        h.said, h.said_steps, h.done_steps = io.StringIO(said), set(), False
        return h

    h = helper(f"reshuffle(int64)\nwar_round(int64)\n{STEPS_DONE}\nnothing after\n")
    h.wait_for("reshuffle(int64)")
    assert h.said_steps == {"reshuffle(int64)"} and not h.done_steps
    h.wait_for("reshuffle(int64)")
    assert h.said.tell() == len("reshuffle(int64)\n")  # said already: nothing read
    h.wait_for("deal(int64)")  # not the helper's: until all its steps are said
    assert h.said_steps == {"reshuffle(int64)", "war_round(int64)"} and h.done_steps
    assert h.said.readline() == "nothing after\n"
    ended = helper("reshuffle(int64)\n")
    ended.wait_for("war_round(int64)")
    assert ended.done_steps
    ended.steps_compiled()


def test_the_first_run_says_it_compiles(monkeypatch, tmp_path):
    """war generate prints the message on stderr, before any game, when the engine compiles, and
    not when the reference plays every game."""
    from typer.testing import CliRunner

    import pipeline.log.warm as shard
    from pipeline.cli import app

    monkeypatch.setattr(shard, "compile_estimate", lambda validation=False, engines=None: 12.4)
    result = CliRunner().invoke(app, ["generate", "--games", "3", "--out", str(tmp_path / "d"), "-q"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == "compiling the game engine, once, about 12 s"
    monkeypatch.setenv("WAR_ENGINE", "reference")
    result = CliRunner().invoke(app, ["generate", "-v", "arneson", "--games", "3", "--out", str(tmp_path / "s"), "-q"])
    assert result.exit_code == 0, result.output
    assert "compiling" not in result.stderr


def _python_wrapper(dispatcher) -> list[int]:
    """The address of the wrapper Python calls each compiled version of `dispatcher` through
    (0: numba built none)."""
    return [o.library.get_pointer_to_function(o.fndesc.llvm_cpython_wrapper_name) for o in dispatcher.overloads.values()]


@pytest.mark.parametrize("build", all_builds(), ids=build_id)
def test_steps_have_no_python_wrapper_and_the_entries_do(build):
    """Only compiled code calls a step, so numba builds no wrapper for Python to call it through
    (building them was a quarter of the steps' compile); play_games and the encoder's pass,
    which Python calls, keep theirs."""
    from pipeline.engines.compiled.state import called, compile_steps, with_parts
    from pipeline.log.compiled_codec import encode_pass
    from pipeline.engines.choice import ENGINES
    from pipeline.log.warm import warm

    warm(engines=(build,))  # loads the build's games and the encoder's pass
    module = ENGINES[build[0]]
    steps = [step for group in module.STEPS for step in group]
    structures = with_parts(module.structures(warm_rules(build)))
    compile_steps(steps, structures)
    for step in steps:
        wrappers = _python_wrapper(step)
        assert (wrappers or not called(step, structures)) and not any(wrappers), step.py_func.__name__
    for entry in (module.play_games, encode_pass):
        assert _python_wrapper(entry) and all(_python_wrapper(entry)), entry.py_func.__name__
