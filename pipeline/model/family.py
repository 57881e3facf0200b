"""What a family of variants declares about itself, in one place: the types a declaration is
made of. The built-in families (`pipeline/engines/table/`, `steal/`, `arneson/`) fill them in
their folder's `__init__.py`, exactly as an outside family does in its package (docs/plugins.md),
and model.families reads them all.

A declaration is data. Its engines are named, not imported (`"package.module:function"`), so war
reads every declaration before it imports any engine; the engines load when a game is played.
A declaration's module imports only this module (and its own policies).
"""

from __future__ import annotations

import ast
import collections.abc
import dataclasses
import importlib
import importlib.util
import numbers
import re
import sys
import types
import typing
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping

from ..errors import brief
from .kind import Kind

ANY = None  # an option the compiled engine (or a fast path) plays at every value

MAX_DECK = 32_768            # card codes 0 .. 32767
MAX_INT32 = 2**31 - 1        # battles, wars, a war's size


def is_name(text) -> bool:
    """Whether `text` is a name a declaration may give (a family, variant, option, decision, policy
    or profile): lowercase letters, digits and _, a letter first, as `--set`, `--policy` and a
    rule set's label carry it."""
    return isinstance(text, str) and re.fullmatch(r"[a-z][a-z0-9_]*", text) is not None


def load(ref: str | Callable) -> Any:
    """What a declaration names: `"package.module:attribute"` imported (a callable is itself)."""
    return _imported(ref) if isinstance(ref, str) else ref


@lru_cache(maxsize=None)
def _imported(ref: str) -> Any:
    module, _, attribute = ref.partition(":")
    value = importlib.import_module(module)
    for part in attribute.split(".") if attribute else ():
        value = getattr(value, part)
    return value


def unresolved(ref: str) -> str | None:
    """What keeps `"package.module:attribute"` from naming anything, or None: its module found
    and the attribute bound at its top level, read from its source without running it (war
    reads every declaration before it imports an engine), so that a misspelt name is the
    declaration's problem when the family is read, not a failure of the first game."""
    module, colon, attribute = ref.partition(":")
    if not (module and colon and attribute):
        return f"{ref!r} is not \"module:function\""
    first = attribute.split(".")[0]
    try:
        spec = importlib.util.find_spec(module)
    except Exception as err:  # a parent package that is not there, or does not import
        return f"{ref!r}: its module does not load ({type(err).__name__}: {err})"
    if spec is None:
        return f"{ref!r}: no module {module}"
    try:
        bound = _binds(spec, first)
    except SyntaxError as err:
        return f"{ref!r}: its module does not parse (line {err.lineno}: {err.msg})"
    if bound is None:  # no source to read: the module itself, when it is loaded already
        bound = module not in sys.modules or hasattr(sys.modules[module], first)
    return None if bound else f"{ref!r}: module {module} has no {first}"


def _binds(spec, name: str) -> bool | None:
    """Whether the module of `spec` binds `name` at its top level (a def, class, assignment or
    import, also under an if or try), or is a package with a submodule `name`; True when its
    source says it may (a `from ... import *`, a module __getattr__), None when it has none."""
    if any((Path(place) / f"{name}.py").is_file() or (Path(place) / name / "__init__.py").is_file()
           for place in spec.submodule_search_locations or ()):
        return True
    if not (spec.origin or "").endswith(".py"):
        return None
    try:
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"), spec.origin)
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    bound: set[str] = set()
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {a.asname or a.name.split(".")[0] for a in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With)):
            targets = node.targets if isinstance(node, ast.Assign) else [
                getattr(node, "target", None), *[i.optional_vars for i in getattr(node, "items", ())]]
            bound |= {n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)}
        if isinstance(node, (ast.If, ast.Try, ast.For, ast.With, ast.While)):
            todo += [*node.body, *getattr(node, "orelse", ()), *getattr(node, "finalbody", ()),
                     *(s for h in getattr(node, "handlers", ()) for s in h.body)]
    return name in bound or bool(bound & {"*", "__getattr__"})


