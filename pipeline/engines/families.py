"""The registry of engine families: every family folder's spec (engines.family.Family), by name.

A variant names its family (model.variants); everything that depends on the family is read
from its spec here, never from its name. A new family is its folder (`engines/<family>/`:
the spec in `__init__.py`, the reference engine, the compiled engine) and one entry below.
"""

from __future__ import annotations

from ..model.schema import RuleSet
from ..model.variants import variant
from . import arneson, steal, table
from .family import Family

FAMILIES: dict[str, Family] = {f.name: f for f in (table.FAMILY, steal.FAMILY, arneson.FAMILY)}


def family_of(rules: RuleSet) -> Family:
    """The family that plays a rule set's variant."""
    return FAMILIES[variant(rules.variant).family]
