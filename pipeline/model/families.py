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
import math
import re
import warnings
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from ..errors import QueryError
from .family import MAX_INT32, Decision, Family, Option, Variant, is_name, load, unresolved, wrong_types
from .kind import CONDITIONS, CORE, FIELDS, Kind, malformed, unknown_fields
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


# ---------------------------------------------------------------- named queries' files
# (jobs.query.registry runs them; read here too, so that a family's query file that does not
# parse leaves its family out when the family is read)

# `-- param: NAME TYPE [= DEFAULT] [>= LOW | > LOW] [<= HIGH | < HIGH] [-- help]`: a number's
# bounds are checked before the query is bound, whatever columns are asked for (a check in the SQL
# is pruned with its column). HIGH may be `players`, the most players of the dataset's rule sets
# (a seat's bound: `< players`), checked where the dataset is known (jobs.query.answer).
PARAM_LINE = re.compile(r"^--\s*param:\s*(\w+)\s+(\w+)\s*(?:=\s*(.*?))?\s*(?:(>=|>)\s*(-?[0-9.]+))?\s*"
                        r"(?:(<=|<)\s*(-?[0-9.]+|players))?\s*(?:--\s*(.*))?$")
TYPES = {"INTEGER": int, "BIGINT": int, "DOUBLE": float, "VARCHAR": str, "BOOLEAN": None, "SOLUTION": str}
PLAYERS = "players"  # the upper bound that is the dataset's most players
FIRST_SENTENCE = re.compile(r"^(.*?[.?!])(?:\s+(?=[A-Z(])|$)")


@dataclass
class Param:
    name: str
    type: str
    default: str | None
    help: str
    bound: tuple[str, float] | None = None  # (">=" or ">", the number) a number must be
    high: tuple[str, float | str] | None = None  # ("<=" or "<", the number or PLAYERS) a number must be

    def convert(self, text: str):
        if self.type == "BOOLEAN":
            if text.lower() in ("true", "1", "yes"):
                return True
            if text.lower() in ("false", "0", "no"):
                return False
            raise QueryError(f"parameter {self.name!r} wants true or false, got {text!r}")
        try:
            value = TYPES[self.type](text)
        except ValueError:
            raise QueryError(f"parameter {self.name!r} wants {self.type.lower()}, got {text!r}") from None
        if self.type == "DOUBLE" and not math.isfinite(value):
            raise QueryError(f"parameter {self.name!r} wants a finite number, got {text!r}", params=("params",))
        if type(value) is int and not -2**63 <= value < 2**63:  # DuckDB binds no wider integer
            raise QueryError(f"parameter {self.name!r} wants a 64-bit integer, got {text!r}", params=("params",))
        low_ok = self.bound is None or not (value < self.bound[1] or self.bound[0] == ">" and value == self.bound[1])
        high = None if self.by_players else self.high
        high_ok = high is None or not (value > high[1] or high[0] == "<" and value == high[1])
        if not (low_ok and high_ok):
            raise QueryError(f"parameter {self.name} must be {self._range(high)}, got {text}", params=("params",))
        return value

    @property
    def by_players(self) -> bool:
        """Whether its upper bound is the dataset's players, checked once a dataset is open."""
        return self.high is not None and self.high[1] == PLAYERS

    def check_players(self, value, players: int) -> None:
        """Refuse `value` beyond its `< players` (or `<= players`) bound, given the most players
        of the dataset's rule sets: a seat no rule set has would answer empty shares, not an error."""
        if not self.by_players:
            return
        op = self.high[0]
        if value > players or op == "<" and value == players:
            said = f"below {players}" if op == "<" else f"at most {players}"
            raise QueryError(f"parameter {self.name} must be {said} (the dataset's rule sets seat at most "
                             f"{plural(players, 'player')}), got {value}", params=("params",))

    @property
    def bounds(self) -> str:
        """Its bounds as the header writes them (`> 0 < 40`, `>= 0 < players`), "" for none."""
        return " ".join(f"{op} {n:g}" if isinstance(n, float) else f"{op} {n}"
                        for op, n in (b for b in (self.bound, self.high) if b is not None))

    def _range(self, high) -> str:
        """The numbers the bounds allow, in words: `positive and below 40`."""
        parts = []
        if self.bound is not None:
            op, low = self.bound
            parts.append(f"at least {low:g}" if op == ">=" else "positive" if low == 0 else f"above {low:g}")
        if high is not None:
            op, top = high
            parts.append(f"at most {top:g}" if op == "<=" else f"below {top:g}")
        return " and ".join(parts)