class NoChoices(tuple):
    """The default of Option.choices, an empty tuple to every reader: no choices declared, told
    apart from `choices=()`, which the declaration check refuses (it would silently limit nothing)."""


NO_CHOICES = NoChoices()


@dataclass(frozen=True)
class Option:
    """One option of a rule set: a field of model.schema.RuleSet, a column of the `rules` view,
    an OPTION=VALUE of `--set` and a key of a rule file.

    An integer option (its default an int) may take only `choices`, a range `minimum` ..
    `maximum`, and some words besides (`words`: war_down's `by_rank`); a choice option (a text
    default with `choices`) one of its choices, each a word (CHOICE: what a rule set's name, a
    rule file and `--set OPTION=VALUE` all carry); a text option any text matching `pattern`.
    `choices` left out (NO_CHOICES) limits nothing; given, it holds at least one.
    `check(rules)` says what is wrong with a whole rule set because of this option (None when
    nothing), for conditions across options. `said`: the words a rule set's description (the
    report's) says of a value, a mapping of values to words or `said(value) -> words or None`;
    a value with none is not said."""

    name: str
    default: int | str
    help: str
    choices: tuple = NO_CHOICES
    minimum: int | None = None
    maximum: int | None = None
    words: tuple[str, ...] = ()
    pattern: str = ""
    check: Callable[[Any], str | None] | None = None
    said: Mapping[Any, str] | Callable[[Any], str | None] | None = None

    def saying(self, value) -> str | None:
        """The words said of `value` in a rule set's description, or None."""
        if self.said is None:
            return None
        return self.said(value) if callable(self.said) else self.said.get(value)

    @property
    def integer(self) -> bool:
        return isinstance(self.default, int) and not isinstance(self.default, bool)

    def refuses(self, value) -> str | None:
        """What keeps `value` from being a value of this option, as the rule set's model
        (model.rule_set) holds it, in words that follow the value (`is outside 0..5`), or None
        when the model takes it: an integer option an integer (or one of its words), among its
        `choices` if it has some, else in its range; a choice option one of its choices; a text
        option a text its `pattern` matches. Its `check`, across options, is not asked here."""
        if self.integer:
            word = isinstance(value, str) and value in self.words
            if not word and (isinstance(value, bool) or not isinstance(value, int)):
                words = "".join(f" or {w!r}" for w in self.words)
                return f"is not an integer{words}"
            if self.choices and value not in self.choices:
                return f"is not one of its choices ({', '.join(map(str, self.choices))})"
            if word or (self.choices and not self.words):  # a range limits an integer without choices
                return None
            low, high = self.minimum, self.maximum
            if low is not None and high is not None and not low <= value <= high:
                return f"is outside {low}..{high}"
            if low is not None and value < low:
                return f"is below its minimum {low}"
            if high is not None and value > high:
                return f"is above its maximum {high}"
            return None
        if not isinstance(value, str):
            return "is not a text"
        if self.choices and value not in self.choices:
            return f"is not one of its choices ({', '.join(map(str, self.choices))})"
        if self.pattern and _pattern_problem(self.pattern) is None and not _matches(self.pattern, value):
            return f"does not match its pattern {self.pattern!r}"
        return None

    def problems(self) -> list[str]:
        out = []
        if not is_name(self.name) or self.name == "variant":
            out.append(f"option {self.name!r}: a name of lowercase letters, digits and _ (not `variant`)")
        if self.words and not self.integer:
            out.append(f"option {self.name!r}: only an integer option takes words besides")
        if not isinstance(self.choices, NoChoices):
            problem = self._choices_problem()
            if problem:
                out.append(f"option {self.name!r}: {problem}")
        if self.pattern and self.integer:
            out.append(f"option {self.name!r}: only a text option takes a pattern")
        elif self.pattern:
            problem = _pattern_problem(self.pattern)
            if problem:
                out.append(f"option {self.name!r}: its pattern {problem}")
        if _integer(self.minimum) and _integer(self.maximum) and self.minimum > self.maximum:
            out.append(f"option {self.name!r}: its minimum {self.minimum} is above its maximum {self.maximum}")
        elif isinstance(self.default, bool) or not isinstance(self.default, (int, str)):
            out.append(f"option {self.name!r}: its default is an integer or a text")
        else:  # a default the option refuses: its games played at a value `--set` refuses
            why = self.refuses(self.default)
            if why:
                out.append(f"option {self.name!r}: its default {self.default!r} {why}")
        return out

    def _choices_problem(self) -> str | None:
        """What is wrong with its `choices` (given): none at all, which would silently limit
        nothing; for an integer option one that is not an integer nor one of its words; for a
        choice option one that is not a word, which `--set OPTION=VALUE` cannot give (an empty
        text) or a rule set's name cannot hold (`order=bad value` splits at the space)."""
        if not self.choices:
            return "its choices are empty (leave `choices` out to limit nothing)"
        if self.integer:
            bad = [c for c in self.choices if not _integer(c) and c not in self.words]
            one, many = ("an integer", "integers") if not self.words else ("an integer or one of its words",
                                                                            "integers or its words")
        else:
            bad = [c for c in self.choices if not isinstance(c, str) or not CHOICE.fullmatch(c)]
            carry = " (letters, digits and _ . : + -, as a rule set's name and --set OPTION=VALUE carry them)"
            one, many = "a word" + carry, "words" + carry
        if not bad:
            twice = [c for i, c in enumerate(self.choices) if c in self.choices[:i]]
            return f"its choices name {', '.join(map(repr, dict.fromkeys(twice)))} twice" if twice else None
        listed = ", ".join(repr(c) if isinstance(c, str) else brief(c) for c in bad)
        return f"its choice {listed} is not {one}" if len(bad) == 1 else f"its choices {listed} are not {many}"


