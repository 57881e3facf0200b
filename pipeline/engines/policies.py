"""Policies: how players decide, in the variants where they do (Steal War, Arneson's War).

A policy is a plain function of a *view*: a frozen record of exactly what that player may see
when it decides (its own looked-at card or hand, the face-up cards on the table and on top of
the won piles, pile sizes), never another player's hand or any draw pile's hidden cards. The
engine builds the view; a policy cannot reach the game's state.

Kinds of decision and their policies (the registry):
- `steal`  (Steal War 6.2, 6.4): which of the eligible won piles to take. -> a tuple of seats.
- `top`    (Steal War 6.3): which won card lies on top of the bundle. -> a card.
- `hand`   (Arneson 7.2, 7.3): which hand card to play. -> a card.

A seat's policy is written `kind:name[:param],...` (`steal:threshold:4,top:protect`), as a bare
policy name when only one kind of the variant has it (`highest` in Arneson's War, `threshold:4`
in Steal War), or as a profile name (`greedy`); kinds left out take the default. Randomized policies draw from their
own generator, seeded from the game seed and the seat (rng.policy_seed), so changing one seat's
policy never changes the deal or another seat's draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from ..errors import RulesError
from ..model.rng import Xoshiro256, policy_seed


@dataclass(frozen=True)
class StealView:
    """Seat `seat` has looked at `card`; `eligible` maps each opponent whose won pile's top card
    matches its rank to that pile's size. `own_cards` is its draw plus won pile size."""

    seat: int
    card: int
    rank: int
    eligible: tuple[tuple[int, int], ...]
    own_cards: int
    in_war: bool


@dataclass(frozen=True)
class TopView:
    """Seat `seat` won `cards` (table order, all face up); `ranks` gives each card's rank and
    `copies` how many cards of each rank the deck holds."""

    seat: int
    cards: tuple[int, ...]
    ranks: tuple[int, ...]
    copies: tuple[int, ...]
    visible_tops: tuple[int | None, ...]


@dataclass(frozen=True)
class HandView:
    """Seat `seat` holds `hand` (sorted by code) and must play one; `in_war` is True for a
    war's fourth card, when `tied_rank` is the rank that caused the war."""

    seat: int
    hand: tuple[int, ...]
    ranks: tuple[int, ...]
    in_war: bool
    tied_rank: int | None
    own_pile: int
    other_pile: int
    other_hand: int


Policy = Callable  # (view, rng) -> choice


def steal_always(v: StealView, rng) -> tuple[int, ...]:
    return tuple(seat for seat, _ in v.eligible)


def steal_never(v: StealView, rng) -> tuple[int, ...]:
    return ()


def steal_random(v: StealView, rng) -> tuple[int, ...]:
    """Each eligible pile with probability 1/2."""
    return tuple(seat for seat, _ in v.eligible if rng.bounded(2))


def steal_threshold(n: int) -> Policy:
    def steal_if_big(v: StealView, rng) -> tuple[int, ...]:
        return tuple(seat for seat, size in v.eligible if size >= n)
    steal_if_big.__name__ = f"steal_threshold_{n}"
    return steal_if_big


def top_as_played(v: TopView, rng) -> int:
    return v.cards[0]


def top_highest(v: TopView, rng) -> int:
    best = max(v.ranks)
    return v.cards[v.ranks.index(best)]


def top_protect(v: TopView, rng) -> int:
    """The card whose rank is hardest to match: fewest copies of its rank outside this bundle
    (ties: the higher rank, then the first in table order)."""
    def left(i: int) -> tuple[int, int, int]:
        r = v.ranks[i]
        return (v.copies[r] - v.ranks.count(r), -r, i)
    return v.cards[min(range(len(v.cards)), key=left)]


def top_random(v: TopView, rng) -> int:
    return v.cards[rng.bounded(len(v.cards))]


def hand_highest(v: HandView, rng) -> int:
    return v.hand[max(range(len(v.hand)), key=lambda i: (v.ranks[i], -i))]


