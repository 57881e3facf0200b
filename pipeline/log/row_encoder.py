"""The compiled encoder from Python: its buffers, made and grown between passes (RowEncoder), a
batch of games' events encoded a pass at a time (compiled_codec.encode_pass), and the texts of
the shapes its keys stand for (`shape_texts`, spelt by log.codec.token)."""

from __future__ import annotations


import numpy as np

from ..engines.compiled.layout import NOTES
from ..model.schema import EVENT_KINDS
from .codec import BATTLE_VALUE, token

from .compiled_codec import (
    BATTLE_VALUE_SHIFT, CARDS, DONE, DUEL_CODES, EVENT, Encoding, EngineEvents, FIRST_EVENT, GAME,
    GROW_KEY, HAS_VALUE_SHIFT, KIND_SHIFT, MODE_MASK, MODE_SHIFT, NEED, NOTE_SHIFT,
    OPTION_COUNT_SHIFT, ROLES, ROW, RowColumns, SEAT_COUNT_SHIFT, SHAPES, SMALL_TAKE, ShapeTable,
    TAKE_ORDERS, TAKE_ORDER_SHIFT, TAKE_POSITION_BITS, TAKE_SIZE_SHIFT, TableMarks, encode_pass,
)


def grown(array: np.ndarray, need: int) -> np.ndarray:
    bigger = np.empty(max(2 * array.shape[0], need), array.dtype)
    bigger[:array.shape[0]] = array
    return bigger


def rehashed(key_hash: np.ndarray, shape_count: int, size: int) -> np.ndarray:
    """Slots of `size` for the first shape_count shapes."""
    slots = np.full(size, -1, np.int32)
    slot_mask = size - 1
    for shape in range(shape_count):
        slot = int(key_hash[shape]) & slot_mask
        while slots[slot] >= 0:
            slot = (slot + 1) & slot_mask
        slots[slot] = shape
    return slots


def grown_shapes(status: int, need: int, shape_count: int, shapes: ShapeTable) -> ShapeTable:
    """The shape table with room for what the last pass needed."""
    if status == GROW_KEY:
        return shapes._replace(key=grown(shapes.key, need))
    keys, key_start, key_hash, slots = shapes.keys, shapes.key_start, shapes.key_hash, shapes.slots
    if key_start[shape_count] + need > keys.shape[0]:
        keys = grown(keys, key_start[shape_count] + need)
    if shape_count + 2 > key_start.shape[0]:
        key_start = grown(key_start, shape_count + 2)
        key_hash = grown(key_hash, shape_count + 2)
    if 2 * (shape_count + 1) > slots.shape[0]:
        slots = rehashed(key_hash, shape_count, 2 * slots.shape[0])
    return ShapeTable(shapes.key, keys, key_start, key_hash, slots, shapes.duels)


def new_columns(rows: int, cards: int) -> RowColumns:
    """Columns for up to `rows` rows and `cards` cards."""
    columns = RowColumns(np.empty(rows, np.int64), np.empty(rows, np.int32), np.empty(rows, np.int32),
                         np.empty(rows, np.int32), np.empty(rows + 1, np.int32), np.empty(cards, np.int16))
    columns.card_offsets[0] = 0
    return columns


def grown_columns(columns: RowColumns, rows: int, cards: int, filled: np.ndarray) -> RowColumns:
    """Columns for up to `rows` rows and `cards` cards holding what `columns` hold so far (as far
    as the cursor `filled` says)."""
    bigger = new_columns(rows, cards)
    row, card = int(filled[ROW]), int(filled[CARDS])
    for old, new, used in zip(columns, bigger, (row, row, row, row, row + 1, card)):
        new[:used] = old[:used]
    return bigger


def new_shapes() -> ShapeTable:
    """An empty shape table with room for a 2,000-game shard's shapes (about 1,200 - 1,600 of
    25,000 - 30,000 key words in Classic War), so that a shard is encoded without growing it."""
    return ShapeTable(np.empty(256, np.int64), np.empty(1 << 15, np.int64), np.zeros(2048, np.int64),
                      np.empty(2048, np.uint64), np.full(4096, -1, np.int32), np.full(DUEL_CODES, -1, np.int32))


