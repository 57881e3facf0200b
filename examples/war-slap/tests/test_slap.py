"""Slap War's own tests: war's conformance kit (pipeline.plugin.testing) on the family, and its
rules (README.md) on small deals."""

from __future__ import annotations

import pytest

from pipeline.plugin import testing


@pytest.mark.parametrize("case", testing.cases("slap"), ids=testing.case_id)
def test_kit_cards_replay_and_regenerate(case):
    """Every option the family plays, at each declared value (the kit's cases)."""
    testing.check_games("slap", games=3, case_list=[case])


def test_kit_validation_names_a_tamper_of_each_kind(tmp_path):
    named = testing.check_tampers("slap", tmp_path)
    assert {"slap", "decision"} <= set(named)


def test_kit_golden_playthrough():
    assert testing.check_golden("slap") == ["slap"]


def test_kit_a_randomized_policy_never_cycles():
    assert testing.check_drawn_never_cycle("slap") == ["slap:random"]


def test_a_pair_is_slapped_by_the_first_seat_asked_and_taken_as_it_lies():
    """README 2: seat 0 is asked first in the first battle; `always` slaps."""
    events, _ = testing.play("slap", piles=[["9C", "2C"], ["9D", "3C"]])
    first = [(e.kind, e.seat) for e in events if e.battle == 1]
    assert first == [("play", 0), ("play", 1), ("decision", 0), ("slap", 0)]
    slap = next(e for e in events if e.kind == "slap")
    assert [testing.label("slap", c) for c in slap.cards] == ["9♣", "9♦"]


def test_nobody_slaps_a_war_as_in_classic_war():
    """README 3: under `never` the tie is a war."""
    events, _ = testing.play("slap", piles=[["9C", "2C", "3D", "4D", "5D"], ["9D", "3C", "6D", "7D", "8D"]],
                             policies=("never", "never"))
    assert ("war", None) in [(e.kind, e.seat) for e in events if e.battle == 1]
