"""log.codec compiled: the compiled engine's event arrays (engines.compiled.layout) encoded as the
columns of `events/` rows, one row per battle, without a Python loop per event.

Each row's shape (every event of the row but its cards) is interned as an exact key of int64
words; equal keys are equal shapes and get one id, numbered in order of first appearance. The
text of each distinct shape is spelt once, in Python (`shape_texts`).

A key holds per event two words, then its value when it has one (a war's depth, an end's
battles, the war depth of a decision declared `war_depth` (Arneson's hand): the value of the
row's last war before it, 0 when none, as the engines' decisions give their option count in
the value column), then its seats, eight bytes a word:

- the event word: `(seat + 1) & 0xFFFFFFFF | kind << KIND_SHIFT | (note + 1) << NOTE_SHIFT |
  mode << MODE_SHIFT | has_value << HAS_VALUE_SHIFT | takes << TAKE_SIZE_SHIFT | positions |
  battle_value << BATTLE_VALUE_SHIFT`, battle_value for an end whose value is its row's battle
  (spelt `=b`, its value word left out),
  mode being RAW_CARDS, SMALL_TAKE (a take of the whole table, its `takes` positions spelt in
  the shape, TAKE_POSITION_BITS each from TAKE_ORDER_SHIFT), TABLE_ORDER_TAKE or
  WINNER_FIRST_TAKE (a longer take of the whole table in the order `@t` or `@w` says), or
  LISTED_TAKE (one whose order follows the row's cards);
- the count word: `cards | seats << SEAT_COUNT_SHIFT | options << OPTION_COUNT_SHIFT`, its raw
  cards, its seats and a decision's options (the values after its cards, layout.EVENT_COLUMNS).

Kinds, notes and the positions of a small take fit their bits, so equal keys are equal shapes.

A duel row (two plays of one card, a collect of both: most rows of a two-seat game) skips all
this once a row of its kind has gone through it: its shape id is kept by `duel_code`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..engines.compiled.layout import (
    EVENT_BATTLE, EVENT_CARDS_END, EVENT_KIND, EVENT_NOTE, EVENT_SEAT, EVENT_SEATS_END, EVENT_VALUE,
    KIND_COLLECT, KIND_DECISION, KIND_END, KIND_PLAY, KIND_WAR, MAX_PLAYERS, NO_NOTE, WAR_DEPTH_NOTES,
)
from ..engines.compiled.rng import HASH_START, _fold, _mix
from ..engines.compiled.jit import borrowing
from ..engines.compiled.state import ZERO
from ..model.event_kinds import KINDS
from .codec import LISTED, SMALL_ORDER, TABLE_ORDER, WINNER_FIRST

KIND_SHIFT, NOTE_SHIFT, MODE_SHIFT, HAS_VALUE_SHIFT, TAKE_SIZE_SHIFT, TAKE_ORDER_SHIFT = 32, 40, 48, 51, 52, 54
TAKE_POSITION_BITS = 2
BATTLE_VALUE_SHIFT = TAKE_ORDER_SHIFT + SMALL_ORDER * TAKE_POSITION_BITS
SEAT_COUNT_SHIFT, OPTION_COUNT_SHIFT = 32, 48
RAW_CARDS, SMALL_TAKE, LISTED_TAKE, TABLE_ORDER_TAKE, WINNER_FIRST_TAKE = range(5)
MODE_MASK = 7
TAKE_ORDERS = {LISTED_TAKE: LISTED, TABLE_ORDER_TAKE: TABLE_ORDER, WINNER_FIRST_TAKE: WINNER_FIRST}
assert SMALL_ORDER < 1 << TAKE_POSITION_BITS and SMALL_ORDER < 1 << (TAKE_ORDER_SHIFT - TAKE_SIZE_SHIFT)
assert WINNER_FIRST_TAKE <= MODE_MASK < 1 << (HAS_VALUE_SHIFT - MODE_SHIFT)
assert BATTLE_VALUE_SHIFT < 63


class EngineEvents(NamedTuple):
    """What the encoder reads: the games' ids and the engine's event arrays."""

    game_ids: np.ndarray     # int64 [games]
    rows: np.ndarray         # int32 [events, len(EVENT_COLUMNS)]
    card_values: np.ndarray  # int16
    seat_values: np.ndarray  # int8
    counts: np.ndarray       # int64 [games]: events of each game


class RowColumns(NamedTuple):
    """What it writes, the columns of `events/` rows (list columns as values and offsets)."""

    game_id: np.ndarray      # int64 [rows]
    seq: np.ndarray          # int32 [rows]
    battle: np.ndarray       # int32 [rows]
    shape: np.ndarray        # int32 [rows]: shape ids
    card_offsets: np.ndarray  # int32 [rows + 1]
    cards: np.ndarray        # int16: each row's cards and options, then its listed takes' positions


class ShapeTable(NamedTuple):
    """The distinct shapes: shape k's key is keys[key_start[k]:key_start[k + 1]], found by hash
    in `slots` (open addressing, -1 for empty). `key` is the row being encoded. `duels` holds
    the shape id of each kind of duel row met so far (see duel_code), -1 for none yet."""

    key: np.ndarray          # int64
    keys: np.ndarray         # int64
    key_start: np.ndarray    # int64 [shapes + 1]
    key_hash: np.ndarray     # uint64 [shapes]
    slots: np.ndarray        # int32 [power of two]
    duels: np.ndarray        # int32 [DUEL_CODES]


class TableMarks(NamedTuple):
    """The table of the row being encoded, by card code: a card is on the table when
    table_stamp[card] is the current table stamp, at table_position[card]; a take marks the
    positions it took with its own stamp in taken_stamp, so a take is checked in one pass over
    its cards whatever their codes. The positions of the row's listed takes wait in taken_order
    until the row's cards are written. table_owner[position] is the seat that put that card
    down."""

    table_stamp: np.ndarray     # int64 [card codes]
    table_position: np.ndarray  # int64 [card codes]
    taken_stamp: np.ndarray     # int64 [positions]
    taken_order: np.ndarray     # int16 [a batch's card values]
    table_owner: np.ndarray     # int64 [a batch's card values]


class Encoding(NamedTuple):
    """Everything the encoder's steps read and write."""

    events: EngineEvents
    columns: RowColumns
    shapes: ShapeTable
    marks: TableMarks
    roles: np.ndarray           # int8 [kinds]: each kind's part in the table (ROLES)
    # bool [notes]: a decision whose value is its war's depth (layout.WAR_DEPTH_NOTES), an array
    # the pass is given rather than a global, so a cached encoder never holds another registry's
    war_depth: np.ndarray = WAR_DEPTH_NOTES


