"""The event kinds, declared once: what each records, how its cards move, its part in a battle's
table, and the sentence a person reads.

Every reader of the log takes what it knows of a kind from here: the schema's list of kinds
(model.schema.EVENT_KINDS) and the compiled engine's kind codes (positions in KINDS), the
codec's table and takes (log.codec), the card ledger (log.ledger), the card balance of
validation (log.invariants), `war replay`'s text and the replay page's sentences, which it
reads from the page's data. A new kind is one entry in KINDS, and the family code that logs it.

A kind's cards move from one *place* to another (PLACES); the ledger knows how each place gives
and takes cards, never a kind by name. A sentence is a template (`sentence` fills it, and the
replay page's script fills the same templates the same way):

- `{seat}` the event's seat; `{cards}` its cards' labels; `{n}` how many; `{card}` the first
  card's label; `{seats}` its seats; `{options}` its options as card labels; `{option_seats}`
  its options as seats; `{war}` the war's name by its depth (`value`); `{value}`; `{note}`;
- `[[FIELD?TEXT|OTHER]]`: TEXT when the event's FIELD (`seats`, `value`, `cards`, `options`)
  is not empty or zero, else OTHER.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Mapping

# Where a card can be. A kind takes its cards from `source` and puts them in `target`.
PLACES = {
    "deck": "the deck before the deal",
    "pile": "the top of the seat's pile (taken) or its bottom (put)",
    "top": "the card the seat plays: from its hand where seats hold hands, else its pile's top",
    "hand": "the seat's hand",
    "won": "the seat's won pile: all of it (taken) or its top (put)",
    "held": "everything the seat holds: its pile, then its won pile, then its hand in code order",
    "stolen": "the seat's top card, then the whole won pile of each seat in `seats`",
    "gains": "where the seat's winnings go: the top of its won pile where it keeps one, else under its pile",
    "table": "the table of the battle",
    "aside": "out of play until the game ends",
}

# What a kind checks besides its cards (the ledger's checks).
CHECKS = {
    "pile_empty": "the seat's pile is empty before (a reshuffle refills only an empty pile)",
    "holds_nothing": "the seat holds no card (its hand, where seats hold hands)",
    "table_empty": "no card is left on the table",
}


@dataclass(frozen=True)
class Kind:
    name: str
    meaning: str  # what it records, in one line
    text: str  # what a person reads (see the module's docstring)
    source: str = ""  # the place its cards come from (PLACES); "" when it moves none
    target: str = ""  # the place they go to
    face: str = "up"  # how cards put on the table lie: up or down
    at_deal: str = ""  # the place its cards come from at the deal (battle 0), when it can deal too
    deal_text: str = ""  # its sentence at the deal, when it differs
    check: str = ""  # one of CHECKS
    notes: Mapping[str, str] = field(default_factory=dict)  # a decision's sentence by its note
    journey: str = ""  # what it does to one card, for `war replay --follow` ("plays it")
    journey_first: str = ""  # what it does to its first card, when that differs ("steals with it")

    @property
    def puts(self) -> bool:
        """Its cards go onto the table."""
        return self.target == "table"

    @property
    def takes(self) -> bool:
        """Its cards come off the table (a take: the codec can spell their order)."""
        return self.source == "table"


KINDS: tuple[Kind, ...] = (
    Kind("deal", "the seat's pile after the deal, top first", "seat {seat} is dealt {n} cards: {cards}",
         source="deck", target="pile"),
    Kind("set_aside", "cards out of play: the deal's leftovers, or a war's table when everyone in it ran out",
         "everyone in the war ran out: {n} table cards set aside ({cards})", source="table", target="aside",
         at_deal="deck", deal_text="{n} cards set aside, out of play: {cards}", journey="set aside"),
    Kind("play", "one card face up: a battle card, a war's face-up card, a tie-break card",
         "seat {seat} plays {cards}", source="top", target="table", journey="plays it"),
    Kind("down", "cards face down in a war, in the order placed", "seat {seat} puts {n} down: {cards}",
         source="pile", target="table", face="down", journey="puts it down"),
    Kind("war", "a war starts among `seats`; value = its depth", "{war} (depth {value}) between seats {seats}"),
    Kind("war_out", "the seat holds no card when it must add to a war: out of that war",
         "seat {seat} has no card left to add: out of this war"),
    Kind("forfeit", "shortfall=lose: the seat cannot complete a war; all its cards go onto the table",
         "seat {seat} cannot complete the war: its {n} cards go on the table ({cards})",
         source="held", target="table", face="down", journey="forfeits it"),
    Kind("collect", "the seat wins the table; its cards in the order they join its pile (or won pile)",
         "seat {seat} takes {n} cards, in this order: {cards}", source="table", target="gains", journey="takes it"),
    Kind("reshuffle", "the seat's won pile shuffled into its empty pile; cards = the new pile, top first",
         "seat {seat} reshuffles its won pile into its pile: {cards}", source="won", target="pile",
         check="pile_empty", journey="reshuffles it into its pile"),
    Kind("draw", "cards taken from the pile into the hand", "seat {seat} draws {cards} into its hand",
         source="pile", target="hand", journey="draws it into its hand"),
    Kind("steal", "the seat steals `seats`' won piles with its top card; cards = the bundle, top first",
         "seat {seat} steals the won pile of seat {seats} with {card}: {n} cards on top of its won pile ({cards})",
         source="stolen", target="won", journey="steals it", journey_first="steals with it"),
    Kind("decision", "a policy's choice: note = what was decided, options = what it could choose",
         "seat {seat} decides ({note})",
         notes={"steal": "seat {seat} looks at {card}, could steal from seat {option_seats}: "
                         "[[seats?steals from seat {seats}|plays it instead]]",
                "top": "seat {seat} puts {card} on top of its won bundle (of {options})",
                "hand": "seat {seat} chooses {card} as [[value?its fourth card|its card]], from hand {options}"}),
    Kind("out", "the seat is out of the game", "seat {seat} is out of the game", check="holds_nothing"),
    Kind("end", "the end: note = outcome, seat = winner, value = battles",
         "the game ends after battle {value}: {note}[[seat? (seat {seat})|]]", check="table_empty"),
)

BY_NAME: dict[str, Kind] = {k.name: k for k in KINDS}
NAMES: tuple[str, ...] = tuple(BY_NAME)

WAR_NAMES = {1: "WAR", 2: "DOUBLE WAR", 3: "TRIPLE WAR"}  # a war's name by its depth; deeper: "WAR xN"

for _kind in KINDS:
    assert not _kind.source or _kind.source in PLACES, _kind
    assert not _kind.target or _kind.target in PLACES, _kind
    assert not _kind.check or _kind.check in CHECKS, _kind


def kind(name: str) -> Kind:
    return BY_NAME[name]


def war_name(depth) -> str:
    return WAR_NAMES.get(depth, f"WAR x{depth}")


_CONDITION = re.compile(r"\[\[(\w+)\?([^|\]]*)\|([^\]]*)\]\]")
_FIELD = re.compile(r"\{(\w+)\}")


def template(name: str, note: str | None = None, battle: int | None = None) -> str:
    """The sentence template of an event of kind `name` (with `note`, at `battle`)."""
    k = BY_NAME.get(name)
    if k is None:
        return "{kind} seat={seat_number} cards={cards}"
    if k.notes and note in k.notes:
        return k.notes[note]
    if battle == 0 and k.deal_text:
        return k.deal_text
    return k.text


def sentence(event, label: Callable[[int], str]) -> str:
    """What a person reads of `event` (an engines.event.Event, or anything with its fields),
    with `label(card)` a card's label."""
    seat, cards, seats, options, value = event.seat, event.cards, event.seats, event.options, event.value
    values = {
        "kind": event.kind, "seat": "" if seat is None else str(seat), "seat_number": str(seat),
        "cards": " ".join(map(label, cards)) if cards else "-", "n": str(len(cards)),
        "card": label(cards[0]) if cards else "-", "seats": ", ".join(map(str, seats)),
        "options": " ".join(map(label, options)) if options else "-",
        "option_seats": ", ".join(map(str, options)), "war": war_name(value), "value": str(value),
        "note": str(event.note),
    }
    present = {"seat": seat is not None, "cards": bool(cards), "seats": bool(seats), "options": bool(options),
               "value": bool(value)}
    text = _CONDITION.sub(lambda m: m.group(2) if present.get(m.group(1)) else m.group(3),
                          template(event.kind, event.note, event.battle))
    return _FIELD.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def page_sentences() -> dict:
    """The templates the replay page fills (its script follows `sentence`)."""
    return {"kinds": {k.name: {"text": k.text, "deal": k.deal_text, "notes": dict(k.notes)} for k in KINDS},
            "wars": {str(depth): name for depth, name in WAR_NAMES.items()}}
