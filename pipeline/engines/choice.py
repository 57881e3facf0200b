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

A family's fast path (Family.fast) gives the games rows alone of the games whose events are not
kept, in its compiled engine's stead, of the rule sets its declaration names (Family.fast_options,
read as compiled_options are, the variant too): generation, the counts of an enumeration and the
record search find it here, by the declaration, as they would a plugin's. Its module's entry
points: `fits(rules)` (what the options do not say: the deck's size, a cap, numba) and
`play_arrays(rules, seed, start, stop, enumerated=)` (layout.GameArrays without events, and
the keys of the games' mirrored cycles); and, where it counts an enumeration itself,
`count_deals(rules, start, stop)`, `keep_deals(rules, start, stop, kinds, most)` and
`counts_classes(rules)` (log.counts); where it searches for records, `searches(rules)`,
`search_round(rules, deck, rng, goal, measure, pool, rows, polished)` and `warm_search(rules,
deck, rng, rows)` (jobs.searcher).
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
    return bool(family.compiled) and plays_options(family.compiled_options, rules)


def plays_options(spec: Mapping[str, tuple | None], rules: RuleSet) -> bool:
    """Whether `spec` (Family.compiled_options, Family.fast_options) plays every option of
    `rules`: each named with its value (or ANY), or not named and left at its default. The
    variant counts only where the spec names it (an engine plays every variant of its family)."""
    for name, field in type(rules).model_fields.items():
        value = getattr(rules, name)
        allowed = spec.get(name, _NOT_NAMED)
        if allowed is _NOT_NAMED:
            if name != "variant" and value != field.default:
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


def fast_path(rules: RuleSet, deals=None, policies=(), seeds=None, events: bool = True,
              engine: ModuleType | None = None) -> ModuleType | None:
    """The family's fast path (Family.fast) when it gives these games' rows, else None: games
    whose events are not kept, shuffled from their seeds or every deal of the deck, of a rule set
    its declaration plays (Family.fast_options) and its module fits, where the compiled engine
    plays them too (which it stands in for; `engine`, the one chosen already, when the caller
    has chosen)."""
    from ..model.all_deals import AllDeals

    if events or seeds is not None or policies or not (deals is None or isinstance(deals, AllDeals)):
        return None
    family = family_of(rules)
    if not family.fast or not plays_options(family.fast_options, rules):
        return None
    fast = importlib.import_module(family.fast)
    if not fast.fits(rules) or (engine or compiled_engine(rules, policies)) is None:
        return None
    return fast


def compiled_plays(rules: RuleSet, deals=None, policies=()) -> bool:
    """Whether the compiled engine plays these games (compiled_engine)."""
    return compiled_engine(rules, policies) is not None
