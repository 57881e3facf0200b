"""The variants: every family's (model.families), by name, in the order war lists them.

A variant names its family, its defaults and the options a user may set (model.family.Variant).
Adding a variant that an existing family can play is adding it to the family's declaration.
"""

from __future__ import annotations

from ..errors import RulesError
from .families import registry
from .family import Variant

__all__ = ["VARIANTS", "Variant", "variant"]

VARIANTS: dict[str, Variant] = dict(registry().variants)


def variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        if name in registry().left_out_variants:  # its package is installed: say why war cannot play it
            raise RulesError(registry().unplayed(name)) from None
        raise RulesError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})") from None

