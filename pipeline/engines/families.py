"""The engine families: what a family's games hold and which engines play it, declared once.

A variant names its family (model.variants); everything that depends on the family (the
reference engine, whether seats keep won piles or hands, which decisions players make, whether
the compiled engine plays it) is read from the family here, never from its name. A new family
is its engine module and one entry in FAMILIES.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..model.schema import RuleSet
from ..model.variants import variant
from .arneson import play_arneson
from .steal import play_steal
from .table import play_table


@dataclass(frozen=True)
class Family:
    name: str
    play: Callable  # the reference engine: play(rules, deal, chance, recorder, chooser) -> Summary
    won_piles: bool = False  # seats keep a won pile beside the pile they draw from
    hands: bool = False  # seats hold a hand and choose the card they play
    decisions: tuple[str, ...] = ()  # the kinds of decision its players make (policies decide them)
    compiled: str = ""  # the engines.compiled module that plays it too (game for game the same events), if any

    def has_won_piles(self, rules: RuleSet) -> bool:
        """Whether a seat keeps a won pile: the family's own, or pickup=pooled in any family."""
        return self.won_piles or rules.pickup == "pooled"


FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("table", play_table, compiled="table"),
    Family("steal", play_steal, won_piles=True, decisions=("steal", "top"), compiled="steal"),
    Family("arneson", play_arneson, hands=True, decisions=("hand",), compiled="arneson"),
)}


def family_of(rules: RuleSet) -> Family:
    """The family that plays a rule set's variant."""
    return FAMILIES[variant(rules.variant).family]