# What an event of each kind (by its code) does to the table, from the registry
# (model.event_kinds): puts cards on it, or takes cards off it (a take, whose order the shape
# can spell when it takes the whole table).
PUTS, TAKES = 1, 2
ROLES = np.array([PUTS if k.puts else TAKES if k.takes else 0 for k in KINDS], np.int8)


# A duel row: two plays of one card each, then a collect of exactly those two cards, and nothing
# else (`play:0#1 play:1#1 collect:1@1,0`), most rows of most games. Its shape depends only on
# the two seats, the collector and the order it takes the cards in: duel_code, one of
# DUEL_CODES for seats below DUEL_SEATS (every seat of the compiled engines).
DUEL_SEATS = 8
DUEL_CODES = 2 * DUEL_SEATS ** 3
assert MAX_PLAYERS <= DUEL_SEATS

# Where an encoding pass stands (the cursor array): at the start of a row, so that it can resume
# there after a buffer grew. NEED is what the buffer that was too small must hold.
GAME, FIRST_EVENT, EVENT, ROW, CARDS, SHAPES, TABLE_STAMP, TAKE_STAMP, NEED = range(9)
# What an encoding pass returns.
DONE, GROW_KEY, GROW_SHAPES = range(3)


# ---------------------------------------------------------------- one event

# The encoder's steps below are each called once, in encode_pass: compiled once each and
# inlined by LLVM when the pass links them in (jit.borrowing, `inline="linked"`), rather than
# by numba, which typed and lowered them again inside the pass and made its compile about 1.5x
# as long. They compute at the pass's -O3: its module's passes run over them once linked in.

@borrowing(inline="linked")
def whole_table_take(first_card, count, table_stamp, take_stamp, order_fill, encoding):
    """Whether cards [first_card, first_card + count) are the whole table, each once; their table
    positions go to marks.taken_order at order_fill on the way. Returns (whether, the positions
    packed for a small take)."""
    marks = encoding.marks
    packed = np.int64(0)
    for j in range(count):
        card = encoding.events.card_values[first_card + j]
        position = marks.table_position[card]
        if marks.table_stamp[card] != table_stamp or marks.taken_stamp[position] == take_stamp:
            return False, packed
        marks.taken_stamp[position] = take_stamp
        marks.taken_order[order_fill + j] = position
        if count <= SMALL_ORDER:
            packed |= position << (TAKE_ORDER_SHIFT + TAKE_POSITION_BITS * j)
    return True, packed


