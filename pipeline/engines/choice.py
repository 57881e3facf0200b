"""The choice of engine: a family's compiled engine plays a rule set's games when it gives
exactly the reference's games, else the reference engine does. Generation and validation both
ask here, so a game is always played by the engine that validates it.

A compiled engine plays only what its family's spec declares (Family.compiled_options): an
option the spec does not name, set away from its default, or a value it does not list, sends
the games to the reference engine, so a rule the compiled engine does not know is never
silently ignored. Each compiled module then says whether the deck, seats and policies fit its
arrays (`fits`).

Every compiled module has the same entry points: `play_arrays(rules, seed, start, stop,
policies, capacity=, deals=, workspace=)` (layout.GameArrays), `fits(rules, policies)`,
`keeps_positions(rules)`, `events_a_game(rules)`, `structures(rules)`, `play_games` and
`STEPS` (for warm-up, log.warm).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from types import ModuleType

from ..model.schema import RuleSet
from .families import FAMILIES, family_of
from ..model.family import ANY, Family

_NOT_NAMED = object()


def supported(family: Family, rules: RuleSet) -> bool:
    """Whether every option of `rules` is one the family's compiled engine plays: named in its
    spec with that value (or ANY), or left at its default."""
    if not family.compiled:
        return False
    for name, field in type(rules).model_fields.items():
        if name == "variant":
            continue
        value = getattr(rules, name)
        allowed = family.compiled_options.get(name, _NOT_NAMED)
        if allowed is _NOT_NAMED:
            if value != field.default:
                return False
        elif allowed is not ANY and value not in allowed:
            return False
    return True


class _Engines(Mapping):
    """The compiled engines' modules by family name, each imported when first asked for, so
    that a run of one family does not import (and compile from source) the others'."""

    names = tuple(name for name, family in FAMILIES.items() if family.compiled)

    def __getitem__(self, name: str) -> ModuleType:
        if name not in self.names:
            raise KeyError(name)
        return importlib.import_module(FAMILIES[name].compiled)

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


ENGINES = _Engines()


def compiled_engine(rules: RuleSet, policies=()) -> ModuleType | None:
    """The compiled engine that plays these games (seeded, or from explicit deals) exactly as
    the reference does, or None. WAR_ENGINE=reference in the environment makes the reference
    play everything."""
    if os.environ.get("WAR_ENGINE") == "reference":
        return None
    family = family_of(rules)
    if not supported(family, rules):
        return None
    engine = ENGINES[family.name]
    return engine if engine.fits(rules, policies) else None


def open_duel_plays(rules: RuleSet, deals=None, policies=(), seeds=None, events: bool = True,
                    engine: ModuleType | None = None) -> bool:
    """Whether the two-seat open-play engine (table.open_duel) gives these games' rows: games whose
    events are not kept, shuffled from their seeds or every deal of the deck, of a rule set it
    plays, where the compiled engine plays them too (which it stands in for; `engine`, the one
    chosen already, when the caller has chosen)."""
    from ..model.all_deals import AllDeals
    from .table import open_duel

    return (not events and seeds is None and not policies and (deals is None or isinstance(deals, AllDeals))
            and open_duel.fits(rules) and (engine or compiled_engine(rules, policies)) is not None)


def compiled_plays(rules: RuleSet, deals=None, policies=()) -> bool:
    """Whether the compiled engine plays these games (compiled_engine)."""
    return compiled_engine(rules, policies) is not None