@dataclass
class NamedQuery:
    name: str
    answers: str
    sql: str
    params: list[Param] = field(default_factory=list)
    summary: str = ""
    exact: str = ""  # `every deal`: rows only for rule sets that play every deal; else what is exact
    source: str = ""  # where its file is: `queries/NAME.sql`, or in its family's folder
    dataset: str = "games"  # what it asks: a dataset of games, or (`solution`) a solution of war solve

    @property
    def body(self) -> str:
        """The SQL without its header comment."""
        lines = self.sql.splitlines()
        while lines and lines[0].startswith("--"):
            lines.pop(0)
        return "\n".join(lines).strip() + "\n"

    def bind(self, params: dict[str, str], solution: str | None = None) -> dict:
        """The values of this query's parameters: those of `params` {name: value as text}
        converted to their types, the defaults for the rest; a SOLUTION parameter, taken out
        before (`solution`: its folder), is not bound."""
        known = {p.name: p for p in self.params if not (p.type == "SOLUTION" and solution is not None)}
        for key in params:
            if key not in known:
                raise QueryError(f"query {self.name!r} has no parameter {key!r}"
                                 f" (it takes: {', '.join(known) or 'none'})")
        bound = {}
        for p in known.values():
            if p.name in params:
                bound[p.name] = p.convert(params[p.name])
            elif p.default is not None:
                bound[p.name] = p.convert(p.default)
            else:
                raise QueryError(f"query {self.name!r} needs `params` {p.name}=...", params=("params",))
        return bound


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def parse_query(path: Path, source: str | None = None) -> NamedQuery:
    text = path.read_text(encoding="utf-8")
    answers, params, summary, exact, dataset = [], [], "", "", "games"
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        m = PARAM_LINE.match(line)
        if m:
            name, type_, default, op, low, high_op, high, help_ = m.groups()
            type_ = type_.upper()
            if type_ not in TYPES:
                raise QueryError(f"{path.name}: parameter {name!r} has unknown type {type_}")
            for given, number in ((op, low), (high_op, high)):
                if given is not None and type_ not in ("INTEGER", "BIGINT", "DOUBLE"):
                    raise QueryError(f"{path.name}: parameter {name!r} of type {type_} takes no bound "
                                     f"({given} {number})")
            if high == PLAYERS and type_ == "DOUBLE":
                raise QueryError(f"{path.name}: parameter {name!r}: only an integer is bounded by {PLAYERS}")
            try:
                bound = None if op is None else (op, float(low))
                top = None if high_op is None else (high_op, high if high == PLAYERS else float(high))
            except ValueError:
                bad = f"{op} {low}" if op is not None and not _number(low) else f"{high_op} {high}"
                raise QueryError(f"{path.name}: parameter {name!r}: its bound {bad} is not a number") from None
            if bound is not None and top is not None and top[1] != PLAYERS and not (
                    bound[1] < top[1] or bound[1] == top[1] and bound[0] == ">=" and top[0] == "<="):
                raise QueryError(f"{path.name}: parameter {name!r}: its bounds {op} {low} and {high_op} {high} "
                                 f"leave no number")
            param = Param(name, type_, default, help_ or "", bound, top)
            if default is not None and type_ != "SOLUTION":
                try:  # a default its own type or bound refuses fails every run that does not give it
                    param.convert(default)
                except QueryError as err:
                    raise QueryError(f"{path.name}: parameter {name!r}: its default {default!r} is refused "
                                     f"({err})") from None
            params.append(param)
        elif line.startswith("-- summary:"):
            summary = line.removeprefix("-- summary:").strip()
        elif line.startswith("-- exact:"):
            exact = line.removeprefix("-- exact:").strip()
        elif line.startswith("-- dataset:"):
            dataset = line.removeprefix("-- dataset:").strip()
        elif line.startswith("-- answers:"):
            answers.append(line.removeprefix("-- answers:").strip())
        elif answers and line.startswith("--   "):
            answers.append(line[2:].strip())
    if not answers:
        raise QueryError(f"{path.name}: header has no `-- answers:` line")
    answer = " ".join(answers)
    if not summary:
        m = FIRST_SENTENCE.match(answer)
        summary = m.group(1) if m else answer
    return NamedQuery(path.stem, answer, text, params, summary, exact, source or f"{path.parent.name}/{path.name}",
                      dataset)


