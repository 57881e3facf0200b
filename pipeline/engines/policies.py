"""Policies: how players decide, in the variants where they do.

A policy is a plain function of a *view*: a frozen record of exactly what that player may see
when it decides, never another player's hidden cards. The engine builds the view; a policy
cannot reach the game's state. Each family declares its kinds of decision and their policies
(model.family.Decision; Steal War's `steal` and `top`, Arneson's War's `hand`), and its
profiles; this module reads them from the registry (model.families) and parses what seats
follow.

A seat's policy is written `kind:name[:param],...` (`steal:threshold:4,top:protect`), as a bare
policy name when only one kind of the variant has it (`highest` in Arneson's War, `threshold:4`
in Steal War), or as a profile name (`greedy`); kinds left out take the default. Randomized policies draw from their
own generator, seeded from the game seed and the seat (rng.policy_seed), so changing one seat's
policy never changes the deal or another seat's draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from ..errors import PluginError, RulesError
from ..model.families import plugins_fault, registry
from ..model.family import wrong_choice
from ..model.rng import Xoshiro256, game_seed, policy_seed


def _registries():
    """The policies of every decision of every registered family (model.families), as the
    tables parse_policy reads: each policy's maker by decision (`make()`, or `make(N)` with a
    parameter), the randomized ones, what each parameter is, each decision's default, and the
    profiles (a profile's policies from every family that has it)."""
    decisions = registry().decisions.values()
    kinds = {d.name: {p.name: p.make for p in d.policies} for d in decisions}
    randomized = {(d.name, p.name) for d in decisions for p in d.policies if p.randomized}
    parameters = {(d.name, p.name): p.parameter for d in decisions for p in d.policies if p.parameter}
    defaults = {d.name: d.default for d in decisions}
    profiles: dict[str, dict[str, str]] = {"default": {}}
    for family in registry().families.values():
        for name, chosen in family.profiles.items():
            profiles.setdefault(name, {}).update(chosen)
    return kinds, randomized, parameters, defaults, profiles


KINDS, RANDOMIZED, PARAMETERS, DEFAULTS, PROFILES = _registries()
# each decision's family, and how its choice is held (model.family.Decision.chooses)
OWNERS = {d.name: f for f in registry().families.values() for d in f.decisions}
CHOOSES = {d.name: d.chooses for d in registry().decisions.values()}


@dataclass(frozen=True)
class SeatPolicy:
    """One seat's policies, one per kind of decision its variant has."""

    choices: tuple[tuple[str, str], ...]  # (kind, name[:param]) in the variant's kind order

    @property
    def spec(self) -> str:
        return ",".join(f"{k}:{n}" for k, n in self.choices)

    @property
    def randomized(self) -> bool:
        return bool(self.drawn())

    def drawn(self) -> tuple[str, ...]:
        """The seat's policies that draw (declared `randomized`), as `kind:name`."""
        return tuple(f"{k}:{n}" for k, n in self.choices if (k, n.split(":")[0]) in RANDOMIZED)

    def functions(self, seat: int | None = None, seed: int | None = None) -> dict[str, Callable]:
        """Each decision's policy function, made of its name (`_make`); `seat` and the game's
        `seed` name where a maker that fails failed."""
        return {kind: _make(kind, name, "" if seat is None else f"of seat {seat}", seed) for kind, name in self.choices}


def parse_policy(text: str, kinds: tuple[str, ...], where: str = "policy") -> SeatPolicy:
    """`greedy`, or `steal:threshold:4,top:protect`; kinds not named take their default."""
    text = text.strip()
    if not kinds:
        raise RulesError(f"{where}: this variant has no decisions, so no policies")
    chosen: dict[str, str] = {}
    # a profile, unless it says nothing of this variant's decisions and one of them has a policy
    # of that name: profiles of every family share one table, and another family's `highest`
    # would hide this one's policy `highest` (and play the defaults, unsaid)
    if text in PROFILES and (text == "default" or any(k in kinds for k in PROFILES[text])
                             or not any(text in KINDS[k] for k in kinds)):
        chosen = {k: v for k, v in PROFILES[text].items() if k in kinds}
    else:
        for part in text.split(","):
            part = part.strip()
            kind, _, name = part.partition(":")
            if kind not in KINDS:
                owners = [k for k in kinds if part.split(":")[0] in KINDS[k]]
                if len(owners) != 1:
                    raise RulesError(f"{where}: {part!r} is not KIND:POLICY, a policy of this variant "
                                     f"or a profile ({', '.join(PROFILES)})")
                kind, name = owners[0], part
            if not name:
                raise RulesError(f"{where}: {part!r} names no policy")
            if kind not in kinds:
                raise RulesError(f"{where}: no decision {kind!r} in this variant (it has: {', '.join(kinds)})")
            base, _, param = name.partition(":")
            if base not in KINDS[kind]:
                raise RulesError(f"{where}: unknown {kind} policy {base!r} "
                                 f"(known: {', '.join(KINDS[kind])})")
            needs = (kind, base) in PARAMETERS
            if needs and not param.isdigit():
                raise RulesError(f"{where}: {kind}:{base} needs {PARAMETERS[(kind, base)]}")
            if not needs and param:
                raise RulesError(f"{where}: {kind}:{base} takes no parameter")
            if needs:
                name = f"{base}:{int(param)}"
                _make(kind, name, where.removeprefix("policy").strip())
            if kind in chosen:
                raise RulesError(f"{where}: {kind} given twice")
            chosen[kind] = name
    return SeatPolicy(tuple((k, chosen.get(k, DEFAULTS[k])) for k in kinds))


class PolicyUnmade(PluginError):
    """A plugin's policy that could not be made of its name (`steal:threshold:N`, its factory
    raising): the plugin's error. Said as a run is planned, before any game is played or
    anything written, it names no game; a maker that fails only later names the game's seed."""

    def _text(self) -> str:
        if self.seed is not None:
            return super()._text()
        return f"{self.what}; the error is the plugin's ({self.owner}), not war's"


def _make(kind: str, name: str, seat: str = "", seed: int | None = None) -> Callable:
    """The policy `name` (`base` or `base:N`) of decision `kind`, made by its maker (once as the
    request is read, then for each game where it takes a parameter). A maker that raises is its
    family's error (PolicyUnmade), not an internal error of war's; `seat` ("0", "of seat 1")
    and the game's `seed` say where."""
    base, _, param = name.partition(":")
    make = KINDS[kind][base]
    try:
        return make(int(param)) if param else make()
    except (Exception, SystemExit) as err:
        family = OWNERS[kind]
        if not plugins_fault(err, family):
            raise  # war's own policy (a bug of war's, said as one), war's error, or a Ctrl-C turned into another
        raise PolicyUnmade(f"plugin family {family.name!r}: the policy {kind}:{name}{' ' + seat if seat else ''} "
                           f"could not be made: {type(err).__name__}: {err}", seed, owner=family.module) from err


def profile_reading(text: str, kinds: tuple[str, ...]) -> str | None:
    """How `text` is read when it is both a profile and the name of a policy of a decision of
    `kinds` and the two readings differ: `random` in Steal War is the profile random
    (steal:random,top:random), not the steal policy random alone; a sentence a command says as
    a warning, None when `text` reads one way only. A profile wins, as parse_policy reads it."""
    text = text.strip()
    if text not in PROFILES or not kinds:
        return None
    owners = [k for k in kinds if text in KINDS.get(k, {})]
    read = parse_policy(text, kinds).spec
    others = [parse_policy(f"{k}:{text}", kinds).spec for k in owners]
    if not others or all(o == read for o in others):
        return None
    alone = " or ".join(f"{k}:{text}" for k in owners)
    return f"{text!r} is read as the profile {read}; for the policy alone, give {alone}"


EVERY_SEAT = -1  # the seat of a seating that stands for every seat not named


def parse_seating(pairs: Iterable[str]) -> dict[int, str]:
    """`SEAT=POLICY` pairs as a seating: `["0=greedy", "*=cautious"]` -> {0: "greedy", -1:
    "cautious"}; the seat `*` (or `all`) is EVERY_SEAT, every seat not named."""
    seating: dict[int, str] = {}
    for pair in pairs:
        seat, sep, spec = pair.partition("=")
        seat = seat.strip()
        if not sep or not spec.strip():
            raise RulesError(f"`policies` wants SEAT=POLICY, got {pair!r}", params=("policies",))
        if seat in ("*", "all"):
            key = EVERY_SEAT
        elif seat.isdigit():
            key = int(seat)
        else:
            raise RulesError(f"`policies`: {seat!r} is not a seat number (or *)", params=("policies",))
        if key in seating:
            raise RulesError(f"`policies` gives seat {seat} twice", params=("policies",))
        seating[key] = spec.strip()
    return seating


def seat_policies(specs: Mapping[int, str], players: int, kinds: tuple[str, ...]) -> list[SeatPolicy]:
    """Every seat's policy from a seating {seat: spec} (missing seats take the default; the key
    EVERY_SEAT sets every seat not named)."""
    for seat in specs:
        if seat != EVERY_SEAT and not 0 <= seat < players:
            raise RulesError(f"`policies` names seat {seat}; seats are 0..{players - 1}", params=("policies",))
    fallback = specs.get(EVERY_SEAT, "default")
    return [parse_policy(specs.get(seat, fallback), kinds, f"policy of seat {seat}") for seat in range(players)]


def describe_policies() -> list[str]:
    """A line a kind of decision (its policies and default), then the profiles."""
    lines = []
    for kind, names in KINDS.items():
        shown = [f"{n}:N" if (kind, n) in PARAMETERS else n for n in names]
        lines.append(f"{kind}: {', '.join(shown)} (default {DEFAULTS[kind]})")
    lines.append("profiles: " + "; ".join(f"{p} = {', '.join(f'{k}:{v}' for k, v in c.items()) or 'the defaults'}"
                                          for p, c in PROFILES.items()))
    return lines


def seated(policies: list[SeatPolicy]) -> tuple:
    """What a PolicyChooser of the seats' `policies` works out the same for every game (its
    `seated`): (each seat's policy functions, whether a seat's policy draws, which seats' do).
    The functions only where no policy takes a parameter, for then each is its declaration's one
    function (model.family.load's, whoever asks); None where one does, whose maker is asked each game."""
    fixed = all(not name.partition(":")[2] for p in policies for _, name in p.choices)
    drawing = tuple(p.randomized for p in policies)
    return ([p.functions() for p in policies] if fixed else None), any(drawing), drawing


def generator(seed: int) -> Xoshiro256:
    """Xoshiro256(seed): its state, the first four SplitMix64 outputs from the seed, taken at once
    (rng.game_seed) rather than from a SplitMix64 stepped a call at a time (a game makes three:
    its own and one a seat's policy; about half the time)."""
    rng = Xoshiro256.__new__(Xoshiro256)
    rng.s0, rng.s1, rng.s2, rng.s3 = state_words(seed)
    return rng


def state_words(seed: int) -> tuple[int, int, int, int]:
    """Xoshiro256(seed)'s state: the first four SplitMix64 outputs from the seed."""
    return game_seed(seed, 0), game_seed(seed, 1), game_seed(seed, 2), game_seed(seed, 3)


class SeatGenerator(Xoshiro256):
    """A seat's policy's generator, generator(policy_seed(game_seed, seat)), its state made the
    first time the policy reads it: most policies never draw (always, never, high), and four
    SplitMix64 outputs a seat cost each game about 6 us. Its draws are the generator's own.
    `__getattr__` is called only while a state word is unset; once set, each is read directly."""

    __slots__ = ("game_seed", "seat")

    def __init__(self, game_seed: int, seat: int) -> None:
        self.game_seed, self.seat = game_seed, seat

    def __getattr__(self, name: str):
        if name not in Xoshiro256.__slots__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self.s0, self.s1, self.s2, self.s3 = state_words(policy_seed(self.game_seed, self.seat))
        return getattr(self, name)


class UndeclaredDraw(Exception):
    """A policy not declared randomized read its generator."""


class _Undeclared:
    """The generator a seat whose policies are not declared randomized is handed: any use of it
    is UndeclaredDraw. A policy that draws undeclared would make games that war calls cycles
    (a position seen again repeats only when nothing draws), and validation would agree."""

    __slots__ = ()

    def __getattr__(self, name: str):
        raise UndeclaredDraw(name)


_UNDECLARED = _Undeclared()


class PolicyChooser:
    """Decisions by each seat's policy, each with its own generator. Every answer is checked as
    replay checks the log's (model.family.wrong_choice): a policy that chooses what it was not
    offered, or raises, is its family's error (PluginError), named before its event is logged.
    `seated`: what `seated(policies)` gives, when the caller keeps it from game to game."""

    def __init__(self, policies: list[SeatPolicy], game_seed: int, seated: tuple | None = None) -> None:
        self.policies = policies
        self.seed = game_seed
        if seated is None:
            drawing = tuple(p.randomized for p in policies)
            functions, randomized = None, any(drawing)
        else:
            functions, randomized, drawing = seated
        self.functions = functions if functions is not None else [p.functions(seat, game_seed)
                                                                  for seat, p in enumerate(policies)]
        self.rngs = [SeatGenerator(game_seed, seat) if draws else _UNDECLARED for seat, draws in enumerate(drawing)]
        self.randomized = randomized  # then no position can be said to repeat

    def choose(self, kind: str, seat: int, view, options: tuple):
        try:
            choice = self.functions[seat][kind](view, self.rngs[seat])
        except UndeclaredDraw:
            raise self.fault(kind, seat, "drew from its generator, but its Policy is not declared randomized=True "
                                         "(a game whose choices draw can never be called a cycle)") from None
        except (Exception, SystemExit) as err:
            if not plugins_fault(err, OWNERS[kind]):
                raise  # war's own policy (a bug of war's, said as one), war's error, or a Ctrl-C turned into another
            raise self.fault(kind, seat, f"raised {type(err).__name__}: {err}") from err
        chooses = CHOOSES[kind]
        # the answers policies give most, legal at a glance (wrong_choice would find so): no
        # seat, one seat offered, one card offered; anything else checked in full
        if type(choice) is tuple and (not choice or len(choice) == 1 and type(choice[0]) is int
                                      and choice[0] in options) if chooses == "seats" else \
                type(choice) is int and choice in options:
            return choice
        wrong = wrong_choice(chooses, choice, options)
        if wrong is not None:
            raise self.fault(kind, seat, f"chose {wrong}")
        return choice

    def fault(self, kind: str, seat: int, what: str) -> PluginError:
        """The error of the policy of `seat` at a `kind` decision: its family, decision, policy
        and seat, and this game's seed (the game's id is added where it is known)."""
        family = OWNERS[kind]
        spec = dict(self.policies[seat].choices).get(kind, "?")
        plugin = family.name not in registry().built_in
        return PluginError(f"{'plugin ' if plugin else ''}family {family.name!r}: the policy {kind}:{spec} "
                           f"of seat {seat}, at a {kind!r} decision, {what}", self.seed,
                           owner=family.module if plugin else "")
