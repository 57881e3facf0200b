"""The variant registry: every variant is data here, not code in the CLI.

A variant names its engine family, its defaults and the options a user may set.
Adding a variant that an existing family can play is adding an entry to VARIANTS.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import RulesError

TABLE_OPTIONS = ("players", "jokers", "war_down", "ace_value", "war_tiebreak", "shortfall",
                 "pickup", "ranks", "suits", "win", "max_battles")


@dataclass(frozen=True)
class Variant:
    name: str
    title: str
    section: str
    summary: str
    family: str
    defaults: dict = field(default_factory=dict)
    options: tuple[str, ...] = TABLE_OPTIONS
    standard_deck: bool = False
    fixed_players: int | None = None


VARIANTS: dict[str, Variant] = {v.name: v for v in (
    Variant("classic", "Classic War", "2",
            "2 players, 52 cards, wars of 3 down and 1 up.", "table"),
    Variant("multiplayer", "Multiplayer War", "3",
            "3 players by default, up to 8; wars among those tied for the highest card, 1 down and 1 up.",
            "table", defaults={"players": 3, "war_down": 1}),
    Variant("jokers", "War with Jokers", "4",
            "Classic War with 2 Jokers that beat every other card.", "table",
            defaults={"jokers": 2}),
    Variant("razboi", "Război", "5",
            "The Romanian war: a war's size comes from the rank of the tied cards.", "table",
            defaults={"war_down": "by_rank"},
            options=tuple(o for o in TABLE_OPTIONS if o not in ("ranks", "suits")),
            standard_deck=True),
    Variant("steal", "Steal War", "6",
            "Draw and won piles; steal opponents' won piles with a card of the same rank.", "steal",
            defaults={"jokers": 2, "shortfall": "lose"},
            options=tuple(o for o in TABLE_OPTIONS if o not in ("pickup", "shortfall", "ace_value"))),
    Variant("arneson", "Arneson's War", "7",
            "Hands of three: each player chooses the card it plays; the war's loser takes the cause.",
            "arneson", defaults={"hand_size": 3},
            options=("jokers", "war_tiebreak", "shortfall", "pickup", "ranks", "suits", "win", "max_battles"),
            fixed_players=2),
)}


def variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        raise RulesError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})") from None
