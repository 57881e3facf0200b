"""The compiled half of csv_text: a batch's columns gathered from their Arrow buffers into a few
flat arrays by kind, and one kernel that writes its CSV lines from them. A module of its own so
that a small result's CSV imports no numba (csv_text writes it with pyarrow).

Its compiled code is keyed by this module's source with the engines' (jit.loading.source_stamp),
so its helper (_number, inlined) is never run from an older compile.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ..engines.compiled.jit import njit
from ..jobs.query.copy_pages import load8 as _load8
from .csv_kinds import BOOL, INT, LIST, TEXT, UINT, ULIST, kind

WORDS = 6  # a dictionary's text: its words quoted once, each row's written from them

_ONE, _TWO, _TEN, _HUNDRED = np.uint64(1), np.uint64(2), np.uint64(10), np.uint64(100)
_PAIRS = np.frombuffer("".join(f"{i:02d}" for i in range(100)).encode(), np.uint8).copy()  # "00" to "99"


@intrinsic
def _put(typingctx, array, at, value):
    """out[at] = value (its low byte), without the wrap-around numba adds to an index that may be
    negative: three more instructions a byte written, which the kernel's indices never need."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        byte = context.cast(builder, args[2], signature.args[2], types.uint8)
        builder.store(byte, builder.gep(data, [args[1]]))
        return context.get_dummy_value()
    return types.void(array, at, value), codegen


@intrinsic
def _at(typingctx, array, at):
    """array[at] of a one-dimensional array, read without numba's wrap-around of a negative index."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        return builder.load(builder.gep(data, [args[1]]))
    return array.dtype(array, at), codegen


@intrinsic
def _store8(typingctx, array, at, value):
    """Store 8 bytes (a uint64, little-endian) into a uint8 array at `at`, wherever it starts."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        builder.store(args[2], builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(64).as_pointer()), align=1)
        return context.get_dummy_value()
    return types.void(array, at, types.uint64), codegen


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _number(out, p, x, signed):
    """An integer's digits written at out[p], a minus sign first when `signed` and it is
    negative (else its 64 bits read unsigned); returns where the next cell starts."""
    if signed and x < 0:
        _put(out, p, 45)  # -
        p += 1
        u = np.uint64(-(x + 1)) + _ONE
    else:
        u = np.uint64(x)
    if u < _TEN:  # most numbers of a game are one or two digits
        _put(out, p, np.uint8(u) + 48)
        return p + 1
    if u < _HUNDRED:
        _put(out, p, _PAIRS[u * _TWO])
        _put(out, p + 1, _PAIRS[u * _TWO + _ONE])
        return p + 2
    d = 1  # digits
    t = u
    while t >= _HUNDRED:
        t //= _HUNDRED
        d += 2
    if t >= _TEN:
        d += 1
    q = p + d
    while u >= _HUNDRED:  # two digits at a time
        two = (u % _HUNDRED) * _TWO
        u //= _HUNDRED
        q -= 2
        _put(out, q, _PAIRS[two])
        _put(out, q + 1, _PAIRS[two + _ONE])
    if u >= _TEN:
        _put(out, q - 2, _PAIRS[u * _TWO])
        _put(out, q - 1, _PAIRS[u * _TWO + _ONE])
    else:
        _put(out, q - 1, np.uint8(u) + 48)
    return p + d


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _copy(out, p, source, a, n):
    """n bytes of `source` from `a` written at out[p], 8 at a time (both arrays have 8 bytes
    to spare past them); returns where the next cell starts."""
    for j in range(0, n, 8):
        _store8(out, p + j, _load8(source, a + j))
    return p + n


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _quote(out, p, data, a, e):
    """data[a:e] written at out[p] as CSV writes a text (in quotes, its quotes doubled);
    returns where the next cell starts."""
    _put(out, p, 34)
    p += 1
    for i in range(a, e):
        b = _at(data, i)
        _put(out, p, b)
        p += 1
        if b == 34:
            _put(out, p, 34)
            p += 1
    _put(out, p, 34)
    return p + 1


@njit(cache=True, nogil=True, error_model="numpy")
def _quoted(offsets, data, out_offsets, out):
    """Each text of `data` between `offsets` quoted (_quote), back to back in `out` from
    `out_offsets[0]`; out_offsets[i + 1] where the i-th ends."""
    q = out_offsets[0]
    for w in range(offsets.shape[0] - 1):
        q = _quote(out, q, data, offsets[w], offsets[w + 1])
        out_offsets[w + 1] = q
    return q


SMALL = 10000  # the integers below this are written from a table of their texts