@borrowing(inline="linked")
def put_on_table(first_card, count, seat, table_stamp, table_size, duplicate, encoding):
    """Cards [first_card, first_card + count) join the table, put down by `seat`: returns (table
    size, whether a card is on it twice)."""
    marks = encoding.marks
    for j in range(count):
        card = encoding.events.card_values[first_card + j]
        if marks.table_stamp[card] == table_stamp:
            duplicate = True
        marks.table_stamp[card] = table_stamp
        marks.table_position[card] = table_size
        marks.table_owner[table_size] = seat
        table_size += 1
    return table_size, duplicate


@borrowing(inline="linked")
def long_take_mode(order_fill, count, seat, marks):
    """How a whole-table take of more than SMALL_ORDER cards by `seat`, its positions at
    marks.taken_order[order_fill:order_fill + count], spells its order (log.codec.spelt_order):
    TABLE_ORDER_TAKE, WINNER_FIRST_TAKE or LISTED_TAKE. The positions are a permutation of the
    table's, so they are winner_first's order exactly when their keys (0 for the taker's
    cards, 1 + seat for the others', then the position) rise."""
    in_order = True
    for j in range(count):
        if marks.taken_order[order_fill + j] != j:
            in_order = False
            break
    if in_order:
        return TABLE_ORDER_TAKE
    if seat < 0:
        return LISTED_TAKE
    last = np.int64(-1)
    for j in range(count):
        position = np.int64(marks.taken_order[order_fill + j])
        owner = marks.table_owner[position]
        if owner < 0:
            return LISTED_TAKE
        key = (np.int64(0) if owner == seat else owner + 1) * count + position
        if key <= last:
            return LISTED_TAKE
        last = key
    return WINNER_FIRST_TAKE


@borrowing(inline="linked")
def append_key(event_word, count_word, value, first_seat, seat_count, key_size, key_hash, encoding):
    """The event's key words after shapes.key[:key_size] (there is room): returns (key size,
    hash)."""
    events, key = encoding.events, encoding.shapes.key
    key[key_size] = event_word
    key[key_size + 1] = count_word
    key_hash = _fold(_fold(key_hash, event_word), count_word)
    key_size += 2
    if (event_word >> HAS_VALUE_SHIFT) & 1:
        key[key_size] = value
        key_hash = _fold(key_hash, value)
        key_size += 1
    for j in range(0, seat_count, 8):
        word = np.int64(0)
        for b in range(j, min(j + 8, seat_count)):
            word |= (np.int64(events.seat_values[first_seat + b]) & 0xFF) << (8 * (b - j))
        key[key_size] = word
        key_hash = _fold(key_hash, word)
        key_size += 1
    return key_size, key_hash


# ---------------------------------------------------------------- one row

@borrowing(inline="linked")
def duel_code(event, stop, first_card, first_seat, events):
    """The code of the duel row at `event` (see DUEL_CODES), from its seats and take order; -1
    when the row is anything else. Such a row's shape is a function of its code and its cards
    are the two played, so once one row of a code has been encoded in full, the next ones are
    written at once (encode_pass)."""
    rows = events.rows
    if event + 3 > stop:
        return -1
    battle = rows[event, EVENT_BATTLE]
    if (rows[event + 1, EVENT_BATTLE] != battle or rows[event + 2, EVENT_BATTLE] != battle
            or event + 3 < stop and rows[event + 3, EVENT_BATTLE] == battle):
        return -1
    if rows[event, EVENT_KIND] != KIND_PLAY or rows[event + 1, EVENT_KIND] != KIND_PLAY or \
            rows[event + 2, EVENT_KIND] != KIND_COLLECT:
        return -1
    if rows[event, EVENT_CARDS_END] != first_card + 1 or rows[event + 1, EVENT_CARDS_END] != first_card + 2 or \
            rows[event + 2, EVENT_CARDS_END] != first_card + 4 or rows[event + 2, EVENT_SEATS_END] != first_seat:
        return -1
    if rows[event, EVENT_NOTE] != NO_NOTE or rows[event + 1, EVENT_NOTE] != NO_NOTE or \
            rows[event + 2, EVENT_NOTE] != NO_NOTE:
        return -1
    a, b, winner = rows[event, EVENT_SEAT], rows[event + 1, EVENT_SEAT], rows[event + 2, EVENT_SEAT]
    if not (0 <= a < DUEL_SEATS and 0 <= b < DUEL_SEATS and 0 <= winner < DUEL_SEATS):
        return -1
    cards = events.card_values
    first, second = cards[first_card], cards[first_card + 1]
    taken_first, taken_second = cards[first_card + 2], cards[first_card + 3]
    if first == second:
        return -1
    if taken_first == first and taken_second == second:
        swapped = 0
    elif taken_first == second and taken_second == first:
        swapped = 1
    else:
        return -1
    return ((np.int64(a) * DUEL_SEATS + b) * DUEL_SEATS + winner) * 2 + swapped


