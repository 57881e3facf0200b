"""What a family of variants declares about itself: the spec each family folder
(`engines/<family>/__init__.py`) fills in, read by the registry (engines.families).

Everything that depends on a family (its reference engine, whether seats keep won piles or
hands, the decisions its players make, the event kinds it logs, which options its compiled
engine plays, the tiny games that warm the compiled engine up) is declared here once, never
tested by the family's name elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

ANY = None  # an option the compiled engine plays at every value


@dataclass(frozen=True)
class Warm:
    """One build of a compiled engine (its games keep positions, or not) and the tiny game that
    loads or compiles it: a variant and options; `seconds`, what a first run's compile of it
    takes on a 2-core machine (what the first run's message announces)."""

    keeps_positions: bool
    variant: str
    options: Mapping[str, str]
    seconds: float


@dataclass(frozen=True)
class Family:
    name: str
    play: Callable  # the reference engine: play(rules, deal, chance, recorder, chooser) -> Summary
    won_piles: bool = False  # seats keep a won pile beside the pile they draw from
    hands: bool = False  # seats hold a hand and choose the card they play
    decisions: tuple[str, ...] = ()  # the kinds of decision its players make (policies decide them)
    events: tuple[str, ...] = ()  # the event kinds its games log (model.events.KINDS)
    # Its compiled engine, a module under pipeline.engines (`table.compiled`), which plays its
    # games event for event as `play` does, through one entry point (see engines.choice); "" for none.
    compiled: str = ""
    # The options the compiled engine plays, each with the values it plays (ANY: every value).
    # A rule set whose option is anything else (an option not named here, set away from its
    # default) is played by the reference engine.
    compiled_options: Mapping[str, tuple | None] = field(default_factory=dict)
    warm: tuple[Warm, ...] = ()  # the compiled engine's builds and their warm-up games

    def has_won_piles(self, rules) -> bool:
        """Whether a seat keeps a won pile: the family's own, or pickup=pooled in any family."""
        return self.won_piles or rules.pickup == "pooled"
