"""The compiled engines' workspace (pipeline/engines/compiled/state.py, Workspace) and when a
game looks for cycles: a game played without looking for cycles until battle `watch` is the game
played looking from the first battle; the workspace looks from the first battle only where
cycles are common; a workspace kept from range to range (its buffers reused and grown) changes
no game; and a kept game serves only rules that keep the same kind of positions."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from compiledkit import assert_same_arrays  # noqa: E402
from pipeline.engines.compiled.layout import SUMMARY_OUTCOME  # noqa: E402
from pipeline.engines.compiled.state import Workspace  # noqa: E402
from pipeline.engines.table.compiled import compile_rules, play_arrays  # noqa: E402
from pipeline.model.rules import build_rules  # noqa: E402
from pipeline.model.schema import OUTCOMES  # noqa: E402


# Rule sets whose games can repeat a position (fixed pickups), with caps and wars:N among them.
WATCHED = [
    ("classic", {"pickup": "winner_first"}),
    ("classic", {"pickup": "table_order", "ranks": "3", "suits": "4"}),
    ("classic", {"pickup": "table_order", "ranks": "3", "suits": "4", "max_battles": "12"}),
    ("classic", {"pickup": "table_order", "win": "wars:3"}),
    ("classic", {"pickup": "natural", "war_down": "0", "ranks": "10", "suits": "1"}),
    ("classic", {"pickup": "sorted", "war_down": "1", "ranks": "10", "suits": "1"}),
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
        assert_same_arrays(looking, play_arrays(rules, 5, 0, 60, watch=watch), watch)


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
        assert_same_arrays(fresh, reused)
    assert workspace.attempt > sum(stop - start for *_, start, stop in ranges)  # the tiny first buffers grew


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

