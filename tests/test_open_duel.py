"""The two-seat open-play engine (engines.table.open_duel) against the table family's compiled
engine, which the conformance and independent tests hold to the reference: every games-row
column of every deal of small decks under each fixed pickup, random deals of the 52-card open
game, and games that reach their cap; and the choice of engine that sends a games-only run to it."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.engines.choice import compiled_engine, fast_path
from pipeline.engines.table import open_duel
from pipeline.model.all_deals import AllDeals, deal_count
from pipeline.model.rules import build_rules

FIELDS = ("summaries", "war_wins", "final_cards", "seeds")


def same_games(options: dict, games: int | None = None, enumerated: bool = True, variant: str = "classic",
               seed: int = 7) -> np.ndarray:
    """Both engines' arrays for the games are equal; the summaries."""
    rules = build_rules(variant, {"war_down": "0", **options})
    count = min(games or deal_count(rules), deal_count(rules)) if enumerated else games
    engine = compiled_engine(rules, ())
    expected = engine.play_arrays(rules, seed, 0, count, (), deals=AllDeals(rules, 0, count) if enumerated else None)
    found, _ = open_duel.play_arrays(rules, seed, 0, count, enumerated)
    for field in FIELDS:
        want, got = getattr(expected, field), getattr(found, field)
        rows = np.flatnonzero((want != got).reshape(len(want), -1).any(axis=1))
        assert rows.size == 0, f"{field} differs first at game {rows[0]}: {want[rows[0]]} != {got[rows[0]]}"
    return expected.summaries


@pytest.mark.parametrize("pickup", open_duel.FIXED)
@pytest.mark.parametrize("ranks, suits", [(3, 4), (4, 2), (5, 1), (3, 3), (2, 5)])
def test_every_deal_of_a_small_deck_gives_the_compiled_engines_rows(pickup, ranks, suits):
    same_games({"ranks": str(ranks), "suits": str(suits), "pickup": pickup})


@pytest.mark.parametrize("pickup", open_duel.FIXED)
def test_random_deals_and_jokers_and_a_cap_give_the_compiled_engines_rows(pickup):
    summaries = same_games({"pickup": pickup}, games=400, enumerated=False)
    assert len(set(summaries[:, 2])) > 50  # games of many lengths
    same_games({"pickup": pickup}, games=200, enumerated=False, variant="jokers", seed=3)
    capped = same_games({"ranks": "4", "suits": "3", "pickup": pickup, "max_battles": "20"})
    assert (capped[:, 0] == 2).any()  # outcome capped: games met their cap


def test_the_cycles_it_finds_are_those_of_the_compiled_engine_and_their_mirrors_keys():
    """Cycles of every deal of four suits of three ranks (natural, period 19) and of two suits of
    four ranks in table order (many periods): the same outcome, period, first repeat and key;
    the mirrored key is the key of the mirrored deal's cycle."""
    summaries = same_games({"ranks": "3", "suits": "4", "pickup": "natural"})
    assert set(summaries[summaries[:, 0] == 3, 8]) == {19}
    rules = build_rules("classic", {"war_down": "0", "ranks": "4", "suits": "2", "pickup": "table_order"})
    arrays, mirrors = open_duel.play_arrays(rules, 0, 0, deal_count(rules), True)
    cycles = arrays.summaries[:, 0] == 3
    assert cycles.sum() > 1000 and len(set(arrays.summaries[cycles, 8])) > 1
    rules = build_rules("classic", {"war_down": "0", "ranks": "3", "suits": "4", "pickup": "natural"})
    arrays, mirrors = open_duel.play_arrays(rules, 0, 0, deal_count(rules), True)
    from pipeline.engines.compiled.deals import swapped_indexes

    swapped = swapped_indexes(rules, np.arange(deal_count(rules)))
    cycle = np.flatnonzero(arrays.summaries[:, 0] == 3)
    assert (arrays.summaries[swapped[cycle], 11] == mirrors[cycle]).all()


def test_games_only_runs_of_open_play_go_to_it_and_others_do_not():
    open_play = build_rules("classic", {"war_down": "0", "pickup": "natural"})
    assert fast_path(open_play, None, (), None, events=False) is not None
    assert fast_path(open_play, AllDeals(open_play, 0, 10), (), None, events=False) is not None
    assert fast_path(open_play, None, (), None, events=True) is None  # its events are logged
    assert fast_path(open_play, None, (), [1, 2], events=False) is None  # games with seeds of their own
    for options in ({"war_down": "1", "pickup": "natural"}, {"war_down": "0"}, {"war_down": "0", "players": "3"},
                    {"war_down": "0", "pickup": "natural", "win": "wars:3"},
                    {"war_down": "0", "pickup": "natural", "aces": "low"}):  # it reads the deck's ranks as they are
        rules = build_rules("multiplayer" if "players" in options else "classic", options)
        assert fast_path(rules, None, (), None, events=False) is None, options


def test_aces_low_games_only_are_the_reference_engines(tmp_path, monkeypatch):
    """Every deal of a small deck with the Ace low, games only: the rows the reference engine
    plays (the open-play engine, which reads the deck's ranks as they are, leaves them alone)."""
    import pyarrow.parquet as pq

    from pipeline.jobs.generate import Plan, generate

    rules = build_rules("classic", {"war_down": "0", "pickup": "natural", "aces": "low", "ranks": "3", "suits": "3"})
    tables = []
    for engine in ("chosen", "reference"):
        if engine == "reference":
            monkeypatch.setenv("WAR_ENGINE", "reference")
        generate(tmp_path / engine, [Plan(rules, deal_count(rules), all_deals=True, log="games")], seed=1)
        tables.append(pq.read_table(tmp_path / engine / "games").sort_by("game_id"))
    assert tables[0].num_rows == deal_count(rules) and tables[0].equals(tables[1])
