"""What can be played: every variant with where its rules are written, the options a user may
set and their defaults, and the decisions its players make; the policies and profiles those
players can follow. All of it from the families' declarations (model.families).
"""

from __future__ import annotations

import warnings

from ..engines import policies
from ..engines.families import FAMILIES
from ..errors import PluginError, RulesError
from ..model.families import FamilyWarning, registry
from ..model.family import Decision, Option
from ..model.rules import build_rules
from ..model.variants import VARIANTS


def describe_variants() -> list[dict]:
    """A dict a variant: `variant`, `title`, `rules` (where its rules are written: its section of
    docs/rules.md), `summary`, `defaults` (each option it takes with its default), `decisions`
    (what its players decide) and `family`. A variant of an outside family whose rule set at
    its defaults is refused (an option's check refuses it, or fails on it) is left out of the list with a
    warning line naming it and its family's entry point, not an error of every family's list;
    a built-in one's is a bug of war's and raises."""
    out = []
    for v in VARIANTS.values():
        try:
            rules = build_rules(v.name).options()
        except (RulesError, PluginError) as err:  # a check that refuses the defaults, or fails on them
            if v.family in registry().built_in:
                raise
            _unlisted(v.name, v.family, str(err))
            continue
        out.append({"variant": v.name, "title": v.title, "rules": v.rules,
                    "summary": v.summary, "defaults": {k: rules[k] for k in v.options},
                    "decisions": list(FAMILIES[v.family].decision_names), "family": v.family})
    return out


_WARNED: set[str] = set()  # the variants said left out of the list, once a process


def _unlisted(variant: str, family: str, why: str) -> None:
    """Warn, once, that an outside family's variant is left out of the list, and why."""
    if variant in _WARNED:
        return
    _WARNED.add(variant)
    where = registry().origins.get(family, "?")
    warnings.warn_explicit(f"the variant {variant!r} of the family {family!r} of entry point {where} is left out of "
                           f"the list: its rule set at its defaults is refused: {why}", FamilyWarning, "war", 0)


def describe_policies() -> list[str]:
    """Lines: each kind of decision with its policies and default, the profiles, then each
    variant whose players decide and what."""
    lines = policies.describe_policies()
    for v in VARIANTS.values():
        if FAMILIES[v.family].decisions:
            lines.append(f"{v.name}: decides {', '.join(FAMILIES[v.family].decision_names)}")
    return lines


def _declared_by() -> dict[str, str]:
    """The family that declares each option (`war` for war's own, model.families.CORE_OPTIONS)."""
    out: dict[str, str] = {}
    for family in registry().families.values():
        for o in family.options:
            if not isinstance(o, str):
                out.setdefault(o.name, family.name)
    return out


def _option_details(option: Option, default, family: str) -> dict:
    """An option as `war variants --details` shows it: its help, default, the family that declares
    it, and the values it takes (`choices`; an integer's `minimum` .. `maximum` and `words`
    besides; a text's `pattern`), each None or empty when the option does not limit it so."""
    return {"name": option.name, "default": default, "family": family, "help": option.help,
            "kind": "integer" if option.integer else ("choice" if option.choices else "text"),
            "choices": list(option.choices), "minimum": option.minimum, "maximum": option.maximum,
            "words": list(option.words), "pattern": option.pattern or None}


def _decision_details(decision: Decision, family: str) -> dict:
    """A decision with its policies: each one's help, whether it draws (`randomized`), and its
    parameter (`N`: what it is, the values the policy parser takes, no default: it must be given)."""
    return {"name": decision.name, "family": family, "title": decision.title, "chooses": decision.chooses,
            "default": decision.default,
            "policies": [{"name": p.name, "help": p.help, "randomized": p.randomized,
                          "parameter": {"name": "N", "help": p.parameter, "minimum": 0, "maximum": None,
                                        "default": None} if p.parameter else None}
                         for p in decision.policies]}


def policy_details() -> list[dict]:
    """Every kind of decision of every installed family, with its policies (see _decision_details):
    a dict each, `name`, `family`, `title`, `chooses`, `default`, `policies`."""
    return [_decision_details(d, f.name) for f in registry().families.values() for d in f.decisions]


def profile_details() -> dict[str, dict[str, str]]:
    """The profiles: each a {decision: policy} over every family that names it."""
    return {name: dict(chosen) for name, chosen in policies.PROFILES.items()}


def variant_details() -> list[dict]:
    """What `war variants --details` shows: describe_variants' dict a variant, its `options` each
    with its help, values, its default in this variant and the family that declares it (`war` for
    war's own), and its `decisions` each with its policies' help and parameter. All of it from the
    families' declarations, the built-in ones and those of installed packages alike."""
    reg = registry()
    by = _declared_by()
    out = []
    for v in describe_variants():
        family = FAMILIES[v["family"]]
        v = dict(v)
        v["options"] = [_option_details(reg.options[name], default, by.get(name, "war"))
                        for name, default in v["defaults"].items()]
        v["decisions"] = [_decision_details(d, family.name) for d in family.decisions]
        out.append(v)
    return out
