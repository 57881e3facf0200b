"""What can be played: every variant with where its rules are written, the options a user may
set and their defaults, and the decisions its players make; the policies and profiles those
players can follow. All of it from the families' declarations (model.families).
"""

from __future__ import annotations

from ..engines import policies
from ..engines.families import FAMILIES
from ..model.rules import build_rules
from ..model.variants import VARIANTS


def describe_variants() -> list[dict]:
    """A dict a variant: `variant`, `title`, `rules` (where its rules are written: its section of
    docs/rules.md), `summary`, `defaults` (each option it takes with its default), `decisions`
    (what its players decide) and `family`."""
    out = []
    for v in VARIANTS.values():
        rules = build_rules(v.name).options()
        out.append({"variant": v.name, "title": v.title, "rules": v.rules,
                    "summary": v.summary, "defaults": {k: rules[k] for k in v.options},
                    "decisions": list(FAMILIES[v.family].decision_names), "family": v.family})
    return out


def describe_policies() -> list[str]:
    """Lines: each kind of decision with its policies and default, the profiles, then each
    variant whose players decide and what."""
    lines = policies.describe_policies()
    for v in VARIANTS.values():
        if FAMILIES[v.family].decisions:
            lines.append(f"{v.name}: decides {', '.join(FAMILIES[v.family].decision_names)}")
    return lines
