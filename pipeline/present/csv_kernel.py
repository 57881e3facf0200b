"""The compiled half of csv_text: a batch's columns gathered from their Arrow buffers into a few
flat arrays by kind, and one kernel that writes its CSV lines from them. A module of its own so
that a small result's CSV imports no numba (csv_text writes it with pyarrow).

Its compiled code is keyed by this module's source with the engines' (jit.loading.source_stamp),
so its helper (_number, inlined) is never run from an older compile.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..engines.compiled.jit import njit
from .csv_kinds import BOOL, INT, LIST, TEXT, UINT, ULIST, kind

_ONE, _TWO, _TEN, _HUNDRED = np.uint64(1), np.uint64(2), np.uint64(10), np.uint64(100)
_PAIRS = np.frombuffer("".join(f"{i:02d}" for i in range(100)).encode(), np.uint8).copy()  # "00" to "99"


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _number(out, p, x, signed):
    """An integer's digits written at out[p], a minus sign first when `signed` and it is
    negative (else its 64 bits read unsigned); returns where the next cell starts."""
    if signed and x < 0:
        out[p] = 45  # -
        p += 1
        u = np.uint64(-(x + 1)) + _ONE
    else:
        u = np.uint64(x)
    if u < _TEN:  # most numbers of a game are one or two digits
        out[p] = np.uint8(u) + 48
        return p + 1
    if u < _HUNDRED:
        out[p] = _PAIRS[u * _TWO]
        out[p + 1] = _PAIRS[u * _TWO + _ONE]
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
        out[q] = _PAIRS[two]
        out[q + 1] = _PAIRS[two + _ONE]
    if u >= _TEN:
        out[q - 2] = _PAIRS[u * _TWO]
        out[q - 1] = _PAIRS[u * _TWO + _ONE]
    else:
        out[q - 1] = np.uint8(u) + 48
    return p + d


@njit(cache=True, nogil=True, error_model="numpy")
def _rows(n, kinds, slots, nulls, valid, ints, starts, ends, text, lstarts, lends, items, item_valid,
          checked, out):
    """CSV lines of `n` rows, a column each of `kinds` (its values in row `slots[c]` of the
    arrays of its kind; its validity in row `nulls[c]` of `valid`, -1: no nulls): integers and
    booleans in `ints`, texts from `starts` to `ends` in `text`, lists from `lstarts` to
    `lends` in `items` (`item_valid` where `checked[slot]`), into `out` (long enough for the
    longest such lines). Returns the length written."""
    p = 0
    columns = kinds.shape[0]
    for r in range(n):
        for c in range(columns):
            if c > 0:
                out[p] = 44  # ,
                p += 1
            v = nulls[c]
            if v >= 0 and valid[v, r] == 0:
                continue
            k = kinds[c]
            s = slots[c]
            if k == BOOL:
                if ints[s, r] != 0:
                    out[p] = 116
                    out[p + 1] = 114
                    out[p + 2] = 117
                    out[p + 3] = 101
                    p += 4
                else:
                    out[p] = 102
                    out[p + 1] = 97
                    out[p + 2] = 108
                    out[p + 3] = 115
                    out[p + 4] = 101
                    p += 5
            elif k == TEXT:
                out[p] = 34
                p += 1
                for i in range(starts[s, r], ends[s, r]):
                    b = text[i]
                    out[p] = b
                    p += 1
                    if b == 34:
                        out[p] = 34
                        p += 1
                out[p] = 34
                p += 1
            elif k == INT or k == UINT:
                p = _number(out, p, ints[s, r], k == INT)
            else:
                out[p] = 34
                out[p + 1] = 91  # [
                p += 2
                a = lstarts[s, r]
                e = lends[s, r]
                check = checked[s] != 0
                for i in range(a, e):
                    if i > a:
                        out[p] = 44
                        p += 1
                    if check and item_valid[i] == 0:
                        out[p] = 110
                        out[p + 1] = 117
                        out[p + 2] = 108
                        out[p + 3] = 108
                        p += 4
                        continue
                    p = _number(out, p, items[i], k == LIST)
                out[p] = 93  # ]
                out[p + 1] = 34
                p += 2
        out[p] = 10
        p += 1
    return p


# ---------------------------------------------------------------- from Arrow buffers


def _bits(buffer, offset: int, n: int) -> np.ndarray:
    """n bits of an Arrow bitmap from `offset`, one uint8 (0 or 1) each."""
    raw = np.frombuffer(buffer, np.uint8, count=(offset + n + 7) // 8)
    return np.unpackbits(raw, bitorder="little")[offset:offset + n]


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


def _span(col: pa.Array, k: int) -> tuple[int, int]:
    """Where a text or list column's bytes or items are in its data: [first, last)."""
    if k == TEXT and pa.types.is_dictionary(col.type):
        return 0, int(_offsets(col.dictionary)[-1])  # its every word
    offsets = _offsets(col)
    return int(offsets[0]), int(offsets[-1])


