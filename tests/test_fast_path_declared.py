"""A family's fast path is found through its declaration (Family.fast, fast_options), as a
plugin's would be: an option it does not name, or a value it does not list, sends the games to
the compiled engine; and every rule set of the grid it declares (each listed value, the options
it plays at every value varied from their own declarations, not a hand grid) gives, through it,
the games rows the reference engine gives, byte for byte."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pytest

from pipeline.engines import choice
from pipeline.engines.families import FAMILIES
from pipeline.errors import RulesError
from pipeline.log.shard import shard_tables
from pipeline.model.all_deals import MAX_DEALS, AllDeals, deal_count
from pipeline.model.families import registry
from pipeline.model.family import ANY, Option
from pipeline.model.rules import build_rules
from pipeline.model.schema import RuleSet

pytest.importorskip("numba")

TABLE = FAMILIES["table"]
GAMES = 5  # games a rule set of the grid, each way (shuffled from seeds, and from the enumeration)


class WithDiscard(RuleSet):
    """A rule set with an option the table family's fast path does not name, as a new rule would
    add it."""

    discard_down: int = 0


def open_play(**options) -> RuleSet:
    return build_rules("classic", {"war_down": "0", "pickup": "natural", **options})


def ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def played_through(monkeypatch, fast) -> list:
    """The calls of the fast path's play_arrays from now on."""
    calls = []
    original = fast.play_arrays
    monkeypatch.setattr(fast, "play_arrays", lambda *a, **k: calls.append(a[0]) or original(*a, **k))
    return calls


def test_the_built_in_fast_path_is_the_one_its_family_declares():
    import importlib

    rules = open_play()
    assert TABLE.fast and choice.fast_path(rules, events=False) is importlib.import_module(TABLE.fast)
    assert choice.fast_path(rules, events=True) is None  # its events are kept: the compiled engine's


def test_a_new_option_sends_the_games_off_the_fast_path(monkeypatch):
    """A rule set with an option the fast path does not name: at its default the fast path
    plays it (the option changes no game), set away from it the compiled engine (or the
    reference) does, and generation never calls the fast path for it."""
    rules = open_play(ranks="4", suits="2")
    assert choice.fast_path(WithDiscard(**rules.model_dump()), events=False) is not None
    changed = WithDiscard(**rules.model_dump(), discard_down=1)
    assert choice.fast_path(changed, events=False) is None
    fast = choice.fast_path(rules, events=False)
    calls = played_through(monkeypatch, fast)
    shard_tables(changed, 0, 1, 0, 4, events=False)
    assert calls == []
    shard_tables(rules, 0, 1, 0, 4, events=False)
    assert len(calls) == 1


def test_an_option_a_copy_of_the_family_declares_and_its_fast_path_does_not_name(monkeypatch):
    """A copy of the table family that declares one option more (as a plugin or a new rule
    would) and a fast path that leaves `shortfall` unnamed: a rule set away from the default of
    either goes elsewhere, at the defaults it stays; the games are the reference's either way."""
    new = Option("discard_down", 0, "Cards discarded face down before a battle.", minimum=0, maximum=3)
    spec = {k: v for k, v in TABLE.fast_options.items() if k != "shortfall"}
    copy = replace(TABLE, options=(*TABLE.options, new), fast_options=spec)
    monkeypatch.setitem(registry().families, "table", copy)
    rules = open_play(ranks="4", suits="2")
    assert choice.fast_path(rules, events=False) is not None
    assert choice.fast_path(WithDiscard(**rules.model_dump(), discard_down=2), events=False) is None
    lose = open_play(ranks="4", suits="2", shortfall="lose")
    assert choice.fast_path(lose, events=False) is None
    calls = played_through(monkeypatch, choice.fast_path(rules, events=False))
    _, games = shard_tables(lose, 0, 3, 0, 6, events=False)
    assert calls == []
    monkeypatch.setenv("WAR_ENGINE", "reference")
    assert ipc(shard_tables(lose, 0, 3, 0, 6, events=False)[1]) == ipc(games)


def test_a_value_the_fast_path_does_not_list_sends_the_games_off_it(monkeypatch):
    spec = {**TABLE.fast_options, "pickup": ("winner_first",)}
    monkeypatch.setitem(registry().families, "table", replace(TABLE, fast_options=spec))
    assert choice.fast_path(open_play(pickup="winner_first"), events=False) is not None
    assert choice.fast_path(open_play(pickup="natural"), events=False) is None
    monkeypatch.setitem(registry().families, "table", replace(TABLE, fast_options={**spec, "variant": ("jokers",)}))
    assert choice.fast_path(open_play(pickup="winner_first"), events=False) is None  # classic is not listed
    assert choice.fast_path(build_rules("jokers", {"war_down": "0", "pickup": "winner_first"}), events=False)


