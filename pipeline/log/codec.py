"""The event log on disk: one row per battle, not per event.

A game's log is a list of events (`engines.event.Event`); this module turns it into rows of
`events/` files and back, losslessly. Each row holds the events of one battle (a run of events
with the same battle number):

- `shape`, a short text saying everything about those events except their cards, e.g.
  `play:0#1 play:1#1 collect:1@1,0`. Most battles of a game share a handful of shapes, and
  Parquet stores each distinct shape once per row group, so a battle's structure costs a few
  bits.
- `cards`, the cards of the events, concatenated, and a decision's options after its cards;
  except for the cards of a *take* (a collect or a set-aside) that takes exactly the cards on
  the table: those are stored as the order in which it takes them: `@1,0` in the shape for up
  to three cards; beyond, `@t` for the table's order, `@w` for the taker's cards first (see
  below), else `@*` and the table positions after all the row's cards.

One token per event:

    kind[:seat][#n][@i,j,k | @t | @w | @*][[seats]][{m}][=value][!note]

`#n`: the event's n cards, the next values of `cards`. `{m}`: its m options, the values after
them (options vary from battle to battle, so they stay out of the shape). `@i,j,k`: a take of
the whole table, in this order of the table's positions; `@*`: the same with the order after
the row's cards and options (the `@*` takes' positions one take after the other). `@t`: a take
of the whole table in its order; `@w`: in the order winner_first gives, the taker's cards,
then every other seat's in seat order, each seat's in table order (the fixed pickups, and
Classic War's set-asides, take most wars' tables in one of these, and their positions then
cost nothing); each only for a table of more than three cards. The table is every card of a
`play`, `down` or `forfeit` event of the row since the last such take, each owned by its
event's seat. A take that is anything else keeps its cards as they are, so the encoding never
depends on the game following the rules. `=b`: an `end` whose value (the battles played) is its row's battle
number, as every game's end is; spelt as a number, every game's last row would be a shape of
its own.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, NamedTuple

from ..engines.event import Event, one_word
from ..engines.play import winner_first
from ..errors import DatasetError
from ..model.event_kinds import KINDS, with_role

TABLE_KINDS = frozenset(k.name for k in KINDS if k.puts)  # the kinds whose cards make up the table
TAKE_KINDS = frozenset(k.name for k in KINDS if k.takes)  # the kinds that take cards off it
END_KINDS = with_role("ends_game")  # the kinds of a game's end, whose value is the battles played
SMALL_ORDER = 3  # a take of up to this many cards spells its order in the shape

TOKEN = re.compile(r"([a-z_]+)(?::(\d+))?(?:#(\d+))?(?:@(\*|t|w|[\d,]+))?(?:\[([\d,]*)\])?"
                   r"(?:\{(\d+)\})?(?:=(-?\d+|b))?(?:!(\S+))?")
BATTLE_VALUE = "b"  # an end's value spelt as its row's battle
LISTED, TABLE_ORDER, WINNER_FIRST = "*", "t", "w"  # how a take of more than SMALL_ORDER cards spells its order


class Row(NamedTuple):
    """One row of an `events/` file, before the game_id."""

    seq: int
    battle: int
    shape: str
    cards: list[int]  # raw cards and options, then the positions of the `@*` takes


class Step(NamedTuple):
    """One parsed token."""

    kind: str
    seat: int | None
    count: int                 # raw cards
    take: tuple[int, ...] | None  # the order of a whole-table take spelt in the shape
    order: str | None          # a longer whole-table take's order: LISTED, TABLE_ORDER or WINNER_FIRST
    seats: tuple[int, ...]
    options: int               # option values, after the raw cards
    value: int | str | None    # "b" for an end's value that is its row's battle
    note: str | None


class CodecError(DatasetError):
    """A row of an `events/` file that no log encodes to; `seq` is where its events would start."""

    def __init__(self, message: str, seq: int | None = None, game_id: int | None = None) -> None:
        super().__init__(message)
        self.seq, self.game_id = seq, game_id


def _ints(values: Iterable[int]) -> str:
    return ",".join(str(v) for v in values)


def token(kind: str, seat, count: int, take, order: str | None, seats, options: int, value, note) -> str:
    parts = [kind]
    if seat is not None:
        parts.append(f":{seat}")
    if count:
        parts.append(f"#{count}")
    if order is not None:
        parts.append("@" + order)
    elif take is not None:
        parts.append("@" + _ints(take))
    if seats:
        parts.append(f"[{_ints(seats)}]")
    if options:
        parts.append(f"{{{options}}}")
    if value is not None:
        parts.append(f"={value}")
    if note is not None:
        if not one_word(note):
            raise CodecError(f"a note must be one word, got {note!r}")
        parts.append(f"!{note}")
    return "".join(parts)


def _take_order(cards, table: list[int]) -> list[int] | None:
    """The positions on the table of `cards` when they are exactly the table's cards, else None."""
    if not cards or len(cards) != len(table):
        return None
    where = {c: i for i, c in enumerate(table)}
    if len(where) != len(table):
        return None
    order = [where.get(c, -1) for c in cards]
    if -1 in order or len(set(order)) != len(order):
        return None
    return order


def winner_first_positions(owners: list, seat) -> list[int] | None:
    """The positions of a table whose cards `owners` put down, in the pickup order winner_first
    gives a take by `seat` (engines.play.winner_first). None when the take or a card has no
    seat (None, or below 0 as in the compiled engine's arrays)."""
    if seat is None or seat < 0 or any(owner is None or owner < 0 for owner in owners):
        return None
    by_seat: list[list[int]] = [[] for _ in range(max([seat, *owners]) + 1)]
    for position, owner in enumerate(owners):
        by_seat[owner].append(position)
    return winner_first(by_seat, seat)


