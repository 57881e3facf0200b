"""What an event kind is: what it records, how its cards move, its role in a battle, and the
sentence a person reads. The kinds every family's games share (the deal, a card played, a war,
a collect, the end...) are declared here (CORE); a family declares its own beside its rules
(model.family.Family.events), and model.event_kinds lists them all.

Every reader of the log dispatches on what a kind *does*, never on its name:

- its places: a kind takes its cards from `source` and puts them in `target` (PLACES), so it
  deals (from the deck), lays cards on the table (face up or down: `face`), takes the table
  (to a seat: it collects; or aside), or moves cards off the table (a reshuffle, a draw);
- its role (ROLES), for what places do not say: a war starts, a player decides, a seat is out
  of the game, the game ends;
- how it is shown: its sentence (`text`), whether `war replay` shows it as a detail of its
  battle (`detail`), the short mark the replay page puts in the seat's row (`mark`).

A sentence is a template (model.event_kinds.sentence fills it, and the replay page's script
fills the same templates the same way):

- `{seat}` the event's seat; `{cards}` its cards' labels; `{n}` how many; `{card}` the first
  card's label; `{seats}` its seats; `{options}` its options as card labels; `{option_seats}`
  its options as seats; `{war}` the war's name by its depth (`value`); `{value}`; `{note}`;
- `[[FIELD?TEXT|OTHER]]`: TEXT when the event's FIELD (`seat`, `seats`, `value`, `cards`,
  `options`) is not empty or zero, else OTHER.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from typing import Mapping

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

# A kind's role in a battle beyond how its cards move.
ROLES = {
    "starts_war": "a war starts among `seats`; value = its depth (1, 2 for a double war...)",
    "decides": "a player decides: note = the decision, options = what it could choose, "
               "cards or seats = its choice (model.family.Decision)",
    "leaves_game": "the seat is out of the game",
    "ends_game": "the game ends: note = the outcome, seat = the winner, value = the battles played",
}

FACES = ("up", "down")

# The fields a sentence template may name (model.event_kinds.fill and the replay page's script
# fill these, and print any other `{name}` as it is written), and those `[[FIELD?...]]` tests.
FIELDS = ("kind", "seat", "seat_number", "cards", "n", "card", "seats", "options", "option_seats", "war", "value",
          "note")
CONDITIONS = ("seat", "cards", "seats", "options", "value")


def unknown_fields(text: str) -> list[str]:
    """The fields and conditions of template `text` that war does not fill (`{beaten}`,
    `[[beaten?`): a declaration's mistake, which would otherwise be printed as it is written."""
    return ([f"[[{m}?" for m in re.findall(r"\[\[(\w+)\?", text) if m not in CONDITIONS]
            + [f"{{{m}}}" for m in re.findall(r"\{(\w+)\}", text) if m not in FIELDS])


# `[[FIELD?TEXT|OTHER]]` as model.event_kinds.fill reads it (and the replay page's script)
CONDITION = re.compile(r"\[\[(\w+)\?([^|\]]*)\|([^\]]*)\]\]")