def hand_lowest(v: HandView, rng) -> int:
    return v.hand[min(range(len(v.hand)), key=lambda i: (v.ranks[i], i))]


def hand_random(v: HandView, rng) -> int:
    return v.hand[rng.bounded(len(v.hand))]


def hand_save_high(v: HandView, rng) -> int:
    """Keep high cards for wars: the lowest card in a battle, the highest as a war's fourth card."""
    return hand_highest(v, rng) if v.in_war else hand_lowest(v, rng)


KINDS: dict[str, dict[str, Callable]] = {
    "steal": {"always": lambda: steal_always, "never": lambda: steal_never,
              "random": lambda: steal_random, "threshold": steal_threshold},
    "top": {"as_played": lambda: top_as_played, "highest": lambda: top_highest,
            "protect": lambda: top_protect, "random": lambda: top_random},
    "hand": {"random": lambda: hand_random, "highest": lambda: hand_highest,
             "lowest": lambda: hand_lowest, "save_high": lambda: hand_save_high},
}
RANDOMIZED = {("steal", "random"), ("top", "random"), ("hand", "random")}
PARAMETERS = {("steal", "threshold"): "a pile size, e.g. steal:threshold:4"}
DEFAULTS = {"steal": "always", "top": "as_played", "hand": "random"}
PROFILES = {
    "default": {},
    "greedy": {"steal": "always", "top": "highest", "hand": "highest"},
    "cautious": {"steal": "never", "top": "protect", "hand": "save_high"},
    "random": {"steal": "random", "top": "random", "hand": "random"},
}


@dataclass(frozen=True)
class SeatPolicy:
    """One seat's policies, one per kind of decision its variant has."""

    choices: tuple[tuple[str, str], ...]  # (kind, name[:param]) in the variant's kind order

    @property
    def spec(self) -> str:
        return ",".join(f"{k}:{n}" for k, n in self.choices)

    @property
    def randomized(self) -> bool:
        return any((k, n.split(":")[0]) in RANDOMIZED for k, n in self.choices)

    def functions(self) -> dict[str, Callable]:
        out = {}
        for kind, name in self.choices:
            base, _, param = name.partition(":")
            make = KINDS[kind][base]
            out[kind] = make(int(param)) if param else make()
        return out


def parse_policy(text: str, kinds: tuple[str, ...], where: str = "policy") -> SeatPolicy:
    """`greedy`, or `steal:threshold:4,top:protect`; kinds not named take their default."""
    text = text.strip()
    if not kinds:
        raise RulesError(f"{where}: this variant has no decisions, so no policies")
    chosen: dict[str, str] = {}
    if text in PROFILES:
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
            if kind in chosen:
                raise RulesError(f"{where}: {kind} given twice")
            chosen[kind] = name
    return SeatPolicy(tuple((k, chosen.get(k, DEFAULTS[k])) for k in kinds))


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
    lines = []
    for kind, names in KINDS.items():
        shown = [f"{n}:N" if (kind, n) in PARAMETERS else n for n in names]
        lines.append(f"{kind}: {', '.join(shown)} (default {DEFAULTS[kind]})")
    lines.append("profiles: " + "; ".join(f"{p} = {', '.join(f'{k}:{v}' for k, v in c.items()) or 'the defaults'}"
                                          for p, c in PROFILES.items()))
    return lines


class PolicyChooser:
    """Decisions by each seat's policy, each with its own generator."""

    def __init__(self, policies: list[SeatPolicy], game_seed: int) -> None:
        self.functions = [p.functions() for p in policies]
        self.rngs = [Xoshiro256(policy_seed(game_seed, seat)) for seat in range(len(policies))]
        self.randomized = any(p.randomized for p in policies)  # then no position can be said to repeat

    def choose(self, kind: str, seat: int, view, options: tuple):
        return self.functions[seat][kind](view, self.rngs[seat])