# A choice option's value: one word, which a rule set's name (`OPTION=VALUE` between spaces), a
# rule file and `--set OPTION=VALUE` all carry as it is.
CHOICE = re.compile(r"[\w.:+-]+")


@lru_cache(maxsize=None)
def _pattern_validator(pattern: str):
    """The validator of texts matching `pattern`, as the rule set's model (pydantic's `pattern`:
    a search, by its own regular expressions) holds them."""
    import pydantic_core

    return pydantic_core.SchemaValidator(pydantic_core.core_schema.str_schema(pattern=pattern))


def _pattern_problem(pattern: str) -> str | None:
    """What keeps `pattern` from being a pattern the rule set's model reads, or None. Python's
    re and the model's regular expressions differ (no look-around in the model's): a pattern of
    either's mistakes would break the model of every family's rule sets."""
    try:
        re.compile(pattern)
    except re.error as err:
        return f"is not a regular expression ({err})"
    try:
        _pattern_validator(pattern)
    except Exception as err:  # pydantic_core's SchemaError: several lines, the last says why
        lines = [line.strip() for line in str(err).splitlines() if line.strip()]
        return f"is not one war's validation reads ({lines[-1] if lines else type(err).__name__})"
    return None


def _matches(pattern: str, value: str) -> bool:
    import pydantic_core

    try:
        _pattern_validator(pattern).validate_python(value)
    except pydantic_core.ValidationError:
        return False
    return True


@dataclass(frozen=True)
class Variant:
    """A variant: a name, a title, where its rules are written (`rules`: docs/rules.md's section
    for the built-ins), a one-line summary, its defaults over the options' and the options a
    user may set (None: every option of its family), and `unsaid`, the options a rule set's
    description leaves out (Option.said) because the variant's own rules fix them or its family
    does not read them. The family is filled in by the registry."""

    name: str
    title: str
    rules: str
    summary: str
    defaults: Mapping[str, Any] = field(default_factory=dict)
    options: tuple[str, ...] | None = None
    standard_deck: bool = False  # played only with the 52-card deck (ranks=13, suits=4)
    fixed_players: int | None = None  # played by exactly this many seats
    unsaid: tuple[str, ...] = ()
    family: str = ""