class FamilyWarning(UserWarning):
    """An outside family left out: what war could not read of it."""


def _left_out(reg: Registry, where: str, why: str, family=None) -> None:
    """Keep that the family of an entry point is left out, and why (its first problems), for the
    warning build says once the registry is read and for the reader of a dataset of its
    variants (Registry.unplayed); and what it declares, for a family that names it."""
    reg.left_out[where] = why
    variants = getattr(family, "variants", ())
    for v in variants if isinstance(variants, (tuple, list)) else ():
        if isinstance(getattr(v, "name", None), str):
            reg.left_out_variants.setdefault(v.name, where)
    for part in _declares(family):
        reg.left_out_names.setdefault(part, where)


def _warn(where: str, why: str) -> None:
    """The warning that the family of an entry point is left out, as a line of war's, not of the
    code that happened to read the registry."""
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
    # who declares each name, by (part, name) (part: `option`, `event kind`, ... as _declares
    # says): a family's name ("" or none: war's own)
    holders: dict[tuple[str, str], str] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)  # an outside family's entry point, by its name
    left_out_names: dict[tuple[str, str], str] = field(default_factory=dict)  # what a left-out family declares

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


def _held_by(reg: Registry, holder: str | None) -> str:
    """Who holds a name, for a line that says a family cannot take it: war itself, a built-in
    family, or an outside family with its entry point and package."""
    if not holder:
        return "war's own"
    where = reg.origins.get(holder)
    if not where:
        return f"war's built-in family {holder!r}"
    family = reg.families.get(holder)
    package = family.module.split(".")[0] if family is not None and family.module else "?"
    return f"the family {holder!r} of entry point {where}, package {package}"


def _taken(reg: Registry, part: str, name: str, said: str, clashes: list | None) -> str:
    """The problem of a family that declares `name` (a `part`: option, event kind, ...) that
    another holds: `said`, and who holds it. A clash with an outside family is kept in
    `clashes` too (build leaves both out)."""
    holder = reg.holders.get((part, name), "")
    if clashes is not None:
        clashes.append((part, name, holder))
    return f"{said} ({_held_by(reg, holder)})"


def _twice(names: list[str], what: str, declared: set[str] | None = None) -> list[str]:
    """A name a family gives twice in one list of its declaration (its kinds, options,
    decisions, variants): one would stand for the other, or every game of it fail validation.
    `declared`: those of the names it declares (not names of war's or another family's)."""
    counts = {n: names.count(n) for n in names if isinstance(n, str)}
    return [f"{what} {n!r} is {'declared' if declared is None or n in declared else 'given'} twice"
            for n, count in counts.items() if count > 1]


def _named_or_new(items, known: set[str], what: str, reg: Registry | None = None,
                  clashes: list | None = None) -> list[str]:
    """What is wrong with a family's list of options or kinds: a name must be one declared
    already (by war or a family before), a declaration one not declared yet; and none given
    twice."""
    out = []
    own = {item.name for item in items if not isinstance(item, str)}
    declarations = [item.name for item in items if not isinstance(item, str)]
    out += _twice([item if isinstance(item, str) else item.name for item in items], what,
                  {n for n in own if declarations.count(n) > 1})
    for item in items:
        if isinstance(item, str):
            if item not in known and item not in own:
                where = reg.left_out_names.get((what, item)) if reg is not None else None
                out.append(f"{what} {item!r} is declared by no family and not by war" if where is None else
                           f"{what} {item!r} is declared only by the family of entry point {where}, left out")
            continue
        out += item.problems()
        if item.name in known:
            said = f"{what} {item.name!r} is declared already"
            if reg is not None:
                said = _taken(reg, what, item.name, said, clashes)
            out.append(f"{said}; name it instead of declaring it again")
    return out


