"""A policy that draws from its generator without being declared randomized (hostile-j 3): war
calls a game a cycle when a position comes back, which holds only when nothing draws; such a
policy's games were called cycles (176 of 300 in one run), and validation and the kit agreed.
Its seat is now handed a generator that any use refuses, said as the plugin's error."""

from __future__ import annotations

import pytest

from pipeline.engines import policies
from pipeline.errors import PluginError
from pipeline.log.batches import reference_shard
from pipeline.model.rules import build_rules


def drawing(view, rng):
    """Slap when a coin says so: a randomized policy, whatever its declaration says."""
    return (view.seat,) if rng.bounded(2) else ()


@pytest.fixture
def draws(monkeypatch):
    """Every seat's slap policy draws, whichever policy it was declared as."""
    real = policies.SeatPolicy.functions

    def functions(self, seat=None, seed=None):
        return {**real(self, seat, seed), "slap": drawing}

    monkeypatch.setattr(policies.SeatPolicy, "functions", functions)


def test_an_undeclared_draw_is_the_plugins_error(draws):
    with pytest.raises(PluginError, match=r"slap:always of seat \d.*not declared randomized"):
        reference_shard(build_rules("slap", {}), 0, 1, 0, 20, policies=["slap:always", "slap:always"])


def test_a_declared_draw_plays(draws):
    events, games, _ = reference_shard(build_rules("slap", {}), 0, 1, 0, 20, policies=["slap:random", "slap:random"])
    assert games.num_rows == 20 and "cycle" not in games.column("outcome").to_pylist()