@borrowing(inline="linked")
def encode_row(event, stop, first_card, first_seat, card_fill, table_stamp, take_stamp, encoding):
    """The row of the events from `event` with its battle (before `stop`, the game's end; its
    cards and seats from first_card and first_seat): its cards and takes into the columns, its
    key into shapes.key. Returns (GROW_KEY or DONE, the event after the row, the cards' fill, the
    stamps, the key's size and hash); on GROW_KEY the key size is the room the key needs."""
    events, columns = encoding.events, encoding.columns
    rows = events.rows
    battle = rows[event, EVENT_BATTLE]
    table_stamp += 1
    table_size = ZERO
    duplicate = np.bool_(False)
    key_size = ZERO
    key_hash = HASH_START
    depth = np.int64(0)
    order_fill = ZERO
    while event < stop and rows[event, EVENT_BATTLE] == battle:
        kind = rows[event, EVENT_KIND]
        count = rows[event, EVENT_CARDS_END] - first_card
        seat_count = rows[event, EVENT_SEATS_END] - first_seat
        event_word = ((np.int64(rows[event, EVENT_SEAT]) + 1) & 0xFFFFFFFF) | (np.int64(kind) << KIND_SHIFT) | \
            (np.int64(rows[event, EVENT_NOTE] + 1) << NOTE_SHIFT)
        whole = False
        packed = np.int64(0)
        if encoding.roles[kind] == TAKES and count == table_size and count > 0 and not duplicate:
            take_stamp += 1
            whole, packed = whole_table_take(first_card, count, table_stamp, take_stamp, order_fill, encoding)
        if whole:
            if count <= SMALL_ORDER:
                event_word |= (np.int64(SMALL_TAKE) << MODE_SHIFT) | (np.int64(count) << TAKE_SIZE_SHIFT) | packed
            else:
                mode = long_take_mode(order_fill, count, rows[event, EVENT_SEAT], encoding.marks)
                event_word |= np.int64(mode) << MODE_SHIFT
                if mode == LISTED_TAKE:
                    order_fill += count
            table_stamp += 1
            table_size = ZERO
            duplicate = False
            raw = 0
        else:
            raw = count
            for j in range(count):
                columns.cards[card_fill + j] = events.card_values[first_card + j]
            card_fill += count
            if encoding.roles[kind] == PUTS:
                table_size, duplicate = put_on_table(first_card, count, rows[event, EVENT_SEAT], table_stamp,
                                                     table_size, duplicate, encoding)
        options = np.int64(rows[event, EVENT_VALUE]) if kind == KIND_DECISION else np.int64(0)
        value = np.int64(rows[event, EVENT_VALUE])
        if kind == KIND_WAR:
            depth = value
        note = rows[event, EVENT_NOTE]
        in_war = kind == KIND_DECISION and note >= 0 and encoding.war_depth[note]
        if in_war:
            value = depth
        has_value = kind == KIND_WAR or kind == KIND_END or in_war
        if kind == KIND_END and value == battle:
            event_word |= np.int64(1) << BATTLE_VALUE_SHIFT
            has_value = False
        need = key_size + 3 + (seat_count + 7) // 8
        if need > encoding.shapes.key.shape[0]:
            return GROW_KEY, event, card_fill, table_stamp, take_stamp, need, key_hash
        event_word |= np.int64(has_value) << HAS_VALUE_SHIFT
        count_word = (np.int64(raw) - options) | (np.int64(seat_count) << SEAT_COUNT_SHIFT) | \
            (options << OPTION_COUNT_SHIFT)
        key_size, key_hash = append_key(event_word, count_word, value,
                                        first_seat, seat_count, key_size, key_hash, encoding)
        first_card = rows[event, EVENT_CARDS_END]
        first_seat = rows[event, EVENT_SEATS_END]
        event += 1
    for j in range(order_fill):
        columns.cards[card_fill + j] = encoding.marks.taken_order[j]
    card_fill += order_fill
    return DONE, event, card_fill, table_stamp, take_stamp, key_size, _mix(key_hash)