def _problems(family: Family, reg: Registry, module: str, own: bool = False,
              clashes: list | None = None) -> list[str]:
    """What keeps `family` (declared in `module`) out of the registry `reg` built so far: a part
    of the wrong type (an `int` among its options) first, then what does not hold together,
    then a name that names nothing and a template field war does not fill. For war's `own`
    families only what holds together with the rest: their types and names are war's code,
    held by its tests (tests/test_families.py), and reading their sources (ast) cost every
    command 0.1 s. A name it declares that an outside family read before holds is kept in
    `clashes` too, (part, name, holder), as _taken says."""
    if own:
        return _inconsistencies(family, reg)
    if not isinstance(family, Family):
        return [f"it is a {type(family).__name__}, not a pipeline.model.family.Family"]
    mistyped = wrong_types(family)
    if mistyped:
        return mistyped
    try:
        return (_inconsistencies(family, reg, clashes) + _unresolved(replace(family, module=module), reg, clashes)
                + _templates(family))
    except Exception as err:  # what the types do not say (a check that fails on the values)
        if clashes is not None:
            clashes.clear()  # its own mistake, whatever it shares with another family
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


def _unresolved(family: Family, reg: Registry, clashes: list | None = None) -> list[str]:
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
    taken = {p.stem: f.name for f in reg.families.values() if f.queries for p in beside(f, f.queries).glob("*.sql")}
    taken.update(dict.fromkeys(war or (), ""))
    mine: dict[str, Path] = {}
    parsed: dict[str, NamedQuery] = {}
    if family.queries:
        folder = beside(family, family.queries)
        if not folder.is_dir():
            out.append(f"its queries folder {family.queries!r} is not beside its declaration ({folder})")
        mine = {p.stem: p for p in sorted(folder.glob("*.sql"))}
        clashing = replace(reg, holders={("query", n): holder for n, holder in taken.items()})
        out += [_taken(clashing, "query", name, f"its query {name!r} takes the name of another named query", clashes)
                for name in sorted(set(mine) & set(taken))]
        for name, path in mine.items():  # a header that does not parse broke `war query` for every dataset
            try:
                parsed[name] = parse_query(path)
            except QueryError as err:
                out.append(f"its query file {path}: {str(err).removeprefix(f'{path.name}: ')}")
            except (OSError, UnicodeDecodeError) as err:
                out.append(f"its query file {path} cannot be read: {type(err).__name__}: {err}")
    for r in family.reports:
        if war is not None and r.query not in set(taken) | set(mine):
            out.append(f"its report runs query {r.query!r}, which is no named query")
            continue
        query = parsed.get(r.query) if r.query in mine else _other_query(r.query, reg)
        if query is None:
            continue  # its file, not parsed: said above (or war's own folder is not there)
        try:  # what the report binds, checked as it will be: a parameter the query lacks, a value it refuses
            query.bind({str(k): v if isinstance(v, str) else str(v) for k, v in dict(r.params).items()})
        except QueryError as err:
            out.append(f"its report runs query {r.query!r} with parameters {dict(r.params)!r}: {err}")
    return out


def _other_query(name: str, reg: Registry) -> NamedQuery | None:
    """The named query `name` of war's own folder or of a family read before, parsed; None
    where it is not found or does not parse (war's own: its tests hold them; another family's:
    that family was read whole)."""
    package = Path(__file__).resolve().parent.parent
    folders = [f for f in (package.parent / "queries", package / "_queries") if f.is_dir()]
    folders += [beside(f, f.queries) for f in reg.families.values() if f.queries]
    for folder in folders:
        path = folder / f"{name}.sql"
        if path.is_file():
            try:
                return parse_query(path)
            except (QueryError, OSError, UnicodeDecodeError):
                return None
    return None


