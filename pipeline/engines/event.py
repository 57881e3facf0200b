"""A game's events in memory, and the recorders an engine reports them to."""

from __future__ import annotations

from itertools import chain
from operator import itemgetter
from typing import NamedTuple

from ..errors import LogMismatch, brief


class Event(NamedTuple):
    """One step of one game, as the engines make it and the log holds it (the README's table of
    event kinds says what each kind means; model.schema.EVENT_KINDS lists them).

    - battle: the battle it belongs to; 0 for the deal.
    - kind: what happened (`deal`, `play`, `war`, `collect`, `decision`, `end`...).
    - seat: the seat it concerns (the winner at the end), or None.
    - cards: card codes, in the order the kind gives (a pile top first, a collect in the order
      the cards join the pile); a decision's choice.
    - seats: the seats in a war, or the seats stolen from (a steal, a steal decision).
    - options: a decision's alternatives.
    - value: a war's depth; at a hand decision, the depth of the war it is in (0 in none);
      the battles at the end.
    - note: a decision's kind (`steal`, `top`, `hand`), or the end's outcome.
    """

    battle: int
    kind: str
    seat: int | None = None
    cards: tuple[int, ...] = ()
    seats: tuple[int, ...] = ()
    options: tuple[int, ...] = ()
    value: int | None = None
    note: str | None = None


# Builds an Event from a tuple of its eight fields without the Python-level __new__ of a
# NamedTuple: Recorder.emit is on the hot path of the reference engines.
_event = tuple.__new__


class Recorder:
    """Keeps a game's events, in order."""

    __slots__ = ("events",)

    def __init__(self) -> None:
        self.events: list[Event] = []

    @property
    def position(self) -> int:
        return len(self.events)

    def emit(self, battle: int, kind: str, seat: int | None = None, cards=(), seats=(), options=(),
             value: int | None = None, note: str | None = None) -> None:
        self.events.append(_event(Event, (battle, kind, seat, tuple(cards), tuple(seats), tuple(options),
                                          value, note)))

    def plays(self, battle: int, seats, cards) -> None:
        """A `play` event of each seat in `seats` with its card in `cards`, in order: what a
        battle's first step reports in one call (log.array_recorder writes them at once)."""
        emit = self.emit
        for seat, card in zip(seats, cards):
            emit(battle, "play", seat, (card,))

    def decision(self, battle: int, seat: int, note: str, cards, seats, options) -> None:
        """A seat's choice at a decision of the family's (`note`, its name): `emit`'s `decision`
        event, in one call of fewer arguments (log.array_recorder packs it in one int)."""
        self.emit(battle, "decision", seat, cards, seats, options, None, note)

    def duels(self, battle: int, seats, cards, takers, noted=()) -> None:
        """A run of battles of two seats, from battle `battle` on, one a seat in `takers`: in each,
        `seats[0]` plays a card and `seats[1]` another, and the taker collects the two (four cards
        of `cards` a battle, in that order). What the table engine reports of its duels in one
        call (TableGame.two_seat_battles; log.array_recorder unfolds them with numpy). `noted`:
        (duel, kind) of the duels, in order, whose taker's card logs an event of that kind (a
        hook's `decides`) between the plays and the collect."""
        emit = self.emit
        first, second = seats
        events = dict(noted)
        for i, taker in enumerate(takers):
            at = 4 * i
            emit(battle + i, "play", first, (cards[at],))
            emit(battle + i, "play", second, (cards[at + 1],))
            if events:
                kind = events.get(i)
                if kind is not None:
                    emit(battle + i, kind, taker, (cards[at] if taker == first else cards[at + 1],))
            emit(battle + i, "collect", taker, cards[at + 2:at + 4])

    def war_round(self, battle: int, depth: int, seats, first_down, first_up: int, second_down,
                  second_up: int) -> None:
        """A war of two seats, `seats`, of depth `depth`, in which both lay their cards: its `war`
        event, then the first seat's `down` event (its cards `first_down`, when it lays any) and
        `play` event (its card `first_up`), then the second's. What the table engine reports of
        such a round in one call (TableGame.two_seat_wars)."""
        emit = self.emit
        first, second = seats
        emit(battle, "war", None, (), seats, (), depth)
        if first_down:
            emit(battle, "down", first, first_down)
        emit(battle, "play", first, (first_up,))
        if second_down:
            emit(battle, "down", second, second_down)
        emit(battle, "play", second, (second_up,))

    def finish(self) -> None:
        """Called once after the end event."""


def describe(event: Event | None) -> str:
    if event is None:
        return "no event"
    parts = [event.kind]
    if event.seat is not None:
        parts.append(f"seat={event.seat}")
    if event.cards:
        parts.append(f"cards={list(event.cards)}")
    if event.seats:
        parts.append(f"seats={list(event.seats)}")
    if event.options:
        parts.append(f"options={list(event.options)}")
    if event.value is not None:
        parts.append(f"value={event.value}")
    if event.note is not None:
        parts.append(f"note={event.note}")
    parts.append(f"battle={event.battle}")
    return "(" + " ".join(parts) + ")"


