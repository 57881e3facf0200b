"""The families that play the variants: every declaration of the registry (model.families), by
name, and the family of a rule set. Everything that depends on the family is read from its
declaration here, never from its name.
"""

from __future__ import annotations

from ..model.families import registry
from ..model.family import Family
from ..model.schema import RuleSet

FAMILIES: dict[str, Family] = dict(registry().families)


def family_of(rules: RuleSet) -> Family:
    """The family that plays a rule set's variant."""
    return registry().family(rules.variant)