def _templates(family: Family) -> list[str]:
    """Each template of a family's kinds and decisions that names a field war does not fill, or
    that war would print as written (kind.malformed)."""
    templates = [(f"kind {k.name!r}", what, text) for k in family.events if not isinstance(k, str)
                 for what, text in [("its text", k.text), ("its deal_text", k.deal_text),
                                    *((f"its notes[{n!r}]", t) for n, t in k.notes.items())]]
    templates += [(f"decision {d.name!r}", what, text) for d in family.decisions
                  for what, text in (("its sentence", d.sentence), ("its title", d.title))]
    out = [f"family {family.name!r}, {part}, {what} {text!r}: {', '.join(bad)} is no field war fills "
           f"(fields: {', '.join(FIELDS)}; conditions: {', '.join(CONDITIONS)})"
           for part, what, text in templates for bad in [unknown_fields(text)] if bad]
    return out + [f"family {family.name!r}, {part}, {what} {text!r}: a malformed template, war would print it as "
                  f"written: {'; '.join(bad)}" for part, what, text in templates for bad in [malformed(text)] if bad]


def _inconsistencies(family: Family, reg: Registry, clashes: list | None = None) -> list[str]:
    out: list[str] = []
    if not is_name(family.name):
        out.append(f"family name {family.name!r}: lowercase letters, digits and _")
    if family.name in reg.families:
        out.append(_taken(reg, "family", family.name, f"a family {family.name!r} is already registered", clashes))
    if not family.variants:
        out.append("it declares no variant")
    known = {o.name for o in CORE_OPTIONS} | set(reg.options)
    out += _named_or_new(family.options, known, "option", reg, clashes)
    names = set(family.option_names)
    out += _named_or_new(family.events, set(reg.kinds), "event kind", reg, clashes)
    out += _twice(list(family.decision_names), "decision")
    for d in family.decisions:
        out += d.problems()
        if d.name in reg.decisions:
            out.append(_taken(reg, "decision", d.name, f"decision {d.name!r} is another family's", clashes))
    declared = {**reg.kinds, **{k.name: k for k in family.events if not isinstance(k, str)}}
    if family.decisions and not any(declared.get(k, Kind("", "", "")).role == "decides" for k in family.kind_names):
        out.append("its players decide, so its events include a kind that decides (`decision`)")
    out += _twice([v.name for v in family.variants], "variant")
    options = {o.name: o for o in CORE_OPTIONS} | reg.options | {o.name: o for o in family.options
                                                               if not isinstance(o, str)}
    for v in family.variants:
        if not is_name(v.name):
            out.append(f"variant name {v.name!r}: lowercase letters, digits and _")
        if v.name in reg.variants:
            out.append(_taken(reg, "variant", v.name, f"variant {v.name!r} is another family's", clashes))
        for o in list(v.defaults) + list(v.options or ()):
            if o not in names:
                out.append(f"variant {v.name!r}: option {o!r} is not one of the family's")
        out += _variant_defaults(v, options)
    for profile, chosen in family.profiles.items():
        # `--policy 0=NAME` reads a profile first: `default` would hide every decision's
        # default, and a policy's name another meaning than that policy's
        same = [d.name for d in family.decisions if d.policy(profile) is not None]
        if profile == "default" or not is_name(profile) or \
                same and any(chosen.get(d) != profile for d in same):
            out.append(f"profile {profile!r}: a name of lowercase letters, digits and _, not `default` (every "
                       f"decision's default), nor a policy's name unless it plays that policy wherever it can")
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