def lines(batch: pa.RecordBatch, room: Room) -> memoryview:
    """The CSV lines of one batch (no header) by the kernel, in `room`'s arrays (valid until the
    room formats another batch); empty for a batch of no rows. Each column is read once: its
    values widened, its offsets moved to where its bytes or items are put back to back."""
    n = batch.num_rows
    if n == 0:
        return memoryview(b"")
    columns = [_plain(col) for col in batch.columns]
    kinds = np.array([kind(col.type) for col in columns], np.int64)
    slots = np.zeros(len(columns), np.int64)
    nulls = np.full(len(columns), -1, np.int64)
    is_text, is_list = kinds == TEXT, (kinds == LIST) | (kinds == ULIST)
    texts, lists = int(is_text.sum()), int(is_list.sum())
    spans = [_span(col, k) if k in (TEXT, LIST, ULIST) else (0, 0) for col, k in zip(columns, kinds)]
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
    bound = len(columns) * n + 1 + 21 * item_size  # commas, line ends, items
    bound += 2 * sum(last - first for (first, last), t, col in zip(spans, is_text, columns)
                     if t and not pa.types.is_dictionary(col.type))  # texts' bytes, each twice at most
    counts = {INT: 0, TEXT: 0, LIST: 0}
    text_at = item_at = nulled = 0
    for c, col in enumerate(columns):
        k = int(kinds[c])
        group = TEXT if k == TEXT else LIST if k in (LIST, ULIST) else INT
        s = slots[c] = counts[group]
        counts[group] += 1
        if col.null_count:
            valid[nulled] = _bits(col.buffers()[0], col.offset, n)
            nulls[c] = nulled
            nulled += 1
        if k == BOOL:
            ints[s] = _bits(col.buffers()[1], col.offset, n)
            bound += 5 * n
        elif k in (INT, UINT):
            values = _values(col)
            ints[s] = values.view(np.int64) if k == UINT else values
            bound += 20 * n
        elif k == TEXT:
            first, last = spans[c]
            if pa.types.is_dictionary(col.type):
                words = col.dictionary
                offsets = _offsets(words).astype(np.int64) + (text_at - first)  # a few words
                index = room.array("index", n, np.int64)
                index[:] = _values(col.indices)
                np.take(offsets, index, mode="clip", out=starts[s])
                index += 1
                np.take(offsets, index, mode="clip", out=ends[s])
                data = words.buffers()[2]
                np.subtract(ends[s], starts[s], out=index)
                bound += 2 * int(index.sum())  # a word is written for each row that names it, each byte twice at most
            else:
                offsets = _offsets(col)
                np.add(offsets[:-1], text_at - first, out=starts[s])
                np.add(offsets[1:], text_at - first, out=ends[s])
                data = col.buffers()[2]
            if last > first:
                text[text_at:text_at + last - first] = np.frombuffer(data, np.uint8, count=last)[first:]
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
                item_valid[item_at:item_at + last - first] = \
                    _bits(child.buffers()[0], child.offset + first, last - first) if checked[s] else 1
            item_at += last - first
            bound += 4 * n
    out = room.array("out", bound, np.uint8)
    used = _rows(n, kinds, slots, nulls, valid, ints, starts, ends, text, lstarts, lends, items, item_valid,
                 checked, out)
    return memoryview(out)[:used]