def one_word(note) -> bool:
    """Whether `note` is a note a log can hold: a text of one word (log.codec spells it so)."""
    return type(note) is str and note.split() == [note]


def wrong_event(kind, note, kinds) -> str | None:
    """What is wrong with an event of `kind` and `note` that an engine emitted, which no log of
    its family holds: a kind that is not among the family's declared `kinds` (a collection of
    names), or a note that is not one word. None when neither is."""
    if type(kind) is not str or kind not in kinds:
        return (f"an event of kind {brief(kind)}, which is not among the family's declared kinds "
                f"({', '.join(kinds)})")
    if note is not None and not one_word(note):
        return f"a {kind} event with note {brief(note)}: a note is one word"
    return None


def wrong_events(events: list, kinds) -> tuple[int, str] | None:
    """The first of a game's `events` (Events or tuples of their fields) that wrong_event finds
    wrong, as its seq and what is wrong; None when every one is right. A pass over the events'
    kinds and notes in C (two sets), an event looked at one by one only when one is wrong."""
    try:
        seen = set(map(itemgetter(1), events))
        notes = set(map(itemgetter(7), events))
    except TypeError:  # a kind or a note that is not even hashable: found below
        pass
    else:
        notes.discard(None)
        if seen.issubset(kinds) and all(map(one_word, notes)):
            return None
    for seq, event in enumerate(events):
        wrong = wrong_event(event[1], event[7], kinds)
        if wrong is not None:
            return seq, f"{wrong} (event {seq}, battle {brief(event[0])})"
    return None


def wrong_places(events: list, players: int, deck_size: int) -> tuple[int, str] | None:
    """The first of a game's `events` (Events or tuples of their fields) by a seat that is not
    one of the game's, naming one that is not, or with a card that is not the deck's, as its seq
    and what is wrong; None when every one is right. A log holds only the game's seats (0 ..
    players - 1; None, an event of no seat) and the deck's cards (0 .. deck_size - 1): an
    engine's event of another is its fault, which replay could not show and validation, playing
    the same engine again, would call good. A pass over the seats and cards in C (sets), an event
    looked at one by one only when one is wrong."""
    seats, cards = set(range(players)), set(range(deck_size))
    try:
        seen = set(map(itemgetter(2), events))
        seen.discard(None)
        if (seen <= seats and set(chain.from_iterable(map(itemgetter(4), events))) <= seats
                and set(chain.from_iterable(map(itemgetter(3), events))) <= cards):
            return None
    except TypeError:  # a seat or card that is not even hashable, or cards that are no list: found below
        pass
    for seq, event in enumerate(events):
        kind, where = brief(event[1]), f"(event {seq}, battle {brief(event[0])})"
        try:
            seat = event[2] if event[2] is not None and event[2] not in seats else None
            named = next((s for s in event[4] if s not in seats), None)
            card = next((c for c in event[3] if c not in cards), None)
        except TypeError:
            return seq, f"a {kind} event whose seat, seats or cards are not numbers {where}"
        if seat is not None:
            return seq, f"a {kind} event by seat {brief(seat)}, not a seat of this {players}-seat game {where}"
        if named is not None:
            return seq, f"a {kind} event naming seat {brief(named)}, not a seat of this {players}-seat game {where}"
        if card is not None:
            return seq, f"a {kind} event with card {brief(card)}, not a card of this {deck_size}-card deck {where}"
    return None


def wars_said(events: list) -> tuple[int, int, int, bool]:
    """What a game's `war` events say of its wars, as its Summary counts them (count_war): the
    wars (one event a war, a double war two), the battles with one, the deepest, and whether
    the first battle had one."""
    depths = [(event[0], event[6]) for event in events if event[1] == "war"]
    battles = {battle for battle, _ in depths}
    return len(depths), len(battles), max((depth for _, depth in depths), default=0), 1 in battles


class CheckingRecorder(Recorder):
    """Compares every event the engine makes with the logged one; stops at the first difference,
    keeping the event the engine made there (`made`, its fields) for the caller to judge: an
    event no log holds is the engine's fault, not the log's."""

    __slots__ = ("log", "made")

    def __init__(self, log: list[Event]) -> None:
        super().__init__()
        self.log = log
        self.made: tuple | None = None

    def next_logged(self) -> Event | None:
        """The logged event that the engine's next one must equal; None past the log's end."""
        seq = len(self.events)
        return self.log[seq] if seq < len(self.log) else None

    def emit(self, battle, kind, seat=None, cards=(), seats=(), options=(), value=None, note=None):
        made = (battle, kind, seat, tuple(cards), tuple(seats), tuple(options), value, note)
        found = self.next_logged()
        if found != made:  # an Event equals the plain tuple of its fields
            self.made = made
            raise LogMismatch(len(self.events), describe(_event(Event, made)), describe(found))
        self.events.append(found)

    def finish(self) -> None:
        if len(self.events) != len(self.log):
            seq = len(self.events)
            raise LogMismatch(seq, "no event after the end", describe(self.log[seq]))