class RowEncoder:
    """The `events/` rows of a range of games, encoded batch after batch of the engine's games
    (`add`), as they would be in one pass over all of them: shape ids, rows and cards run on
    from batch to batch. A shard's games are played and encoded a batch at a time
    (log.batches.compiled_shard) so that a batch's events are still in the processor's cache
    when they are encoded; one pass over a whole shard's events read them back from memory
    (docs/decisions.md)."""

    def __init__(self, games: int = 0):
        self.games, self.seen = games, 0  # games expected in all, and added so far
        self.columns = new_columns(0, 0)
        self.shapes = new_shapes()
        self.marks = TableMarks(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64),
                                np.zeros(0, np.int16), np.zeros(0, np.int64))
        self.cursor = np.zeros(NEED + 1, np.int64)

    @property
    def cards(self) -> int:
        """Card values in the rows so far."""
        return int(self.cursor[CARDS])

    def _room(self, rows: int, cards: int, games: int) -> None:
        """Room for `rows` more rows and `cards` more cards (at most a batch's events and card
        values), sized on the first growth for every game expected at this batch's rate."""
        cursor, columns = self.cursor, self.columns
        need_rows, need_cards = int(cursor[ROW]) + rows, int(cursor[CARDS]) + cards
        if need_rows <= columns.game_id.shape[0] and need_cards <= columns.cards.shape[0]:
            return
        scale = max(self.games - self.seen, games) / max(games, 1)
        self.columns = grown_columns(columns, max(need_rows, int(cursor[ROW] + rows * scale * 1.1),
                                                  2 * columns.game_id.shape[0]),
                                     max(need_cards, int(cursor[CARDS] + cards * scale * 1.1),
                                         2 * columns.cards.shape[0]), cursor)

    def add(self, game_ids, rows, card_values, seat_values, counts) -> None:
        """Encode the next games: their ids, the engine's event rows, card and seat values, and
        events a game (engines.compiled.layout)."""
        games = counts.shape[0]
        self._room(rows.shape[0], card_values.shape[0], games)
        codes = int(card_values.max()) + 1 if card_values.shape[0] else 1
        if codes > self.marks.table_stamp.shape[0]:  # zeros: older than any stamp
            self.marks = TableMarks(np.zeros(codes, np.int64), np.zeros(codes, np.int64), np.zeros(codes, np.int64),
                                    self.marks.taken_order, self.marks.table_owner)
        if card_values.shape[0] > self.marks.taken_order.shape[0]:  # a row's table and takes hold at most its card values
            self.marks = self.marks._replace(taken_order=np.empty(card_values.shape[0], np.int16),
                                             table_owner=np.empty(card_values.shape[0], np.int64))
        events = EngineEvents(game_ids, rows, card_values, seat_values, counts)
        cursor = self.cursor
        cursor[GAME] = cursor[FIRST_EVENT] = cursor[EVENT] = 0  # this batch's events from the first
        while True:
            status = encode_pass(cursor, Encoding(events, self.columns, self.shapes, self.marks, ROLES))
            if status == DONE:
                break
            self.shapes = grown_shapes(status, int(cursor[NEED]), int(cursor[SHAPES]), self.shapes)
        self.seen += games

    def result(self):
        """The columns (RowColumns, each cut to its length), and the distinct shapes' keys and
        their starts (see the module's docstring)."""
        cursor, columns, shapes = self.cursor, self.columns, self.shapes
        count, shape_count = int(cursor[ROW]), int(cursor[SHAPES])
        cut = RowColumns(columns.game_id[:count], columns.seq[:count], columns.battle[:count], columns.shape[:count],
                         columns.card_offsets[:count + 1], columns.cards[:cursor[CARDS]])
        return cut, shapes.keys[:shapes.key_start[shape_count]], shapes.key_start[:shape_count + 1]


def encode_rows(game_ids, rows, card_values, seat_values, counts):
    """log.codec.encode over the engine's arrays, as the columns of `events/` rows (RowColumns,
    each cut to its length) and the distinct shapes' keys and their starts (see the module's
    docstring)."""
    encoder = RowEncoder(counts.shape[0])
    encoder.add(game_ids, rows, card_values, seat_values, counts)
    return encoder.result()


# ---------------------------------------------------------------- the shapes' texts

_shape_texts: dict[bytes, str] = {}  # the text of each shape key (as bytes) spelt so far, across calls
_event_texts: dict[tuple, str] = {}  # the text of each event's key words spelt so far, across calls
_SHAPE_TEXTS_MAX = 1 << 16


def forget_shape_texts() -> None:
    """Drop every text kept, so that the next shapes are spelt anew."""
    _shape_texts.clear()
    _event_texts.clear()


def spell(words: list[int], events: dict) -> str:
    """One shape's text from its key's words, through log.codec.token; `events` keeps the text of
    each distinct event's words."""
    tokens = []
    i = 0
    while i < len(words):
        event_word, count_word = words[i], words[i + 1]
        seat_count = (count_word >> SEAT_COUNT_SHIFT) & 0xFFFF
        has_value = (event_word >> HAS_VALUE_SHIFT) & 1
        end = i + 2 + has_value + (seat_count + 7) // 8
        event = tuple(words[i:end])
        text = events.get(event)
        if text is None:
            seat = (event_word & 0xFFFFFFFF) - 1
            note = ((event_word >> NOTE_SHIFT) & 0xFF) - 1
            mode = (event_word >> MODE_SHIFT) & MODE_MASK
            takes = (event_word >> TAKE_SIZE_SHIFT) & 3
            take = tuple((event_word >> (TAKE_ORDER_SHIFT + TAKE_POSITION_BITS * t)) & 3 for t in range(takes)) \
                if mode == SMALL_TAKE else None
            seats = tuple((event[2 + has_value + t // 8] >> (8 * (t % 8))) & 0xFF for t in range(seat_count))
            value = BATTLE_VALUE if (event_word >> BATTLE_VALUE_SHIFT) & 1 else event[2] if has_value else None
            text = events[event] = token(EVENT_KINDS[(event_word >> KIND_SHIFT) & 0xFF], None if seat < 0 else seat,
                                         count_word & 0xFFFFFFFF, take, TAKE_ORDERS.get(mode), seats,
                                         count_word >> OPTION_COUNT_SHIFT, value,
                                         NOTES[note] if note >= 0 else None)
        tokens.append(text)
        i = end
    return " ".join(tokens)


def shape_texts(keys: np.ndarray, key_start: np.ndarray) -> list[str]:
    """The text of each shape interned by `encode_rows`. Most shapes recur from one batch of
    games to the next, so texts are kept by key (exact bytes, never a hash alone)."""
    raw = keys.astype("<i8", copy=False).tobytes()
    bounds = (key_start * 8).tolist()
    texts = []
    if len(_shape_texts) > _SHAPE_TEXTS_MAX or len(_event_texts) > _SHAPE_TEXTS_MAX:
        forget_shape_texts()
    for a, b in zip(bounds, bounds[1:]):
        k = raw[a:b]
        text = _shape_texts.get(k)
        if text is None:
            text = _shape_texts[k] = spell(keys[a // 8:b // 8].tolist(), _event_texts)
        texts.append(text)
    return texts
