"""The event kinds: every kind of every family, from the registry (model.families; what a kind
is, model.kind), and the sentence a person reads of an event.

Every reader of the log takes what it knows of a kind from here, by what the kind does (its
places, its role, model.kind), never by its name: the schema's list of kinds
(model.schema.EVENT_KINDS) and the compiled engine's kind codes (positions in KINDS), the
codec's table and takes (log.codec), the card ledger (log.ledger), the card balance of
validation (log.invariants), the SQL views (log.events.sql, through the `event_kinds` table),
`war replay`'s text and the replay page, which reads the kinds from the page's data. A new kind
is one entry in its family's declaration, and the code that logs it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable

from .families import registry
from .kind import CHECKS, PLACES, ROLES, WAR_NAMES, Kind, war_name  # noqa: F401  (the kinds' vocabulary)


def _with_decisions(kind: Kind) -> Kind:
    """A kind that logs decisions, with each decision's sentence by its note (model.family.Decision)."""
    if kind.role != "decides":
        return kind
    return replace(kind, notes={**kind.notes, **{d.name: d.sentence for d in registry().decisions.values()}})


KINDS: tuple[Kind, ...] = tuple(_with_decisions(k) for k in registry().kinds.values())
BY_NAME: dict[str, Kind] = {k.name: k for k in KINDS}
NAMES: tuple[str, ...] = tuple(BY_NAME)


def kind(name: str) -> Kind:
    return BY_NAME[name]


def with_role(role: str) -> frozenset[str]:
    """The names of the kinds of a role (model.kind.ROLES)."""
    return frozenset(k.name for k in KINDS if k.role == role)


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


def fill(text: str, event, label: Callable[[int], str]) -> str:
    """A template (model.kind) filled with `event`'s fields, `label(card)` a card's label."""
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
    text = _CONDITION.sub(lambda m: m.group(2) if present.get(m.group(1)) else m.group(3), text)
    return _FIELD.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def sentence(event, label: Callable[[int], str]) -> str:
    """What a person reads of `event` (an engines.event.Event, or anything with its fields),
    with `label(card)` a card's label."""
    return fill(template(event.kind, event.note, event.battle), event, label)


def page_sentences() -> dict:
    """What the replay page's script knows of each kind: the templates it fills as `sentence`
    does, and what the kind does (its role, whether it lays cards on the table and how they lie,
    takes the table for a seat or sets it aside, deals, is a detail of its battle, its mark in
    the seat's row); each decision's heading and what it chooses; the wars' names."""
    return {"kinds": {k.name: {"text": k.text, "deal": k.deal_text, "notes": dict(k.notes), "role": k.role,
                               "lays": k.puts, "face_up": k.puts and k.face == "up", "collects": k.collects,
                               "sets_aside": k.takes and k.sets_aside, "deals": k.deals,
                               "detail": k.detail, "mark": k.mark} for k in KINDS},
            "decisions": {d.name: {"title": d.title, "chooses": d.chooses} for d in registry().decisions.values()},
            "wars": {str(depth): name for depth, name in WAR_NAMES.items()}}

