"""The rule set: a variant plus every option, a pydantic model built from the options the
families declare (model.families), and its id.

A rule set records (in a manifest, a plan, JSON) its variant, the options every rule set
recorded before families were declarations (RECORDED), those its variant sets a default of, and
any other option away from its default: so an option added at a default that keeps every game
as it was changes no manifest, as it changes no id (rules_id version 2), and one family's options
never appear in another's rule sets. A rule set read back takes the default of every option it
does not record.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Iterable, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_serializer, model_validator

from ..errors import PluginError, brief
from .families import plugins_fault, registry
from .family import Option
from .variants import variant

# A rules_id's version. Version 1 hashed every option, defaults included, so an option added
# to RuleSet changed every id; version 2 hashes the variant and the options that differ from
# its defaults, so an option added with a default that keeps today's games changes no id.
# A manifest's entry says which version its id is (RuleSetEntry.rules_id_version).
RULES_ID_VERSION = 2
RULES_ID_VERSIONS = (1, 2)
# The options a rule set had while ids were of version 1 (its hash covers these, and any
# option added since that is set away from its default).
VERSION_1_OPTIONS = ("variant", "players", "jokers", "war_down", "ace_value", "war_tiebreak", "shortfall",
                     "pickup", "ranks", "suits", "win", "max_battles", "hand_size")
# What every rule set records, whatever its family: the options of every rule set before
# families were declarations, so that manifests stay as they were.
RECORDED = VERSION_1_OPTIONS


class RuleSetBase(BaseModel):
    """What every rule set is and does, whatever its options (RuleSet adds them as fields)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _known(cls, data):
        """A variant no registered family plays is named as such, before its options (which
        only its family knows) are read as unknown ones."""
        name = data.get("variant") if isinstance(data, dict) else None
        if isinstance(name, str) and name not in registry().variants:
            raise ValueError(registry().unplayed(name))
        return data

    @model_validator(mode="after")
    def _playable(self):
        spec = variant(self.variant)
        if spec.fixed_players is not None and self.players != spec.fixed_players:
            raise ValueError(f"{self.variant} is played by exactly {spec.fixed_players} players")
        mine = set(spec.options) | set(registry().families[spec.family].option_names)
        for option in registry().options.values():
            if option.check is None:
                continue
            if option.name in mine or getattr(self, option.name) != option.default:
                problem = _checked_by(option, self)
                if problem:
                    raise ValueError(problem)
        if spec.standard_deck and (self.ranks, self.suits) != (13, 4):
            raise ValueError(f"{self.variant} is played with the standard deck (ranks=13, suits=4)")
        return self

    @model_serializer(mode="wrap")
    def _recorded(self, handler):
        """The variant, RECORDED, the options its variant sets a default of, and any other option
        away from its default (the module's docstring)."""
        data = handler(self)
        defaults = variant(self.variant).defaults
        fields = type(self).model_fields
        return {name: value for name, value in data.items()
                if name in RECORDED or name in defaults or getattr(self, name) != fields[name].default}

    def options(self) -> dict:
        """Every option its variant's family reads (model.family.Family.options) and RECORDED, by
        name, as JSON values, recorded or not: what a person is shown of the rule set."""
        names = set(RECORDED) | set(registry().family(self.variant).option_names)
        return {name: getattr(self, name) for name in type(self).model_fields if name in names}

    @property
    def wars_to_win(self) -> int | None:
        return int(self.win.split(":")[1]) if self.win.startswith("wars:") else None

    def differences(self) -> dict:
        """The options that differ from the variant's defaults (the variant's own defaults over
        the RuleSet's), as JSON values: what sets this rule set apart from its variant."""
        defaults = {name: field.default for name, field in type(self).model_fields.items()}
        defaults.update(variant(self.variant).defaults)
        return {name: value for name, value in self.model_dump(mode="json").items()
                if name != "variant" and value != defaults.get(name)}

    @property
    def rules_id(self) -> str:
        """A short hash of what sets the rule set apart from its variant's defaults (an id of
        RULES_ID_VERSION), the same on every machine."""
        return _rules_id(self, RULES_ID_VERSION)

    @property
    def label(self) -> str:
        """The rule set as a person reads it: its variant and the options that differ from the
        variant's defaults (`classic pickup=table_order`), which tell apart what the hash of
        `rules_id` hides."""
        return " ".join([self.variant, *(f"{k}={v}" for k, v in self.differences().items())])


