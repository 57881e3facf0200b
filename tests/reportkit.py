"""What the report's tests share: a dataset of the six variants (written once per test module
that asks for it), and the Wilson score interval, computed here from its formula rather than by
the SQL macro the named queries use."""

from __future__ import annotations

import math
from pathlib import Path

from pipeline.jobs.generate import Plan, generate, make_plans
from pipeline.model.rules import build_rules


def six_variants(out: Path, games: int, tournament_games: int, seed: int) -> Path:
    """A dataset at `out` of every variant: Classic War three ways (shuffled; table order with a
    cap of 300, which cycles and caps; war_down=1), 4-player Multiplayer, Jokers and Război with
    `games` games (Classic) or half as many, and tournaments of Steal War (three steal policies)
    and Arneson's War (two hand policies) of `tournament_games` games a seating."""
    plans = [
        Plan(build_rules("classic"), games),
        Plan(build_rules("classic", {"pickup": "table_order", "max_battles": "300"}), games),
        Plan(build_rules("classic", {"war_down": "1"}), games),
        Plan(build_rules("multiplayer", {"players": "4"}), games // 2),
        Plan(build_rules("jokers"), games // 2),
        Plan(build_rules("razboi"), games // 2),
        *make_plans([build_rules("steal")], games=tournament_games,
                    tournament=["steal:always", "steal:never", "steal:threshold:4"]),
        *make_plans([build_rules("arneson")], games=tournament_games, tournament=["hand:highest", "hand:save_high"]),
    ]
    generate(out, plans, seed=seed)
    return out


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of `wins` successes in `n` trials."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