def malformed(text: str) -> list[str]:
    """What of template `text` war would print as it is written rather than fill, each in a few
    words: a `[[` that starts no whole `[[FIELD?TEXT|OTHER]]`, a field with a conversion or a
    format (`{seat!r}`, `{n:>3}`), one that is more than a name (`{cards.x}`, `{}`), and braces
    that do not pair (`{seat`, a lone `}`, `{{`). A declaration's mistake, as unknown_fields."""
    out = [f"`{text[i:i + 12]}{'...' if len(text) > i + 12 else ''}` is no whole [[FIELD?TEXT|OTHER]]"
           for i in (m.start() for m in re.finditer(r"\[\[", text)) if not CONDITION.match(text, i)]
    plain = CONDITION.sub(lambda m: f"{m.group(2)} {m.group(3)}", text)
    if "{{" in plain or "}}" in plain:
        return out + ["`{{` or `}}`: war does not read a doubled brace as one"]
    try:
        parts = list(string.Formatter().parse(plain))
    except ValueError as err:  # `{seat` unclosed, a lone `}`, `{` in a field
        return out + [f"its braces do not pair ({err})"]
    for _, name, spec, conversion in parts:
        if name is None:
            continue
        written = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
        if conversion or spec:
            out.append(f"`{written}` takes no conversion or format (a field is `{{NAME}}` alone)")
        elif not re.fullmatch(r"\w+", name):
            out.append(f"`{written}` is no field name (a field is `{{NAME}}` alone)")
    return out


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
    notes: Mapping[str, str] = field(default_factory=dict)  # a sentence by the event's note
    journey: str = ""  # what it does to one card, for `war replay --follow` ("plays it")
    journey_first: str = ""  # what it does to its first card, when that differs ("steals with it")
    role: str = ""  # one of ROLES, or "" when its places say all it does
    detail: bool = False  # `war replay` shows it under its battle's line (a face-up card, only within a war)
    mark: str = ""  # what the replay page writes in the seat's row of the table ("OUT")

    @property
    def deals(self) -> bool:
        """Its cards come from the deck: it deals them."""
        return self.source == "deck"

    @property
    def puts(self) -> bool:
        """Its cards go onto the table (laid face up or down, `face`)."""
        return self.target == "table"

    @property
    def takes(self) -> bool:
        """Its cards come off the table (a take: the codec can spell their order)."""
        return self.source == "table"

    @property
    def collects(self) -> bool:
        """A seat takes the table: the battle's first such event names its winner."""
        return self.takes and self.target != "aside"

    @property
    def sets_aside(self) -> bool:
        """The table's cards leave the game (or, at the deal, the deck's left over)."""
        return self.target == "aside"

    def problems(self) -> list[str]:
        """What is wrong with this declaration, each in a few words (empty when nothing)."""
        out = []
        if not re.fullmatch(r"[a-z][a-z_]*", self.name):
            out.append(f"kind {self.name!r}: a name of lowercase letters and _")
        for what, place in (("source", self.source), ("target", self.target), ("at_deal", self.at_deal)):
            if place and place not in PLACES:
                out.append(f"kind {self.name!r}: {what} {place!r} is not a place ({', '.join(PLACES)})")
        if bool(self.source) != bool(self.target):
            out.append(f"kind {self.name!r}: a source and a target, or neither")
        if self.check and self.check not in CHECKS:
            out.append(f"kind {self.name!r}: check {self.check!r} is not one of {', '.join(CHECKS)}")
        if self.role and self.role not in ROLES:
            out.append(f"kind {self.name!r}: role {self.role!r} is not one of {', '.join(ROLES)}")
        if self.face not in FACES:
            out.append(f"kind {self.name!r}: face is up or down")
        return out


CORE: tuple[Kind, ...] = (
    Kind("deal", "the seat's pile after the deal, top first", "seat {seat} is dealt {n} cards: {cards}",
         source="deck", target="pile"),
    Kind("set_aside", "cards out of play: the deal's leftovers, or a war's table when everyone in it ran out",
         "everyone in the war ran out: {n} table cards set aside ({cards})", source="table", target="aside",
         at_deal="deck", deal_text="{n} cards set aside, out of play: {cards}", journey="set aside"),
    Kind("play", "one card face up: a battle card, a war's face-up card, a tie-break card",
         "seat {seat} plays {cards}", source="top", target="table", journey="plays it"),
    Kind("down", "cards face down in a war, in the order placed", "seat {seat} puts {n} down: {cards}",
         source="pile", target="table", face="down", journey="puts it down", detail=True),
    Kind("war", "a war starts among `seats`; value = its depth", "{war} (depth {value}) between seats {seats}",
         role="starts_war"),
    Kind("war_out", "the seat holds no card when it must add to a war: out of that war",
         "seat {seat} has no card left to add: out of this war", mark="OUT"),
    Kind("forfeit", "shortfall=lose: the seat cannot complete a war; all its cards go onto the table",
         "seat {seat} cannot complete the war: its {n} cards go on the table ({cards})",
         source="held", target="table", face="down", journey="forfeits it"),
    Kind("collect", "the seat wins the table; its cards in the order they join its pile (or won pile)",
         "seat {seat} takes {n} cards, in this order: {cards}", source="table", target="gains", journey="takes it"),
    Kind("reshuffle", "the seat's won pile shuffled into its empty pile; cards = the new pile, top first",
         "seat {seat} reshuffles its won pile into its pile: {cards}", source="won", target="pile",
         check="pile_empty", journey="reshuffles it into its pile", detail=True),
    Kind("decision", "a policy's choice: note = what was decided, options = what it could choose",
         "seat {seat} decides ({note})", role="decides", detail=True),
    Kind("out", "the seat is out of the game", "seat {seat} is out of the game", check="holds_nothing", role="leaves_game"),
    Kind("end", "the end: note = outcome, seat = winner, value = battles",
         "the game ends after battle {value}: {note}[[seat? (seat {seat})|]]", check="table_empty", role="ends_game"),
)

WAR_NAMES = {1: "WAR", 2: "DOUBLE WAR", 3: "TRIPLE WAR"}  # a war's name by its depth; deeper: "WAR xN"


def war_name(depth) -> str:
    return WAR_NAMES.get(depth, f"WAR x{depth}")