def _table(tail: bytes) -> np.ndarray:
    """For each integer below SMALL its text followed by `tail`, in the low bytes of a uint64,
    and the length of the two in its top byte: a cell in one 8-byte store."""
    out = np.zeros(SMALL, np.uint64)
    for x in range(SMALL):
        text = str(x).encode() + tail
        out[x] = int.from_bytes(text, "little") | (len(text) << 56)
    return out


_DIGITS, _ITEMS = _table(b""), _table(b",")
ONE = 1000  # a list of one item below this is written from a table of its texts (`"[x]"`: cards, seats)
_ONE_ITEM = np.array([int.from_bytes(f'"[{x}]"'.encode(), "little") | (len(f'"[{x}]"') << 56) for x in range(ONE)],
                     np.uint64)
_SHIFT = np.uint64(56)
_TRUE, _FALSE, _NULL, _EMPTY, _NULL_ITEM = (np.uint64(int.from_bytes(w, "little")) for w in
                                             (b"true", b"false", b"null", b'"[]"', b"null,"))
MEMO = 24  # bytes of an integer's text kept to write again when the next row's is the same


@njit(cache=True, nogil=True, error_model="numpy")
def _rows(n, kinds, slots, nulls, valid, ints, starts, ends, text, lstarts, lends, items, item_valid,
          checked, words, word_at, memo, out, digits, item_texts, one_item):
    """CSV lines of `n` rows, a column each of `kinds` (its values in row `slots[c]` of the
    arrays of its kind, each flat, n values a row; its validity in row `nulls[c]` of `valid`,
    -1: no nulls): integers, booleans and a dictionary's indices in `ints`, texts from `starts`
    to `ends` in `text`, lists from `lstarts` to `lends` in `items` (`item_valid` where
    `checked[slot]`), a dictionary's word w quoted in `words` from word_at[w] (its indices
    offset to its words), into `out` (long enough for the longest such lines, and 32 bytes
    more). An integer of three characters or more is kept (`memo`, MEMO bytes a column) and
    written again while the column's value does not change: a game's rows share their game_id,
    a battle's its number. Returns the length written. Every index is read raw (_at, _put):
    none is negative."""
    p = 0
    columns = kinds.shape[0]
    last = np.zeros(columns, np.int64)
    size = np.zeros(columns, np.int64)  # of the text in memo, 0: none yet
    count = word_at.shape[0] - 1
    word_lo = np.zeros(max(count, 1), np.uint64)  # a word of at most 16 bytes in two 8-byte stores
    word_hi = np.zeros(max(count, 1), np.uint64)
    word_size = np.zeros(max(count, 1), np.int64)
    for w in range(count):
        a = word_at[w]
        word_size[w] = word_at[w + 1] - a
        if word_size[w] > 0:
            word_lo[w] = _load8(words, a)
        if word_size[w] > 8:
            word_hi[w] = _load8(words, a + 8)
    final = columns - 1
    for r in range(n):
        for c in range(columns):  # each cell, then its comma (the line's end after the last)
            tail = 44 if c < final else 10
            v = _at(nulls, c)
            if v >= 0 and _at(valid, v * n + r) == 0:
                _put(out, p, tail)
                p += 1
                continue
            k = _at(kinds, c)
            at = _at(slots, c) * n + r
            if k == INT or k == UINT:
                x = _at(ints, at)
                if 0 <= x < SMALL:
                    if c < final:  # the number and its comma in one store
                        t = _at(item_texts, x)
                        _store8(out, p, t)
                        p += np.int64(t >> _SHIFT)
                        continue
                    t = _at(digits, x)
                    _store8(out, p, t)
                    p += np.int64(t >> _SHIFT)
                elif x == _at(last, c) and _at(size, c) > 0:
                    _copy(out, p, memo, c * MEMO, MEMO)
                    p += _at(size, c)
                else:
                    q = _number(out, p, x, k == INT)
                    if q - p > 2:
                        last[c] = x
                        size[c] = q - p
                        _copy(memo, c * MEMO, out, p, MEMO)
                    p = q
            elif k == WORDS:
                w = _at(ints, at)
                e = _at(word_size, w)
                if e <= 16:
                    _store8(out, p, _at(word_lo, w))
                    _store8(out, p + 8, _at(word_hi, w))
                    p += e
                else:
                    p = _copy(out, p, words, _at(word_at, w), e)
            elif k == BOOL:
                if _at(ints, at) != 0:
                    _store8(out, p, _TRUE)
                    p += 4
                else:
                    _store8(out, p, _FALSE)
                    p += 5
            elif k == TEXT:
                p = _quote(out, p, text, _at(starts, at), _at(ends, at))
            else:
                a = _at(lstarts, at)
                e = _at(lends, at)
                if a == e:
                    _store8(out, p, _EMPTY)
                    p += 4
                elif e - a == 1 and 0 <= _at(items, a) < ONE and (_at(checked, _at(slots, c)) == 0
                                                                 or _at(item_valid, a) != 0):
                    t = _at(one_item, _at(items, a))
                    _store8(out, p, t)
                    p += np.int64(t >> _SHIFT)
                else:
                    _put(out, p, 34)
                    _put(out, p + 1, 91)  # [
                    p += 2
                    check = _at(checked, _at(slots, c)) != 0
                    signed = k == LIST
                    for i in range(a, e):  # each item and a comma, the last comma then taken back
                        if check and _at(item_valid, i) == 0:
                            _store8(out, p, _NULL_ITEM)
                            p += 5
                            continue
                        x = _at(items, i)
                        if 0 <= x < SMALL:
                            t = _at(item_texts, x)
                            _store8(out, p, t)
                            p += np.int64(t >> _SHIFT)
                        else:
                            p = _number(out, p, x, signed)
                            _put(out, p, 44)
                            p += 1
                    _put(out, p - 1, 93)  # ]
                    _put(out, p, 34)
                    p += 1
            _put(out, p, tail)
            p += 1
    return p