@dataclass(frozen=True)
class Policy:
    """One way a player makes a decision: `play(view, rng) -> choice`, the view being what the
    engine shows the seat, rng the seat's own generator; with a `parameter` (what `:N` is, as
    `a pile size, e.g. steal:threshold:4`), `play(N)` makes that policy. `randomized`: it draws
    from rng, so no position of its games can be said to repeat."""

    name: str
    play: str | Callable
    help: str = ""
    parameter: str = ""
    randomized: bool = False

    def make(self, param: str = "") -> Callable:
        function = load(self.play)
        return function(int(param)) if self.parameter else function


@dataclass(frozen=True)
class Decision:
    """A kind of decision a family's players make, logged as a `decision` event whose note is
    its name. `chooses` says what the choice is, and so how it is read back from the log: "card",
    one card among the options (the event's cards); "seats", seats among the options, each once
    (the event's seats). `sentence` is what a person reads of one (model.kind's templates),
    `title` how the replay page heads it ("the top card of its won bundle"); `policies` the ways
    to decide, `default` the one a seat follows unless told. `war_depth`: its event's value is
    the depth of the war it is made in (0 in a battle without one), as Arneson's War's choice of
    a war's fourth card; else it has no value (the log's readers know it from here, not by its
    name)."""

    name: str
    chooses: str
    sentence: str
    title: str
    policies: tuple[Policy, ...]
    default: str
    war_depth: bool = False

    def policy(self, name: str) -> Policy | None:
        return next((p for p in self.policies if p.name == name), None)

    def problems(self) -> list[str]:
        out = []
        if not is_name(self.name):
            out.append(f"decision {self.name!r}: a name of lowercase letters, digits and _")
        if self.chooses not in CHOOSES:
            out.append(f"decision {self.name!r}: chooses {' or '.join(CHOOSES)}")
        if self.policy(self.default) is None:
            out.append(f"decision {self.name!r}: its default {self.default!r} is not one of its policies")
        elif self.policy(self.default).parameter:
            out.append(f"decision {self.name!r}: its default takes no parameter")
        names = [p.name for p in self.policies]
        out += [f"decision {self.name!r}: policy {name!r} is declared twice"
                for name in dict.fromkeys(n for n in names if names.count(n) > 1)]
        # `--policy 0=NAME:N`, `one:never,other:x`: a name that holds `:`, `,` or a space, or
        # `default` (every decision's default), could not be asked for
        out += [f"decision {self.name!r}: policy {name!r}: a name of lowercase letters, digits and _ "
                f"(not `default`)" for name in names
                if not is_name(name) or name == "default"]
        return out


CHOOSES = ("card", "seats")