def spelt_order(taken: list[int], owners: list, seat) -> str:
    """How a whole-table take of more than SMALL_ORDER cards spells its order (module docstring)."""
    if taken == list(range(len(taken))):
        return TABLE_ORDER
    if taken == winner_first_positions(owners, seat):
        return WINNER_FIRST
    return LISTED


def encode(log: Iterable[Event]) -> list[Row]:
    """A game's events as rows, one per run of events with the same battle number."""
    rows: list[Row] = []
    tokens: list[str] = []
    cards: list[int] = []
    order: list[int] = []
    table: list[int] = []
    owners: list = []
    battle = None
    first = 0
    # An Event unpacked into its fields in order: generation encodes every event of the
    # reference engines, and one unpacking costs less than eight attribute reads.
    for seq, (b, kind, seat, ev_cards, seats, options, value, note) in enumerate(log):
        if b != battle:
            if battle is not None:
                rows.append(Row(first, battle, " ".join(tokens), cards + order))
            battle, first, tokens, cards, order, table, owners = b, seq, [], [], [], [], []
        taken = _take_order(ev_cards, table) if kind in TAKE_KINDS else None
        if taken is None:
            cards.extend(ev_cards)
            if kind in TABLE_KINDS:
                table.extend(ev_cards)
                owners.extend([seat] * len(ev_cards))
            if value == b and kind in END_KINDS:
                value = BATTLE_VALUE
            tokens.append(token(kind, seat, len(ev_cards), None, None, seats, len(options), value, note))
        else:
            small = len(taken) <= SMALL_ORDER
            spelt = None if small else spelt_order(taken, owners, seat)
            if spelt == LISTED:
                order.extend(taken)
            table, owners = [], []
            tokens.append(token(kind, seat, 0, tuple(taken) if small else None, spelt,
                                seats, len(options), value, note))
        cards.extend(options)
    if battle is not None:
        rows.append(Row(first, battle, " ".join(tokens), cards + order))
    return rows


def _opt_int(text):
    return None if text is None else int(text)


def _tuple(text) -> tuple[int, ...]:
    return tuple(int(v) for v in text.split(",")) if text else ()


@lru_cache(maxsize=65536)
def parse(shape: str) -> tuple[tuple[Step, ...], int]:
    """A shape's tokens, and how many of its row's values are raw cards and options (the rest
    are the `@*` takes' positions); CodecError names the first token that does not parse."""
    steps = []
    for text in shape.split(" "):
        m = TOKEN.fullmatch(text)
        if m is None:
            raise CodecError(f"cannot read event {text!r} of shape {shape!r}")
        kind, seat, count, take, seats, options, value, note = m.groups()
        order = take if take in (LISTED, TABLE_ORDER, WINNER_FIRST) else None
        steps.append(Step(kind, _opt_int(seat), int(count or 0), None if take is None or order else _tuple(take),
                          order, _tuple(seats), int(options or 0),
                          value if value == BATTLE_VALUE else _opt_int(value), note))
    return tuple(steps), sum(step.count + step.options for step in steps)


def decode_row(battle: int, shape: str, values) -> list[Event]:
    """The events of one row (its shape and its `cards` values); CodecError when the row is not
    a valid encoding."""
    steps, raw = parse(shape)
    if len(values) < raw:
        raise CodecError(f"battle {battle}: the row holds fewer cards than its shape names")
    cards, order = values[:raw], values[raw:]
    events = []
    at = 0
    oat = 0
    table: list[int] = []
    owners: list = []
    for step in steps:
        if step.take is not None or step.order:
            if step.order == LISTED:
                taken = order[oat:oat + len(table)]
                oat += len(table)
            elif step.order == TABLE_ORDER:
                taken = range(len(table))
            elif step.order == WINNER_FIRST:
                taken = winner_first_positions(owners, step.seat)
                if taken is None:
                    raise CodecError(f"battle {battle}: {step.kind} takes a table in winner_first order "
                                     "without a seat")
            else:
                taken = step.take
            if len(taken) != len(table) or sorted(taken) != list(range(len(table))) or \
                    len(table) <= SMALL_ORDER and step.order or len(table) > SMALL_ORDER and not step.order:
                raise CodecError(f"battle {battle}: {step.kind} takes positions {list(taken)} of a table of "
                                 f"{len(table)} cards")
            ev_cards = tuple(table[i] for i in taken)
            table, owners = [], []
        else:
            ev_cards = tuple(cards[at:at + step.count])
            at += step.count
            if step.kind in TABLE_KINDS:
                table.extend(ev_cards)
                owners.extend([step.seat] * step.count)
        options = tuple(cards[at:at + step.options])
        at += step.options
        value = step.value
        if value == BATTLE_VALUE:
            if step.kind not in END_KINDS:
                raise CodecError(f"battle {battle}: only an end's value is spelt as its battle, not a {step.kind}'s")
            value = battle
        events.append(Event(battle, step.kind, step.seat, ev_cards, step.seats, options, value, step.note))
    if oat != len(order):
        raise CodecError(f"battle {battle}: the row holds more cards than its shape names")
    return events


def decode(rows: Iterable[tuple]) -> list[Event]:
    """A game's events from its rows (seq, battle, shape, cards), in seq order."""
    events = []
    for seq, battle, shape, cards in rows:
        at = len(events)
        if seq != at:
            raise CodecError(f"battle {battle}: row starts at seq {seq}, expected {at}", at)
        try:
            events.extend(decode_row(battle, shape, cards))
        except CodecError as err:
            err.seq = at
            raise
    return events
