"""The registry of families: every family's declaration (model.family.Family), the built-in ones
and those other packages add through the entry point group `war.families`, read the same way
and checked the same way. What war knows of a family, its options, variants, event kinds,
decisions, policies and engines, it reads here.

    # the pyproject.toml of a package that adds a family
    [project.entry-points."war.families"]
    mine = "war_mine:FAMILY"

A declaration holds together when its names name something (its engines, policies and report
queries, found without importing them) and its templates only fields war fills: a mistake
is said when the family is read, not as a failure of its first game. A built-in declaration
that does not hold together is a bug and raises; an outside one is left out with a warning
(FamilyWarning) that names it and what is wrong, so a broken package never stops war, and a
dataset of its variant is said to be of a family "installed but left out" (Registry.unplayed). The registry is read once, when the rule set's model is built (model.schema).
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import warnings
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from .family import MAX_INT32, Decision, Family, Option, Variant, load, unresolved, wrong_types
from .kind import CONDITIONS, CORE, FIELDS, Kind, unknown_fields
from .pickups import PICKUP_ORDERS
from .plural import plural

GROUP = "war.families"
# The built-in families, named as an entry point names one.
BUILT_IN = ("pipeline.engines.table:FAMILY", "pipeline.engines.steal:FAMILY", "pipeline.engines.arneson:FAMILY")


def _enough_cards(rules) -> str | None:
    deck = rules.ranks * rules.suits + rules.jokers
    if deck < rules.players:
        return (f"a deck of {plural(deck, 'card')} leaves some of {rules.players} players without a card; "
                f"each needs at least one")
    return None


# The options every family's games share: the seats, the deck and its deal, how a game is won and
# capped, and the order won cards join a pile (the shared engine, engines.play, reads them; the
# deal, model.deal; the pickup orders, model.pickups).
CORE_OPTIONS: tuple[Option, ...] = (
    Option("players", 2, "Number of seats, 2..8 (rules 1.4).", minimum=2, maximum=8, check=_enough_cards),
    Option("jokers", 0, "0 or 2 Jokers, which beat every other rank (rules 1.1).", choices=(0, 2)),
    Option("pickup", "shuffled", "Order in which won cards join the pile (rules 2.4).",
           choices=tuple(p.name for p in PICKUP_ORDERS), said={p.name: p.said for p in PICKUP_ORDERS}),
    Option("ranks", 13, "Ranks in the deck (rules 1.2).", minimum=1, maximum=1000),
    Option("suits", 4, "Suits in the deck (rules 1.2).", minimum=1, maximum=1000),
    Option("win", "all_cards", "`all_cards`, or `wars:N`: first to win N wars (rules 2.7).",
           pattern=r"^(all_cards|wars:[1-9][0-9]{0,8})$",
           said=lambda win: None if win == "all_cards" else f"first to win {win.split(':')[1]} wars wins"),
    Option("max_battles", 10_000, "Cap on battles; the game ends `capped`.", minimum=1, maximum=MAX_INT32,
           said=lambda cap: None if cap == 10_000 else f"capped at {plural(cap, 'battle')}"),
    Option("deal", "even", "`even`: equal piles, the rest set aside; `first_short`: every card dealt, the first "
                           "seats one card fewer when the deck does not divide (rules 1.4).",
           choices=("even", "first_short")),
)


class FamilyWarning(UserWarning):
    """An outside family left out: what war could not read of it."""


def _left_out(reg: Registry, where: str, why: str, family=None) -> None:
    """Warn that the family of an entry point is left out, and why (its first problems), as a
    line of war's, not of the code that happened to read the registry; and keep why, for the
    reader of a dataset of its variants (Registry.unplayed)."""
    reg.left_out[where] = why
    variants = getattr(family, "variants", ())
    for v in variants if isinstance(variants, (tuple, list)) else ():
        if isinstance(getattr(v, "name", None), str):
            reg.left_out_variants.setdefault(v.name, where)
    warnings.warn_explicit(f"the family of entry point {where} is left out: {why}", FamilyWarning, "war", 0)


@dataclass(frozen=True)
class Registry:
    """Every family and what they declare, each by name in the order war lists them (the
    built-in families first, then the others by their entry point's name)."""

    families: dict[str, Family] = field(default_factory=dict)
    variants: dict[str, Variant] = field(default_factory=dict)
    options: dict[str, Option] = field(default_factory=dict)
    kinds: dict[str, Kind] = field(default_factory=dict)
    decisions: dict[str, Decision] = field(default_factory=dict)
    built_in: frozenset[str] = frozenset()  # the built-in families' names
    left_out: dict[str, str] = field(default_factory=dict)  # by entry point: why it is left out
    left_out_variants: dict[str, str] = field(default_factory=dict)  # a left-out family's variants: its entry point

    def family(self, variant: str) -> Family:
        return self.families[self.variants[variant].family]

    def unplayed(self, variant: str) -> str:
        """Why no family plays `variant`, in one line: its family is installed but left out (and
        why), or none installed declares it (and which packages, left out, might)."""
        if variant in self.left_out_variants:
            where = self.left_out_variants[variant]
            return f"variant {variant!r} is of the family of entry point {where}, installed but left out: " \
                   f"{self.left_out[where]}"
        said = (f"variant {variant!r} is played by no installed family (known: {', '.join(self.variants)}); "
                f"a family of another package plays it once installed (`war variants` lists what is)")
        unread = [w for w in self.left_out if w not in self.left_out_variants.values()]
        return said + "".join(f"; {w} is installed but left out: {self.left_out[w]}" for w in unread)


def _module(ref: str) -> str:
    return ref.partition(":")[0]


def _named_or_new(items, known: set[str], what: str) -> list[str]:
    """What is wrong with a family's list of options or kinds: a name must be one declared
    already (by war or a family before), a declaration one not declared yet."""
    out = []
    for item in items:
        if isinstance(item, str):
            if item not in known:
                out.append(f"{what} {item!r} is declared by no family and not by war")
            continue
        out += item.problems()
        if item.name in known:
            out.append(f"{what} {item.name!r} is declared already; name it instead of declaring it again")
    return out


def _problems(family: Family, reg: Registry, module: str, own: bool = False) -> list[str]:
    """What keeps `family` (declared in `module`) out of the registry `reg` built so far: a part
    of the wrong type (an `int` among its options) first, then what does not hold together,
    then a name that names nothing and a template field war does not fill. For war's `own`
    families only what holds together with the rest: their types and names are war's code,
    held by its tests (tests/test_families.py), and reading their sources (ast) cost every
    command 0.1 s."""
    if own:
        return _inconsistencies(family, reg)
    if not isinstance(family, Family):
        return [f"it is a {type(family).__name__}, not a pipeline.model.family.Family"]
    mistyped = wrong_types(family)
    if mistyped:
        return mistyped
    try:
        return _inconsistencies(family, reg) + _unresolved(replace(family, module=module), reg) + _templates(family)
    except Exception as err:  # what the types do not say (a check that fails on the values)
        return [f"its declaration cannot be read: {type(err).__name__}: {err}"]


def _found(module: str) -> bool:
    """Whether a module can be imported, found without running it (its parent packages aside)."""
    try:
        return importlib.util.find_spec(module) is not None
    except Exception:  # a parent package that is not there, or does not import
        return False


def _war_queries() -> set[str] | None:
    """The names of war's own named queries (jobs.query.registry.queries_dir's folder), or None
    where this installation has no such folder: the query path says so when a query is run, and a
    game can still be generated."""
    package = Path(__file__).resolve().parent.parent
    folders = [f for f in (package.parent / "queries", package / "_queries") if f.is_dir()]
    return {p.stem for folder in folders for p in folder.glob("*.sql")} if folders else None


def _unresolved(family: Family, reg: Registry) -> list[str]:
    """The names a declaration gives that name nothing: its engines, its policies, its charts,
    its queries folder and the named queries its report runs. Each would fail only when first
    used, in a game or a report, as an error that seems war's."""
    refs = [("its engine", family.play)] + [(f"policy {d.name}:{p.name}", p.play)
                                            for d in family.decisions for p in d.policies]
    refs += [("its charts", family.charts)] if family.charts else []
    out = [f"{what} {problem}" for what, ref in refs if isinstance(ref, str) for problem in [unresolved(ref)] if problem]
    if family.compiled and not _found(family.compiled):
        out.append(f"its compiled engine: no module {family.compiled}")
    if family.fast and not _found(family.fast):
        out.append(f"its fast path: no module {family.fast}")
    war = _war_queries()
    taken = (war or set()) | {p.stem for f in reg.families.values() if f.queries
                              for p in beside(f, f.queries).glob("*.sql")}
    mine: set[str] = set()
    if family.queries:
        folder = beside(family, family.queries)
        if not folder.is_dir():
            out.append(f"its queries folder {family.queries!r} is not beside its declaration ({folder})")
        mine = {p.stem for p in folder.glob("*.sql")}
        out += [f"its query {name!r} takes the name of another named query" for name in sorted(mine & taken)]
    out += [f"its report runs query {r.query!r}, which is no named query" for r in family.reports
            if war is not None and r.query not in taken | mine]
    return out


def _templates(family: Family) -> list[str]:
    """Each template of a family's kinds and decisions that names a field war does not fill."""
    templates = [(f"kind {k.name!r}", what, text) for k in family.events if not isinstance(k, str)
                 for what, text in [("its text", k.text), ("its deal_text", k.deal_text),
                                    *((f"its notes[{n!r}]", t) for n, t in k.notes.items())]]
    templates += [(f"decision {d.name!r}", what, text) for d in family.decisions
                  for what, text in (("its sentence", d.sentence), ("its title", d.title))]
    return [f"family {family.name!r}, {part}, {what} {text!r}: {', '.join(bad)} is no field war fills "
            f"(fields: {', '.join(FIELDS)}; conditions: {', '.join(CONDITIONS)})"
            for part, what, text in templates for bad in [unknown_fields(text)] if bad]


def _inconsistencies(family: Family, reg: Registry) -> list[str]:
    out: list[str] = []
    if not re.fullmatch(r"[a-z][a-z0-9_]*", family.name):
        out.append(f"family name {family.name!r}: lowercase letters, digits and _")
    if family.name in reg.families:
        out.append(f"a family {family.name!r} is already registered")
    if not family.variants:
        out.append("it declares no variant")
    known = {o.name for o in CORE_OPTIONS} | set(reg.options)
    out += _named_or_new(family.options, known, "option")
    names = set(family.option_names)
    out += _named_or_new(family.events, set(reg.kinds), "event kind")
    for d in family.decisions:
        out += d.problems()
        if d.name in reg.decisions:
            out.append(f"decision {d.name!r} is another family's")
    declared = {**reg.kinds, **{k.name: k for k in family.events if not isinstance(k, str)}}
    if family.decisions and not any(declared.get(k, Kind("", "", "")).role == "decides" for k in family.kind_names):
        out.append("its players decide, so its events include a kind that decides (`decision`)")
    for v in family.variants:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", v.name):
            out.append(f"variant name {v.name!r}: lowercase letters, digits and _")
        if v.name in reg.variants:
            out.append(f"variant {v.name!r} is another family's")
        for o in list(v.defaults) + list(v.options or ()):
            if o not in names:
                out.append(f"variant {v.name!r}: option {o!r} is not one of the family's")
    for profile, chosen in family.profiles.items():
        for decision, policy in chosen.items():
            d = next((d for d in family.decisions if d.name == decision), None)
            if d is None or d.policy(policy) is None:
                out.append(f"profile {profile!r}: {decision}:{policy} is not a decision and policy of the family")
    for o in family.compiled_options:
        if o not in names and o not in known:
            out.append(f"compiled option {o!r} is not an option")
    for o, values in family.fast_options.items():
        if o == "variant":
            out += [f"fast path variant {v!r} is not one of the family's" for v in values or ()
                    if v not in {x.name for x in family.variants}]
        elif o not in names and o not in known:
            out.append(f"fast path option {o!r} is not an option")
    if family.fast and not family.compiled:
        out.append("its fast path stands in for its compiled engine, and it declares none (`compiled`)")
    return out


def _add(reg: Registry, family: Family, module: str) -> None:
    family = replace(family, module=module)
    reg.families[family.name] = family
    by_name = {o.name: o for o in CORE_OPTIONS}
    for o in family.options:
        if not isinstance(o, str):
            reg.options[o.name] = o
        elif o not in reg.options:
            reg.options[o] = by_name[o]
    for k in family.events:
        if not isinstance(k, str):
            reg.kinds[k.name] = k
    for d in family.decisions:
        reg.decisions[d.name] = d
    for v in family.variants:
        options = v.options if v.options is not None else family.option_names
        reg.variants[v.name] = replace(v, family=family.name, options=tuple(options))


class _Unloaded(str):
    """What an entry point that does not load raised, in place of its declaration."""


def _points() -> list:
    """The entry points of war's family group, read again only when what is installed changes
    (model.entry_point_cache): each has `name`, `value`, `module` and `load()`."""
    from .entry_point_cache import points

    return points(GROUP)


def _outside() -> Iterable[tuple[str, str, object]]:
    """(where, module, declaration) of every family of the entry point group, by name (for one
    that does not load, what it raised: an _Unloaded)."""
    for ep in sorted(_points(), key=lambda e: e.name):
        where = f"`{ep.name} = {ep.value}`"
        try:
            family = ep.load()
        except KeyboardInterrupt:
            raise
        except BaseException as err:  # a broken package must not stop war: it is named and left out
            # (sys.exit() as it imports, too: its SystemExit would end every command that reads rule sets)
            said = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
            if isinstance(err, SystemExit):
                said = f"it exits as it is imported ({said})"
            yield where, ep.module, _Unloaded(said)
            continue
        yield where, ep.module, family


def build(outside: bool = True) -> Registry:
    """The registry of the built-in families and, with `outside`, of the entry point group's."""
    reg = Registry(kinds={k.name: k for k in CORE})
    for ref in BUILT_IN:
        family = load(ref)
        problems = _problems(family, reg, _module(ref), own=True)
        if problems:
            raise TypeError(f"built-in family {ref}: " + "; ".join(problems))
        _add(reg, family, _module(ref))
    reg = replace(reg, built_in=frozenset(reg.families))
    for where, module, family in (_outside() if outside else ()):
        if isinstance(family, _Unloaded):
            _left_out(reg, where, f"it does not load: {family}")
            continue
        problems = _problems(family, reg, module)
        if problems:
            _left_out(reg, where, "; ".join(problems[:3]) + ("; ..." if len(problems) > 3 else ""), family)
            continue
        _add(reg, family, module)
    for o in CORE_OPTIONS:
        reg.options.setdefault(o.name, o)
    return reg


def beside(family: Family, folder: str) -> Path:
    """A folder a family's declaration names (its queries, its golden playthroughs), beside the
    module that declares it."""
    return Path(importlib.import_module(family.module).__file__).resolve().parent / folder


@lru_cache(maxsize=2)
def registry(outside: bool = True) -> Registry:
    """The registry, read once (`outside=False`: the built-in families alone)."""
    return build(outside)