def _integer(value) -> bool:
    """An integer (numpy's too), not True or False."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def wrong_choice(chooses: str, choice, options: tuple) -> str | None:
    """What is wrong with `choice`, a choice among `options` held as a decision that `chooses`
    (Decision.chooses) holds it: "card", one of the options; "seats", options each at most once.
    None when it is legal. The one rule of generation (a policy's answer), replay (the choice
    the log holds) and validation."""
    if chooses == "seats":
        try:
            seats = tuple(choice)
        except TypeError:
            return f"{brief(choice)}, not seats among its options {list(options)}"
        if not all(_integer(s) for s in seats) or len(set(seats)) != len(seats) or not set(seats) <= set(options):
            return f"seats {brief(list(seats))}, not seats among its options {list(options)}, each once"
        return None
    if not _integer(choice) or choice not in options:
        return f"{brief(choice)}, not one card among its options {list(options)}"
    return None


@dataclass(frozen=True)
class Report:
    """A named query the report runs (Family.report): its parameters; `shows`, what its rows
    show in the words of the line that says the report left it out ("Steal War's steals"; ""
    for its name alone); `when(rules) -> bool`, the rule sets it is about, given each one's
    options as a mapping (`rules.get("war_down") == "by_rank"`): it runs when the dataset has
    one (None: when it has a rule set of the family)."""

    query: str
    params: Mapping[str, str] = field(default_factory=dict)
    shows: str = ""
    when: Callable[[Mapping[str, Any]], bool] | None = None


@dataclass(frozen=True)
class Warm:
    """One build of a compiled engine (its games keep positions, or not) and the tiny game that
    loads or compiles it: a variant and options; `seconds`, what a first run's compile of it
    takes on a 2-core machine, and `title`, how that run names it (`compiling Steal War's
    engine, about 4 s, once per machine`; by default `the FAMILY engine`)."""

    keeps_positions: bool
    variant: str
    options: Mapping[str, str]
    seconds: float
    title: str = ""


@dataclass(frozen=True)
class Family:
    """A family of variants: what war knows of it, all of it (docs/plugins.md).

    - `options`: every option its games read, in the order `war variants` lists them: an Option
      declared here, or the name of one war declares (model.families.CORE_OPTIONS) or another
      family does;
    - `variants`: its variants; `events`: the kinds its games log, a Kind declared here or the
      name of one declared elsewhere (model.kind.CORE); `decisions` its players make, each with
      its policies; `profiles`, named sets of policies (`greedy`: {decision: policy});
    - `play`: its reference engine, `play(rules, deal, chance, recorder, chooser) -> Summary`,
      the readable definition of its rules (engines.game calls it);
    - `compiled`: its compiled engine's module ("" for none: its games are played by the
      reference), the options and values it plays (ANY: every value; an option not named, set
      away from its default, sends the games to the reference), its builds' warm-up games;
    - `fast`: a fast path's module ("" for none), an engine that gives the games rows alone (no
      events) of the rule sets it plays, in the compiled engine's stead, and `fast_options`, the
      options and values it plays, read as `compiled_options` are (`variant` may be named too):
      a game of any other value goes to the compiled engine, so a new option or value is never
      played by a fast path that does not know it (engines.choice says its entry points);
    - `won_piles`, `hands`: whether seats keep a won pile beside their pile, or hold a hand;
    - `queries`: a folder of named queries (`.sql`, as queries/ holds) beside the declaration;
      `report`: those the report runs, each a Report (or `(query, params)`, run for the
      family's rule sets);
      `golden`: the folder of its golden playthroughs beside the declaration ("" for tests/golden);
      `charts`: its charts, `"module:function"`, `charts(data, variant, palette) -> [Figure or
      None]` (present.charts), drawn under "Rules of this variant" in the report's section of
      every variant whose rows they have ("" for none).
    """

    name: str
    play: str | Callable
    options: tuple[Option | str, ...] = ()
    variants: tuple[Variant, ...] = ()
    events: tuple[Kind | str, ...] = ()
    decisions: tuple[Decision, ...] = ()
    profiles: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    won_piles: bool = False
    hands: bool = False
    compiled: str = ""
    compiled_options: Mapping[str, tuple | None] = field(default_factory=dict)
    warm: tuple[Warm, ...] = ()
    fast: str = ""
    fast_options: Mapping[str, tuple | None] = field(default_factory=dict)
    queries: str = ""
    report: tuple[Report | tuple[str, Mapping[str, str]], ...] = ()
    golden: str = ""
    charts: str = ""
    module: str = ""  # where it was declared (filled in by the registry): its folders are beside it

    @property
    def decision_names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.decisions)

    @property
    def kind_names(self) -> tuple[str, ...]:
        return tuple(k if isinstance(k, str) else k.name for k in self.events)

    @property
    def option_names(self) -> tuple[str, ...]:
        return tuple(o if isinstance(o, str) else o.name for o in self.options)

    @property
    def reports(self) -> tuple[Report, ...]:
        """Its `report`, each a Report (a `(query, params)` pair read as one)."""
        return tuple(r if isinstance(r, Report) else Report(r[0], r[1]) for r in self.report)

    def has_won_piles(self, rules) -> bool:
        """Whether a seat keeps a won pile: the family's own, or pickup=pooled in any family."""
        return self.won_piles or rules.pickup == "pooled"

    def reference(self) -> Callable:
        """Its reference engine, imported on first use."""
        return load(self.play)


# ---------------------------------------------------------------- the types of a declaration's parts


def wrong_types(declaration) -> list[str]:
    """What in a declaration (a Family, and every Option, Variant, Kind, Decision, Policy and
    Warm in it) is not of the type its part is declared with, each named by where it is
    (`options[8]`, `decisions[0].policies[1].play`): a package's mistake that would otherwise
    fail far from it, in whatever command first read it."""
    return _typed(declaration, Family, "it")[:3]


@lru_cache(maxsize=None)
def _hints(cls) -> dict:
    return typing.get_type_hints(cls)


def _outer_fits(value, hint) -> bool:
    """Whether `value` is of the outer type of `hint` (a tuple for tuple[...], ...)."""
    origin = typing.get_origin(hint) or hint
    if hint is Any:
        return True
    if hint is None or hint is type(None):
        return value is None
    if origin in (tuple, list, collections.abc.Sequence):
        return isinstance(value, (tuple, list))
    if origin in (collections.abc.Mapping, dict):
        return isinstance(value, collections.abc.Mapping)
    if origin is collections.abc.Callable:
        return callable(value) and not isinstance(value, (str, bytes))
    if origin is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if origin is int:
        return _integer(value)
    if origin is bool:
        return isinstance(value, bool)
    return isinstance(value, origin) if isinstance(origin, type) else True


def _said(hint) -> str:
    origin = typing.get_origin(hint) or hint
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_said(arm) for arm in typing.get_args(hint))
    named = {str: "a text", int: "an integer", bool: "True or False", float: "a number", tuple: "a tuple",
             list: "a tuple", collections.abc.Mapping: "a mapping", dict: "a mapping",
             collections.abc.Callable: "a callable (or \"module:function\")", type(None): "None"}
    if hint is None:
        return "None"
    if origin in named:
        return named[origin]
    name = getattr(origin, "__name__", str(origin))
    return f"an {name}" if name[:1].lower() in "aeiou" else f"a {name}"