def _variant_defaults(v: Variant, options: dict[str, Option]) -> list[str]:
    """What is wrong with a variant's defaults that its options say (each a value the option
    takes: a value its option refuses fails every command that lists or plays the variant, the
    other families' too) and its own rules (its seats, its deck)."""
    out = [f"variant {v.name!r}: its default {o}={value!r} {why}" for o, value in v.defaults.items()
           if o in options for why in [options[o].refuses(value)] if why]
    players = v.defaults.get("players", options["players"].default)
    if v.fixed_players is not None and players != v.fixed_players:
        out.append(f"variant {v.name!r}: it is played by exactly {v.fixed_players} players, and its default "
                   f"players={players!r}")
    deck = (v.defaults.get("ranks", options["ranks"].default), v.defaults.get("suits", options["suits"].default))
    if v.standard_deck and deck != (13, 4):
        out.append(f"variant {v.name!r}: it is played with the standard deck, and its defaults ranks={deck[0]!r}, "
                   f"suits={deck[1]!r}")
    return out


def _declares(family, typed: bool = False) -> set[tuple[str, str]]:
    """The names a declaration takes, each (part, name): its family's, its variants', the
    options, kinds and decisions it declares, its named queries'. None for one that is not a
    well-typed Family (`typed`: known to be one)."""
    if not typed and (not isinstance(family, Family) or wrong_types(family)):
        return set()
    out = {("family", family.name)} | {("variant", v.name) for v in family.variants}
    out |= {("option", o.name) for o in family.options if not isinstance(o, str)}
    out |= {("event kind", k.name) for k in family.events if not isinstance(k, str)}
    out |= {("decision", d.name) for d in family.decisions}
    try:
        if family.queries and family.module:
            out |= {("query", p.stem) for p in beside(family, family.queries).glob("*.sql")}
    except Exception:  # its folder, not found: its own problem, said by _unresolved
        pass
    return out


def _add(reg: Registry, family: Family, module: str, where: str = "") -> None:
    family = replace(family, module=module)
    reg.families[family.name] = family
    if where:
        reg.origins[family.name] = where
    for part in _declares(family, typed=True):
        reg.holders.setdefault(part, family.name)
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
    """The registry of the built-in families and, with `outside`, of the entry point group's,
    each outside family left out said in one warning line.

    Outside families are read in their entry points' order (by name), each checked against war
    and those read before it. A name two outside families both declare (a family, variant,
    option, event kind, decision or named query) is neither's: when a family would join but for
    names an outside family read before it holds, both are left out, and every outside family
    that declares such a name, each warning naming the others (docs/plugins.md, "When two
    families clash"); the registry is read again without them. Which is installed first, or
    named first, does not decide. A name war or a built-in family holds is theirs."""
    read = {}  # an entry point two distributions give alike names one module: read once
    for where, module, family in _outside() if outside else ():
        read.setdefault(where, (where, module, family, _declares(replace(family, module=module))
                                if isinstance(family, Family) else set()))
    points = list(read.values())
    contested: dict[tuple[str, str], dict[str, str]] = {}
    while True:
        reg, clashed = _read(points, contested)
        if not clashed:
            break
        for part in clashed:
            contested[part] = {where: _described(family.name, where, module)
                               for where, module, family, declares in points if part in declares}
    for where, why in reg.left_out.items():
        _warn(where, why)
    return reg


def _described(name: str, where: str, module: str) -> str:
    """An outside family as a line names it: its name, its entry point, its package."""
    return f"the family {name!r} of entry point {where}, package {module.split('.')[0]}"


def _contests(name: str, declares: set[tuple[str, str]], where: str,
              contested: dict[tuple[str, str], dict[str, str]]) -> list[str]:
    """Why a family that declares names other outside families declare too is left out: one
    sentence for each set of those others (`event kind 'grab' and decision 'grab' are ...`)."""
    by: dict[tuple[str, ...], list[str]] = {}
    for part in sorted(declares & set(contested)):
        others = tuple(said for w, said in contested[part].items() if w != where)
        by.setdefault(others, []).append(f"{part[0]} {part[1]!r}")
    return [f"{' and '.join(parts)} {'are' if len(parts) > 1 else 'is'} declared by it, family {name!r}, and by "
            f"{' and by '.join(others)}: "
            f"a name two installed families declare is neither's, so each is left out (uninstall one, or rename "
            f"{'them' if len(parts) > 1 else 'it'} in one)" for others, parts in by.items()]