@borrowing(inline="linked")
def find_shape(key, key_size, key_hash, keys, key_start, key_hashes, slots):
    """The id of the shape key[:key_size] (hash key_hash), comparing whole keys on a hash hit so
    that two different keys never share an id; -1 - slot when it is new, `slot` being where it
    goes."""
    slot_mask = slots.shape[0] - 1
    slot = np.int64(key_hash & np.uint64(slot_mask))
    while True:
        shape = slots[slot]
        if shape < 0:
            return -1 - slot
        start = key_start[shape]
        if key_hashes[shape] == key_hash and key_start[shape + 1] - start == key_size:
            same = True
            for i in range(key_size):
                if keys[start + i] != key[i]:
                    same = False
                    break
            if same:
                return shape
        slot = (slot + 1) & slot_mask


@borrowing(inline="linked")
def intern_shape(key_size, key_hash, shape_count, shapes):
    """The id of the row's shape (shapes.key[:key_size]), a new one numbered shape_count when it
    is new; -1 when the shape table must grow first."""
    found = find_shape(shapes.key, key_size, key_hash, shapes.keys, shapes.key_start, shapes.key_hash,
                       shapes.slots)
    if found >= 0:
        return found
    start = shapes.key_start[shape_count]
    if (start + key_size > shapes.keys.shape[0] or shape_count + 2 > shapes.key_start.shape[0]
            or 2 * (shape_count + 1) > shapes.slots.shape[0]):
        return -1
    for i in range(key_size):
        shapes.keys[start + i] = shapes.key[i]
    shapes.key_start[shape_count + 1] = start + key_size
    shapes.key_hash[shape_count] = key_hash
    shapes.slots[-1 - found] = shape_count
    return shape_count


# ---------------------------------------------------------------- all rows

@borrowing(quick=False, entry=True)
def encode_pass(cursor, encoding):
    """The rows from where `cursor` says. Returns DONE, or the buffer to grow (the key, or the
    shape table) before the caller calls again, which encodes that row again."""
    events, columns = encoding.events, encoding.columns
    games = events.counts.shape[0]
    game, first_event, event, row = cursor[GAME], cursor[FIRST_EVENT], cursor[EVENT], cursor[ROW]
    card_fill, shape_count = cursor[CARDS], cursor[SHAPES]
    table_stamp, take_stamp = cursor[TABLE_STAMP], cursor[TAKE_STAMP]
    while True:
        while game < games and event == first_event + events.counts[game]:
            first_event = event
            game += 1
        if game == games:
            break
        cursor[GAME], cursor[FIRST_EVENT], cursor[EVENT], cursor[ROW] = game, first_event, event, row
        cursor[CARDS], cursor[SHAPES] = card_fill, shape_count
        columns.game_id[row] = events.game_ids[game]
        columns.seq[row] = event - first_event
        columns.battle[row] = events.rows[event, EVENT_BATTLE]
        stop = first_event + events.counts[game]
        first_card = events.rows[event - 1, EVENT_CARDS_END] if event > 0 else 0
        first_seat = events.rows[event - 1, EVENT_SEATS_END] if event > 0 else 0
        duel = duel_code(event, stop, first_card, first_seat, events)
        shape = encoding.shapes.duels[duel] if duel >= 0 else -1
        if shape >= 0:  # as encode_row would: the two cards played, the take spelt in the shape
            columns.cards[card_fill] = events.card_values[first_card]
            columns.cards[card_fill + 1] = events.card_values[first_card + 1]
            card_fill += 2
            event += 3
        else:
            status, event, card_fill, table_stamp, take_stamp, key_size, key_hash = encode_row(
                event, stop, first_card, first_seat, card_fill, table_stamp, take_stamp, encoding)
            if status == DONE:
                shape = intern_shape(key_size, key_hash, shape_count, encoding.shapes)
                if shape < 0:
                    status = GROW_SHAPES
            if status != DONE:
                cursor[TABLE_STAMP], cursor[TAKE_STAMP], cursor[NEED] = table_stamp, take_stamp, key_size
                return status
            if shape == shape_count:
                shape_count += 1
            if duel >= 0:
                encoding.shapes.duels[duel] = shape
        columns.shape[row] = shape
        row += 1
        columns.card_offsets[row] = card_fill
    cursor[GAME], cursor[EVENT], cursor[ROW] = game, event, row
    cursor[CARDS], cursor[SHAPES] = card_fill, shape_count
    cursor[TABLE_STAMP], cursor[TAKE_STAMP] = table_stamp, take_stamp  # the next batch's stamps go on
    return DONE


# The buffers are made and grown in Python: compiled, each allocation would add to the first
# run's compile time, and they run once a shard or when a buffer grows.