def _typed(value, hint, where: str) -> list[str]:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        for arm in args:
            if _outer_fits(value, arm):
                return _typed(value, arm, where)
        return [_wrong(value, hint, where)]
    if not _outer_fits(value, hint):
        return [_wrong(value, hint, where)]
    out: list[str] = []
    if origin in (tuple, list, collections.abc.Sequence) and args:
        if len(args) == 2 and args[1] is Ellipsis or origin is not tuple:
            for i, item in enumerate(value):
                out += _typed(item, args[0], f"{where}[{i}]")
        elif len(value) != len(args):
            out.append(f"{where}: {brief(value)} holds {len(value)} parts, not {len(args)}")
        else:
            for i, (item, arm) in enumerate(zip(value, args)):
                out += _typed(item, arm, f"{where}[{i}]")
    elif origin in (collections.abc.Mapping, dict) and args:
        for key, item in value.items():
            out += _typed(key, args[0], f"{where}: key {brief(key)}")
            out += _typed(item, args[1], f"{where}[{brief(key)}]")
    elif isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = _hints(hint)
        for f in dataclasses.fields(hint):
            out += _typed(getattr(value, f.name), hints[f.name], f"{where}.{f.name}" if where != "it" else f.name)
    return out


def _wrong(value, hint, where: str) -> str:
    kind = type(value).__name__
    return f"{where}: {brief(value)} is {'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}, not {_said(hint)}"