# ---------------------------------------------------------------- from Arrow buffers


def _bits(buffer, offset: int, n: int, out: np.ndarray) -> None:
    """n bits of an Arrow bitmap from `offset` into `out`, one uint8 (0 or 1) each."""
    _unpack(np.frombuffer(buffer, np.uint8, count=(offset + n + 7) // 8), offset, out[:n])


@njit(cache=True, nogil=True, error_model="numpy")
def _unpack(bitmap, offset, out):
    for i in range(out.shape[0]):
        j = offset + i
        out[i] = (bitmap[j >> 3] >> (j & 7)) & 1


@njit(cache=True, nogil=True, error_model="numpy")
def _indices(raw, valid, first, count, word_at, out):
    """A dictionary column's indices as numbers of words in the kernel's table (`first` its
    first word's, `count` its words; a null's slot, whatever it holds, as that first word), into `out`; returns
    the length of the rows' words, quoted, in all."""
    words = 0
    last = count - 1
    for r in range(out.shape[0]):
        w = np.int64(raw[r])
        if valid.shape[0] and valid[r] == 0:
            w = 0
        w = min(max(w, 0), last) + first
        out[r] = w
        words += word_at[w + 1] - word_at[w]
    return words


def _values(array: pa.Array) -> np.ndarray:
    """An integer array's values (nulls' slots as whatever they hold), no copy."""
    t = array.type
    dtype = np.dtype(f"{'i' if pa.types.is_signed_integer(t) else 'u'}{t.bit_width // 8}")
    if len(array) == 0:
        return np.zeros(0, dtype)
    return np.frombuffer(array.buffers()[1], dtype, count=array.offset + len(array))[array.offset:]


def _offsets(array: pa.Array) -> np.ndarray:
    """A string or list array's n + 1 offsets, as they are in its buffer."""
    large = pa.types.is_large_string(array.type) or pa.types.is_large_list(array.type)
    return np.frombuffer(array.buffers()[1], np.int64 if large else np.int32,
                         count=array.offset + len(array) + 1)[array.offset:]


def _plain(col: pa.Array) -> pa.Array:
    """A column in a form _Batch reads from its buffers: views and list views as plain strings
    and lists, a dictionary with a null among its words as plain strings."""
    t = col.type
    if pa.types.is_dictionary(t):
        if col.dictionary.null_count or pa.types.is_string_view(t.value_type):
            return col.cast(pa.large_string())
        return col
    if pa.types.is_string_view(t):
        return col.cast(pa.large_string())
    if pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        return col.cast(pa.large_list(t.value_type))
    return col


class Room:
    """The arrays one batch is formatted in, kept for the next batch: fresh arrays of this size
    are mapped anew each time, and faulting their pages in cost more than the formatting."""

    def __init__(self) -> None:
        self.flat: dict[str, np.ndarray] = {}

    def array(self, name: str, shape, dtype) -> np.ndarray:
        size = int(np.prod(shape))
        have = self.flat.get(name)
        if have is None or have.size < size:
            have = self.flat[name] = np.empty(size + size // 4 + 4096, dtype)
        return have[:size].reshape(shape)


def _width(values: np.ndarray) -> int:
    """The most characters any of `values` is written in (a null's slot, whatever it holds,
    counted too: an upper bound), so that a batch's lines are given the room they need and not
    20 bytes a number."""
    if len(values) == 0:
        return 0
    return max(len(str(int(values.min()))), len(str(int(values.max()))))


def _span(col: pa.Array) -> tuple[int, int]:
    """Where a text or list column's bytes or items are in its data: [first, last)."""
    offsets = _offsets(col)
    return int(offsets[0]), int(offsets[-1])


def _words(dictionaries: list[pa.Array], room: Room) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The words of every dictionary column quoted as CSV writes them, back to back (8 bytes to
    spare), where each starts (and the last ends), and the number of its first word each."""
    firsts, total, size = [], 0, 0
    for words in dictionaries:
        firsts.append(total)
        total += len(words)
        first, last = _span(words) if len(words) else (0, 0)
        size += 2 * (last - first) + 2 * len(words)
    word_at = room.array("word_at", total + 1, np.int64)
    quoted = room.array("words", size + 8, np.uint8)
    word_at[0] = 0
    for words, first in zip(dictionaries, firsts):
        if len(words):
            _quoted(_offsets(words).astype(np.int64), np.frombuffer(words.buffers()[2] or b"", np.uint8),
                    word_at[first:first + len(words) + 1], quoted)
    return quoted, word_at, firsts


def lines(batch: pa.RecordBatch, room: Room) -> memoryview:
    """The CSV lines of one batch (no header) by the kernel, in `room`'s arrays (valid until the
    room formats another batch); empty for a batch of no rows. Each column is read once: its
    values widened, its offsets moved to where its bytes or items are put back to back, a
    dictionary's words quoted once."""
    n = batch.num_rows
    if n == 0:
        return memoryview(b"")
    columns = [_plain(col) for col in batch.columns]
    kinds = np.array([WORDS if pa.types.is_dictionary(col.type) else kind(col.type) for col in columns], np.int64)
    slots = np.zeros(len(columns), np.int64)
    nulls = np.full(len(columns), -1, np.int64)
    is_text, is_list = kinds == TEXT, (kinds == LIST) | (kinds == ULIST)
    texts, lists = int(is_text.sum()), int(is_list.sum())
    spans = [_span(col) if k in (TEXT, LIST, ULIST) else (0, 0) for col, k in zip(columns, kinds)]
    text_size = sum(last - first for (first, last), t in zip(spans, is_text) if t)
    item_size = sum(last - first for (first, last), t in zip(spans, is_list) if t)
    checked = np.array([col.values.null_count > 0 for col, t in zip(columns, is_list) if t], np.uint8)
    ints = room.array("ints", (len(columns) - texts - lists, n), np.int64)
    valid = room.array("valid", (sum(bool(c.null_count) for c in columns), n), np.uint8)
    starts = room.array("starts", (texts, n), np.int64)
    ends = room.array("ends", (texts, n), np.int64)
    lstarts = room.array("lstarts", (lists, n), np.int64)
    lends = room.array("lends", (lists, n), np.int64)
    text = room.array("text", text_size, np.uint8)
    items = room.array("items", item_size, np.int64)
    item_valid = room.array("item_valid", item_size if checked.any() else 0, np.uint8)
    memo = room.array("memo", (len(columns), MEMO), np.uint8)
    words, word_at, firsts = _words([col.dictionary for col, k in zip(columns, kinds) if k == WORDS], room)
    bound = len(columns) * n + 1  # commas, line ends
    bound += 2 * sum(last - first for (first, last), t in zip(spans, is_text) if t)  # texts' bytes, each twice at most
    counts = {INT: 0, TEXT: 0, LIST: 0}
    text_at = item_at = nulled = dictionaries = 0
    for c, col in enumerate(columns):
        k = int(kinds[c])
        group = TEXT if k == TEXT else LIST if k in (LIST, ULIST) else INT
        s = slots[c] = counts[group]
        counts[group] += 1
        if col.null_count:
            _bits(col.buffers()[0], col.offset, n, valid[nulled])
            nulls[c] = nulled
            nulled += 1
        if k == BOOL:
            _bits(col.buffers()[1], col.offset, n, ints[s])
            bound += 5 * n
        elif k in (INT, UINT):
            values = _values(col)
            ints[s] = values.view(np.int64) if k == UINT else values
            bound += _width(values) * n
        elif k == WORDS:
            first = firsts[dictionaries]
            dictionaries += 1
            if len(col.dictionary) == 0:
                ints[s] = 0
                continue  # every row null
            bound += _indices(_values(col.indices), valid[nulls[c]] if col.null_count else valid[:0].reshape(-1),
                              first, len(col.dictionary), word_at, ints[s])  # each row's word
        elif k == TEXT:
            first, last = spans[c]
            offsets = _offsets(col)
            np.add(offsets[:-1], text_at - first, out=starts[s])
            np.add(offsets[1:], text_at - first, out=ends[s])
            if last > first:
                text[text_at:text_at + last - first] = np.frombuffer(col.buffers()[2], np.uint8, count=last)[first:]
            text_at += last - first
            bound += 2 * n
        else:
            first, last = spans[c]
            offsets = _offsets(col)
            child = col.values
            np.add(offsets[:-1], item_at - first, out=lstarts[s])
            np.add(offsets[1:], item_at - first, out=lends[s])
            part = _values(child)[first:last]
            items[item_at:item_at + last - first] = part.view(np.int64) if k == ULIST else part
            if len(item_valid):
                if checked[s]:
                    _bits(child.buffers()[0], child.offset + first, last - first, item_valid[item_at:last - first + item_at])
                else:
                    item_valid[item_at:item_at + last - first] = 1
            item_at += last - first
            bound += 4 * n + (max(_width(part), 4 if checked[s] else 0) + 1) * (last - first)  # an item and its comma
    out = room.array("out", bound + 32, np.uint8)  # 32: the 8-byte stores' and the memo's reach past the end
    used = _rows(n, kinds, slots, nulls, valid.reshape(-1), ints.reshape(-1), starts.reshape(-1), ends.reshape(-1),
                 text, lstarts.reshape(-1), lends.reshape(-1), items, item_valid, checked, words, word_at,
                 memo.reshape(-1), out, _DIGITS, _ITEMS, _ONE_ITEM)
    return memoryview(out)[:used]


# ---------------------------------------------------------------- from a copy's pages


def decoded_lines(group, sources: list[str], room: Room) -> memoryview:
    """The CSV lines of a row group decoded from a copy's pages (jobs/query/copy_pages.Group),
    its columns `sources` in that order (a column may come twice), by the kernel: the decoder
    wrote each column's values where `lines` would have gathered them from Arrow buffers, so
    only the words are quoted and the room the lines need is counted here."""
    from ..jobs.query import copy_pages

    n = group.rows
    if n == 0:
        return memoryview(b"")
    columns = [group.columns[s] for s in sources]
    form_kind = {copy_pages.FLAT: INT, copy_pages.WORDS: WORDS, copy_pages.LIST: LIST}
    kinds = np.array([form_kind[c.form] for c in columns], np.int64)
    slots = np.array([c.slot for c in columns], np.int64)
    nulls = np.array([c.nulls for c in columns], np.int64)
    dictionaries = sorted((c for c in group.columns.values() if c.form == copy_pages.WORDS), key=lambda c: c.first)
    word_at = room.array("word_at", group.words + 1, np.int64)
    size = sum(2 * len(c.text) + 2 * (len(c.offsets) - 1) for c in dictionaries)
    words = room.array("words", size + 8, np.uint8)
    word_at[0] = 0
    longest = {}
    for c in dictionaries:
        count = len(c.offsets) - 1
        end = int(word_at[c.first])
        if count:
            end = _quoted(c.offsets, c.text, word_at[c.first:c.first + count + 1], words)
            longest[c.first] = int(np.diff(word_at[c.first:c.first + count + 1]).max())
        else:  # a column of nulls alone: its word number stands for nothing
            word_at[c.first + 1] = end
            longest[c.first] = 0
    lists = group.starts.shape[0]
    checked = np.zeros(max(lists, 1), np.uint8)
    bound = len(columns) * n + 1  # commas, line ends
    for c in columns:  # the room by each column's stored type, not its values: no pass over them
        if c.form == copy_pages.FLAT:
            bound += c.chars * n
        elif c.form == copy_pages.WORDS:
            bound += longest[c.first] * n
        else:
            first, last = c.span
            checked[c.slot] = c.item_nulls
            bound += 4 * n + (max(c.chars, 4) + 1) * (last - first)
    memo = room.array("memo", (len(columns), MEMO), np.uint8)
    out = room.array("out", bound + 32, np.uint8)  # 32: the 8-byte stores' and the memo's reach past the end
    none64, none8 = np.zeros(0, np.int64), np.zeros(0, np.uint8)
    used = _rows(n, kinds, slots, nulls, group.valid.reshape(-1), group.numbers.reshape(-1), none64, none64, none8,
                 group.starts.reshape(-1), group.ends.reshape(-1), group.items, group.item_valid, checked, words, word_at,
                 memo.reshape(-1), out, _DIGITS, _ITEMS, _ONE_ITEM)
    return memoryview(out)[:used]