def _read(points: list, contested: dict[tuple[str, str], dict[str, str]]) -> tuple[Registry, list]:
    """The registry of the built-in families and of `points` ((where, module, declaration, the
    names it declares)), those declaring a `contested` name left out (each with who else does);
    and the names an outside family holds that a later one, else fine, declares again (none:
    the registry is read)."""
    reg = Registry(kinds={k.name: k for k in CORE})
    for ref in BUILT_IN:
        family = load(ref)
        problems = _problems(family, reg, _module(ref), own=True)
        if problems:
            raise TypeError(f"built-in family {ref}: " + "; ".join(problems))
        _add(reg, family, _module(ref))
    reg = replace(reg, built_in=frozenset(reg.families))
    for where, module, family, declares in points:
        if isinstance(family, _Unloaded):
            _left_out(reg, where, f"it does not load: {family}")
            continue
        clashes: list = []
        problems = _contests(getattr(family, "name", "?"), declares, where, contested)
        problems += _problems(family, reg, module, clashes=clashes)
        outside = [c for c in clashes if c[2] in reg.origins]
        if problems and outside and len(outside) == len(problems):  # it would join but for another's names
            return reg, [c[:2] for c in outside]
        if problems:
            _left_out(reg, where, "; ".join(problems[:3]) + ("; ..." if len(problems) > 3 else ""), family)
            continue
        _add(reg, family, module, where)
    for o in CORE_OPTIONS:
        reg.options.setdefault(o.name, o)
    return reg, []


def beside(family: Family, folder: str) -> Path:
    """A folder a family's declaration names (its queries, its golden playthroughs), beside the
    module that declares it."""
    return Path(importlib.import_module(family.module).__file__).resolve().parent / folder


@lru_cache(maxsize=2)
def registry(outside: bool = True) -> Registry:
    """The registry, read once (`outside=False`: the built-in families alone)."""
    return build(outside)


def no_family(name: str) -> str:
    """Why no installed family is named `name`, in one line: its package is installed but left
    out (and why: the registry keeps it, model.families), or `name` is a variant's (and of which
    family), or no family has it."""
    reg = registry()
    where = next((w for w in reg.left_out if w.startswith(f"`{name} = ")), None)  # its entry point, by name
    if where is not None:
        return f"family {name!r} is installed but left out (entry point {where}): {reg.left_out[where]}"
    said = f"no family {name!r} is installed"
    if name in reg.variants:
        return f"{said}: {name!r} is a variant of family {reg.variants[name].family!r}"
    if name in reg.left_out_variants:
        where = reg.left_out_variants[name]
        return (f"{said}: {name!r} is a variant of the family of entry point {where}, installed but left out: "
                f"{reg.left_out[where]}")
    return f"{said} (installed: {', '.join(reg.families)})"


def family_named(name: str) -> Family:
    """The installed family `name` (model.family.Family); RulesError saying why there is none
    (no_family), not a bare KeyError."""
    from ..errors import RulesError

    family = registry().families.get(name) if isinstance(name, str) else None
    if family is None:
        raise RulesError(no_family(name) if isinstance(name, str) else f"a family is named by a text, not {name!r}")
    return family


def plugins_fault(err: BaseException, family: Family | None) -> bool:
    """Whether `err`, raised out of a family's own code (its engine, a policy's function, an
    option's check), is that plugin's fault, to be said as the plugin's error (PluginError,
    CheckFault) naming it: not when the family is war's own (None, or built in: war's bug, said
    as one), nor for a WarError (war's own words, passed on as they are), a MemoryError, or a
    Ctrl-C the plugin's code turned into another error. One answer for every place war calls
    a plugin's code."""
    from ..errors import WarError, ctrl_c_pressed, interrupted

    return not (family is None or family.name in registry().built_in or isinstance(err, (WarError, MemoryError))
                or interrupted(err) or ctrl_c_pressed())