def samples(option: Option) -> tuple:
    """The values the grid tries of an option the fast path plays at every value (ANY): its
    choices, or the least three of its range and its default."""
    if option.choices:
        return tuple(option.choices)
    if option.integer:
        low = option.minimum if option.minimum is not None else 0
        return tuple(sorted({low, low + 1, low + 2, option.default}))
    return (option.default,)


def declared_grid(family) -> list[dict]:
    """Every rule set of the fast path's declaration: the product of the values it lists, each
    with the options it plays at every value drawn from their samples (a seeded draw a rule set,
    so that no listed value goes with one sample alone)."""
    spec = dict(family.fast_options)
    listed = {k: v for k, v in spec.items() if v is not ANY}
    listed.setdefault("variant", tuple(v.name for v in family.variants))
    every = {k: samples(registry().options[k]) for k, v in spec.items() if v is ANY and k != "variant"}
    draw = np.random.default_rng(52)
    grid = []
    for values in itertools.product(*listed.values()):
        options = dict(zip(listed, values))
        for name, choices in every.items():
            options[name] = choices[int(draw.integers(len(choices)))]
        grid.append(options)
    return grid


def test_the_whole_declared_grid_plays_through_the_fast_path_as_the_reference_plays_it(monkeypatch):
    """Each rule set of the declared grid, games only: its games through the fast path (which
    plays every one of them) and through the reference engine, shuffled from their seeds and
    dealt from the deck's enumeration (where generate enumerates it), are the same games table,
    byte for byte."""
    grid = declared_grid(TABLE)
    fast = choice.fast_path(open_play(), events=False)
    calls = played_through(monkeypatch, fast)
    seen: dict[str, set] = {name: set() for name in TABLE.fast_options}
    played = 0
    for options in grid:
        variant = options.pop("variant")
        try:
            rules = build_rules(variant, {k: str(v) for k, v in options.items()})
        except RulesError:  # a deck too small for the seats, an option the variant fixes
            continue
        assert choice.fast_path(rules, events=False) is fast, (variant, options)
        for name in seen:
            seen[name].add(getattr(rules, name))
        enumerable = deal_count(rules) <= MAX_DEALS  # as generate allows every deal (check_enumerable)
        for deals in (None, *[AllDeals(rules, 0, min(GAMES, deal_count(rules)))] * enumerable):
            games = GAMES if deals is None else len(deals)
            before = len(calls)
            _, through = shard_tables(rules, 0, 11, 0, games, deals, events=False)
            assert len(calls) > before
            with monkeypatch.context() as m:
                m.setenv("WAR_ENGINE", "reference")
                _, reference = shard_tables(rules, 0, 11, 0, games, deals, events=False)
            assert through.num_rows == games and ipc(through) == ipc(reference), (variant, options, deals is None)
        played += 1
    assert played >= len(grid) // 2
    for name, values in TABLE.fast_options.items():  # every value it lists was played
        assert values is ANY or set(values) <= seen[name], (name, seen[name])
        if values is ANY:  # and every sample of an option it plays at every value
            assert set(samples(registry().options[name])) <= seen[name], (name, seen[name])


@pytest.mark.parametrize("fast, spec, why", [
    ("war_nowhere.fast", {}, "its fast path: no module war_nowhere.fast"),
    ("pipeline.engines.table.open_play", {"war_dwn": (0,)}, "fast path option 'war_dwn' is not an option"),
    ("pipeline.engines.table.open_play", {"variant": ("clasic",)}, "fast path variant 'clasic' is not one of"),
])
def test_a_fast_path_that_names_nothing_is_said_when_the_family_is_read(monkeypatch, fast, spec, why):
    """A plugin's misspelt fast path, option or variant: left out, said as it is read, not at its
    first game."""
    import warnings

    from pipeline.model import families
    from pipeline.model.family import Variant

    mine = replace(TABLE, name="mine", variants=(Variant("mine", "Mine", "the test", "Classic War again."),),
                   options=TABLE.option_names, warm=(), charts="", fast=fast,
                   fast_options={**spec, **({"variant": ("mine",)} if "variant" not in spec else {})})
    monkeypatch.setattr(families, "_outside", lambda: iter([("`mine = t:F`", "t", mine)]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reg = families.build()
    said = [str(w.message) for w in caught if w.category is families.FamilyWarning]
    assert "mine" not in reg.families and len(said) == 1 and why in said[0], said
    without = replace(mine, fast_options={"variant": ("mine",)}, compiled="", compiled_options={},
                      fast="pipeline.engines.table.open_play")
    monkeypatch.setattr(families, "_outside", lambda: iter([("`mine = t:F`", "t", without)]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reg = families.build()
    assert "mine" not in reg.families and "stands in for its compiled engine" in str(caught[-1].message)