class CheckFault(PluginError):
    """An outside family's Option.check that raised, or answered what is not a text or None,
    as it was asked about a rule set: the plugin's error (its package), not war's."""

    def _text(self) -> str:
        return f"{self.what}; the error is the plugin's ({self.owner}), not war's"


def _checked_by(option: Option, rules) -> str | None:
    """What `option.check` says is wrong with `rules` (None: nothing). A check of an outside
    family's that fails is its family's error (CheckFault, exit 2, naming the family and its
    package), as a policy's or an engine's is, not an internal error; war's own fails as war's
    bug. Ctrl-C goes through."""
    try:
        problem = option.check(rules)
    except (Exception, SystemExit) as err:
        family = _declarer(option.name)
        if not plugins_fault(err, family):
            raise
        said = " ".join(f"{type(err).__name__}: {err}".split()) if str(err).strip() else type(err).__name__
        raise CheckFault(f"plugin family {family.name!r}: the check of its option {option.name!r} failed on "
                         f"rule set {rules.variant!r}: {said}", owner=family.module) from err
    if problem is None or isinstance(problem, str):
        return problem
    family = _declarer(option.name)
    if family is None or family.name in registry().built_in:
        raise TypeError(f"the check of option {option.name!r} answered {brief(problem)}, not a text or None")
    raise CheckFault(f"plugin family {family.name!r}: the check of its option {option.name!r} answered "
                     f"{brief(problem)} on rule set {rules.variant!r}, not a text or None", owner=family.module)


def _declarer(name: str):
    """The family that declares the option `name` (None: war's own, model.families.CORE_OPTIONS)."""
    return next((f for f in registry().families.values()
                 if any(not isinstance(o, str) and o.name == name for o in f.options)), None)


def _annotation(option: Option):
    if option.integer:
        return Union[int, Literal[option.words]] if option.words else int  # type: ignore[valid-type]
    if option.choices:
        return Literal[option.choices]  # type: ignore[valid-type]
    return str


def _field(option: Option):
    bounds = {}
    if option.integer and not (option.words or option.choices):
        bounds = {k: v for k, v in (("ge", option.minimum), ("le", option.maximum)) if v is not None}
    if option.pattern:
        bounds["pattern"] = option.pattern
    return _annotation(option), Field(option.default, description=option.help, **bounds)


def _checked(options: dict[str, Option]):
    """The check of the integer options that Field's bounds do not say: one of a few integers
    (jokers: 0 or 2), or a range besides words (war_down: 0 .. 32768 or 'by_rank')."""
    names = [o.name for o in options.values() if o.integer and (o.choices or o.words)]

    def check(cls, v, info):
        o = options[info.field_name]
        if o.choices and v not in o.choices:
            raise ValueError("must be " + " or ".join(map(str, o.choices)))
        if o.words and isinstance(v, int):
            low = -2**63 if o.minimum is None else o.minimum
            high = 2**63 if o.maximum is None else o.maximum
            if not low <= v <= high:
                words = " or ".join(repr(w) for w in o.words)
                raise ValueError(f"must be an integer {o.minimum} .. {o.maximum} or {words}")
        return v

    return {"_options": field_validator(*names)(check)} if names else {}


def rule_set_model(options: Iterable[Option]) -> type[RuleSetBase]:
    """The RuleSet model of these options (every registered family's: model.schema.RuleSet)."""
    options = {o.name: o for o in options}
    fields = {"variant": (str, Field(description="Registered variant name (`war variants`)."))}
    fields.update({name: _field(o) for name, o in options.items()})
    return create_model("RuleSet", __base__=RuleSetBase, __module__="pipeline.model.schema",
                        __doc__="A variant plus every option (docs/rules.md 8). Two games with the same rule set "
                                "and seed are\nthe same game.", __validators__=_checked(options), **fields)


def rules_id(rules: RuleSetBase, version: int = RULES_ID_VERSION) -> str:
    """The rule set's id of `version` (RULES_ID_VERSIONS)."""
    return _rules_id(rules, version)


@lru_cache(maxsize=256)
def _rules_id(rules: RuleSetBase, version: int) -> str:
    """rules_id, hashed once for equal rule sets (a frozen model hashes and compares by its
    fields): the engines ask for it a batch of games at a time."""
    if version == 1:
        changed = rules.differences()
        payload = {name: value for name, value in rules.model_dump(mode="json").items()
                   if name in VERSION_1_OPTIONS or name in changed}
    elif version == 2:
        payload = {"rules_id": 2, "variant": rules.variant, "options": rules.differences()}
    else:
        raise ValueError(f"no rules_id version {version} (versions: {RULES_ID_VERSIONS})")
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
