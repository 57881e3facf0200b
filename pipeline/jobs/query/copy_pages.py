"""A row group of an events copy decoded from its Parquet pages by compiled code, straight into
the flat arrays the compiled CSV writer formats from (present/csv_kernel.py): what events to
CSV spends most of its reading on.

pyarrow read the copies' row groups in 6.9 s of the 4.9 GB CSV's CPU (100,000 games), building
Arrow arrays that the writer then copied again into its own. The copies are written one way
(event_copies._write: zstd pages of version 1, delta-packed integers, dictionary-coded words and
seats, plain lists of integers), so their pages are decoded here in one compiled pass a column,
without the GIL, zstd's own function called from compiled code: the same values, in about a
third of the time. A column or page in any other form (a codec, an encoding, a type, a nesting
this does not know, a count that does not add up) makes `read_group` answer None, and the
caller reads that row group with pyarrow as before: the rows never depend on which reader read
them (tests/test_csv_fast_paths.py holds the two to the same arrays).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ...engines.compiled.jit import njit

# Parquet's numbers for what a page says of itself (parquet.thrift)
DATA_PAGE, DICTIONARY_PAGE = 0, 2
PLAIN, PLAIN_DICTIONARY, RLE, DELTA_BINARY_PACKED, RLE_DICTIONARY = 0, 2, 3, 5, 8
PAD = 16  # bytes readable past a buffer's end: the bit readers load 8 bytes at a time
FLAT, WORDS, LIST = 0, 1, 2  # a column's form: numbers, a dictionary's words, lists of numbers
CHARS = {4: 11, 8: 20}  # the most characters a signed integer of so many bytes is written in


@lru_cache(maxsize=1)
def _library():
    """libzstd, None when it is not on this machine."""
    name = ctypes.util.find_library("zstd")
    if not name:
        return None
    try:
        lib = ctypes.CDLL(name)
        lib.ZSTD_createDCtx.restype = ctypes.c_void_p
        lib.ZSTD_freeDCtx.argtypes = [ctypes.c_void_p]
        ctypes.cast(lib.ZSTD_decompressDCtx, ctypes.c_void_p)
    except (OSError, AttributeError):
        return None
    return lib


@lru_cache(maxsize=1)
def _zstd() -> int:
    """The address of libzstd's ZSTD_decompressDCtx, 0 when the library is not on this machine."""
    lib = _library()
    return 0 if lib is None else ctypes.cast(lib.ZSTD_decompressDCtx, ctypes.c_void_p).value or 0


_free: list[int] = []  # decompression contexts not in use (list.pop and append are atomic)


def _take_context() -> int:
    """A zstd decompression context for one row group, made once and kept for the next (made
    and freed a call by ZSTD_decompress, one cost more than a small column's pages: 40 us a page)."""
    try:
        return _free.pop()
    except IndexError:
        lib = _library()
        return (lib.ZSTD_createDCtx() or 0) if lib is not None else 0


@intrinsic
def _call(typingctx, function, context, dst, capacity, src, size):
    """size_t function(void *context, void *dst, size_t capacity, const void *src, size_t size)
    called at the address `function` (ZSTD_decompressDCtx), every argument an int64."""
    def codegen(context_, builder, signature, args):
        byte = ir.IntType(8).as_pointer()
        kind = ir.FunctionType(ir.IntType(64), [byte, byte, ir.IntType(64), byte, ir.IntType(64)])
        callee = builder.inttoptr(args[0], kind.as_pointer())
        return builder.call(callee, [builder.inttoptr(args[1], byte), builder.inttoptr(args[2], byte), args[3],
                                     builder.inttoptr(args[4], byte), args[5]])
    return types.int64(types.int64, types.int64, types.int64, types.int64, types.int64, types.int64), codegen


@intrinsic
def load8(typingctx, array, at):
    """The 8 bytes of a uint8 array at `at` as one little-endian uint64, wherever they start (the
    CSV kernel's too)."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        return builder.load(builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(64).as_pointer()), align=1)
    return types.uint64(array, at), codegen


@njit(cache=True, nogil=True, error_model="numpy")
def _varint(b, i, end):
    """A ULEB128 number at b[i] and where the next thing starts; (0, -1) past `end`."""
    r = np.uint64(0)
    s = 0
    while i < end and s < 64:
        x = b[i]
        i += 1
        r |= np.uint64(x & 0x7F) << np.uint64(s)
        if x < 0x80:
            return r, i
        s += 7
    return np.uint64(0), -1


@njit(cache=True, nogil=True, error_model="numpy")
def _zigzag(u):
    return np.int64(u >> np.uint64(1)) ^ -np.int64(u & np.uint64(1))


@njit(cache=True, nogil=True, error_model="numpy")
def _skip_value(b, i, end, t):
    """Past a Thrift compact value of type `t` at b[i] that is not a struct (a list or set of
    such values included); -1 for a map, a list of structs or lists, or anything unreadable."""
    if i < 0 or i > end:
        return -1
    if t == 1 or t == 2:
        return i
    if t == 3:
        return i + 1
    if t == 4 or t == 5 or t == 6:
        _, i = _varint(b, i, end)
        return i
    if t == 7:
        return i + 8
    if t == 8:
        n, i = _varint(b, i, end)
        return -1 if i < 0 else i + np.int64(n)
    if t == 9 or t == 10:
        if i >= end:
            return -1
        h = b[i]
        i += 1
        n = np.int64(h >> 4)
        inner = h & 15
        if n == 15:
            u, i = _varint(b, i, end)
            n = np.int64(u)
        if inner >= 9 or inner == 0:
            return -1
        for _ in range(n):
            if i < 0:
                return -1
            i = i + 1 if inner <= 2 else _skip_value(b, i, end, inner)
        return i
    return -1


@njit(cache=True, nogil=True, error_model="numpy")
def _skip(b, i, end, t):
    """Past a Thrift compact value of type `t` at b[i], a struct's nested structs too; -1 for
    anything _skip_value does not read."""
    if t != 12:
        return _skip_value(b, i, end, t)
    depth = 1
    while depth > 0:
        if i < 0 or i >= end:
            return -1
        h = b[i]
        i += 1
        if h == 0:
            depth -= 1
            continue
        if h >> 4 == 0:
            _, i = _varint(b, i, end)
        if h & 15 == 12:
            depth += 1
        else:
            i = _skip_value(b, i, end, h & 15)
    return i


@njit(cache=True, nogil=True, error_model="numpy")
def _pages(b, start, end, table):
    """The pages of a column chunk (b[start:end]) into `table`, a row each: where its data
    starts, its compressed and uncompressed sizes, its type, its count of values, the encodings
    of its values, definition and repetition levels. Returns how many, or -1 when a header is
    not one this reads (a version 2 page among them)."""
    pages = 0
    i = start
    while i < end:
        if pages >= table.shape[0]:
            return -1
        kind = -1
        usize = -1
        csize = -1
        count = -1
        codes = np.full(3, -1, np.int64)
        fid = 0
        while True:
            if i >= end:
                return -1
            h = b[i]
            i += 1
            if h == 0:
                break
            t = h & 15
            if h >> 4:
                fid += h >> 4
            else:
                u, i = _varint(b, i, end)
                fid = _zigzag(u)
            if i < 0:
                return -1
            if t == 5 and fid <= 3:
                u, i = _varint(b, i, end)
                v = _zigzag(u)
                if fid == 1:
                    kind = v
                elif fid == 2:
                    usize = v
                else:
                    csize = v
            elif t == 12 and (fid == 5 or fid == 7):  # a data page's or a dictionary page's header
                sub = 0
                while True:
                    if i < 0 or i >= end:
                        return -1
                    g = b[i]
                    i += 1
                    if g == 0:
                        break
                    s = g & 15
                    if g >> 4:
                        sub += g >> 4
                    else:
                        u, i = _varint(b, i, end)
                        sub = _zigzag(u)
                    if s == 5 and 1 <= sub <= 4 and i >= 0:
                        u, i = _varint(b, i, end)
                        if sub == 1:
                            count = _zigzag(u)
                        elif fid == 5 or sub == 2:
                            codes[sub - 2] = _zigzag(u)
                    else:
                        i = _skip(b, i, end, s)
            elif t == 12 and fid == 8:
                return -1  # a version 2 data page
            else:
                i = _skip(b, i, end, t)
            if i < 0:
                return -1
        if kind < 0 or usize < 0 or csize < 0 or count < 0 or i + csize > end:
            return -1
        table[pages, 0] = i
        table[pages, 1] = csize
        table[pages, 2] = usize
        table[pages, 3] = kind
        table[pages, 4] = count
        table[pages, 5] = codes[0]
        table[pages, 6] = codes[1]
        table[pages, 7] = codes[2]
        pages += 1
        i += csize
    return pages if i == end else -1


@njit(cache=True, nogil=True, error_model="numpy")
def _inflate(b, table, pages, zstd, context, out, at):
    """Each page's data, decompressed (ZSTD_decompressDCtx at the address `zstd` in the
    decompression context at `context`; zstd 0: stored as they are), back
    to back into `out`; at[p] where page p's starts. False when a page does not come out at its
    size."""
    q = 0
    for p in range(pages):
        a, csize, usize = table[p, 0], table[p, 1], table[p, 2]
        at[p] = q
        if q + usize + PAD > out.shape[0]:
            return False
        if zstd == 0:
            if csize != usize:
                return False
            out[q:q + usize] = b[a:a + usize]
        elif usize > 0:
            got = _call(zstd, context, out.ctypes.data + q, usize, b.ctypes.data + a, csize)
            if got != usize:
                return False
        q += usize
    return True


@njit(cache=True, nogil=True, error_model="numpy")
def _hybrid(b, i, end, width, count, out):
    """`count` values of Parquet's RLE / bit-packed hybrid at b[i:end], `width` bits each, into
    out[:count]; returns where it stopped, -1 when it runs out."""
    mask = (np.uint64(1) << np.uint64(width)) - np.uint64(1)
    size = (width + 7) // 8
    k = 0
    while k < count:
        h, i = _varint(b, i, end)
        if i < 0:
            return -1
        n = np.int64(h >> np.uint64(1))
        if h & np.uint64(1):
            take = min(n * 8, count - k)
            if i + (take * width + 7) // 8 > end:
                return -1
            for j in range(take):
                bit = j * width
                out[k + j] = np.int64((load8(b, i + (bit >> 3)) >> np.uint64(bit & 7)) & mask)
            i += n * width
        else:
            if i + size > end:
                return -1
            v = np.int64(0)
            for j in range(size):
                v |= np.int64(b[i + j]) << (8 * j)
            i += size
            take = min(n, count - k)
            for j in range(take):
                out[k + j] = v
        k += take
    return i


@njit(cache=True, nogil=True, error_model="numpy")
def _looked_up(b, i, end, width, count, numbers, dict_size, out):
    """`count` indices of Parquet's RLE / bit-packed hybrid at b[i:end], `width` bits each, as the
    entries of `numbers` they index (the first `dict_size`) into out[:count], in one pass (_hybrid,
    then each looked up); returns where it stopped, -1 when it runs out or an index is past them."""
    mask = (np.uint64(1) << np.uint64(width)) - np.uint64(1)
    size = (width + 7) // 8
    k = 0
    while k < count:
        h, i = _varint(b, i, end)
        if i < 0:
            return -1
        n = np.int64(h >> np.uint64(1))
        if h & np.uint64(1):
            take = min(n * 8, count - k)
            if i + (take * width + 7) // 8 > end:
                return -1
            for j in range(take):
                bit = j * width
                w = np.int64((load8(b, i + (bit >> 3)) >> np.uint64(bit & 7)) & mask)
                if w >= dict_size:
                    return -1
                out[k + j] = numbers[w]
            i += n * width
        else:
            if i + size > end:
                return -1
            w = np.int64(0)
            for j in range(size):
                w |= np.int64(b[i + j]) << (8 * j)
            i += size
            if w >= dict_size:
                return -1
            take = min(n, count - k)
            v = numbers[w]
            for j in range(take):
                out[k + j] = v
        k += take
    return i


@njit(cache=True, nogil=True, error_model="numpy")
def _delta(b, i, end, count, out):
    """`count` integers of DELTA_BINARY_PACKED at b[i:end] into out[:count] (64-bit arithmetic,
    wrapping as Parquet's); returns where it stopped, -1 when it is not so."""
    block, i = _varint(b, i, end)
    if i < 0:
        return -1
    minis, i = _varint(b, i, end)
    if i < 0:
        return -1
    total, i = _varint(b, i, end)
    if i < 0:
        return -1
    first, i = _varint(b, i, end)
    if i < 0 or np.int64(total) != count or minis == 0 or block % minis != 0:
        return -1
    per = np.int64(block // minis)
    if per % 8 != 0:
        return -1
    if count == 0:
        return i
    last = _zigzag(first)
    out[0] = last
    k = 1
    while k < count:
        u, i = _varint(b, i, end)
        if i < 0:
            return -1
        least = _zigzag(u)
        widths = i
        i += np.int64(minis)
        if i > end:
            return -1
        for m in range(np.int64(minis)):
            if k >= count:
                break
            width = np.int64(b[widths + m])
            if width > 64:
                return -1
            mask = ~np.uint64(0) if width == 64 else (np.uint64(1) << np.uint64(width)) - np.uint64(1)
            take = min(per, count - k)
            if i + (take * width + 7) // 8 > end:
                return -1
            if width <= 56:
                for j in range(take):
                    bit = j * width
                    last = last + least + np.int64((load8(b, i + (bit >> 3)) >> np.uint64(bit & 7)) & mask)
                    out[k] = last
                    k += 1
            else:  # a delta of more than 56 bits: its bits may reach a ninth byte
                for j in range(take):
                    bit = j * width
                    shift = bit & 7
                    u = load8(b, i + (bit >> 3)) >> np.uint64(shift)
                    if shift and width + shift > 64:
                        u |= np.uint64(b[i + (bit >> 3) + 8]) << np.uint64(64 - shift)
                    last = last + least + np.int64(u & mask)
                    out[k] = last
                    k += 1
            i += per * width // 8
    return i


@njit(cache=True, nogil=True, error_model="numpy")
def _plain(b, i, end, count, size, out):
    """`count` little-endian signed integers of `size` bytes (4 or 8) at b[i:end] into out."""
    if i + count * size > end:
        return -1
    if size == 4:
        for k in range(count):
            out[k] = np.int64(np.int32(np.uint32(load8(b, i + 4 * k) & np.uint64(0xFFFFFFFF))))
    else:
        for k in range(count):
            out[k] = np.int64(load8(b, i + 8 * k))
    return i + count * size


@njit(cache=True, nogil=True, error_model="numpy")
def _dictionary(b, i, end, count, size, numbers, offsets, words):
    """A dictionary page's `count` entries at b[i:end]: numbers (`size` 4 or 8) into `numbers`,
    or texts (`size` 0: each its 4-byte length, then its bytes) into words[offsets[w]:offsets[w + 1]].
    Returns where it stopped, -1 when it runs out."""
    if size:
        return _plain(b, i, end, count, size, numbers)
    offsets[0] = 0
    q = 0
    for w in range(count):
        if i + 4 > end:
            return -1
        n = np.int64(b[i]) | (np.int64(b[i + 1]) << 8) | (np.int64(b[i + 2]) << 16) | (np.int64(b[i + 3]) << 24)
        i += 4
        if i + n > end or q + n > words.shape[0]:
            return -1
        words[q:q + n] = b[i:i + n]
        q += n
        i += n
        offsets[w + 1] = q
    return i


@njit(cache=True, nogil=True, error_model="numpy")
def _levels(b, i, end, width, count, out, top):
    """`count` levels of Parquet's RLE / bit-packed hybrid at b[i:end], `width` bits each, into
    out[:count] (uint8); returns (where it stopped, how many are `top`), (-1, 0) when it runs out."""
    mask = (np.uint64(1) << np.uint64(width)) - np.uint64(1)
    k = 0
    tops = 0
    while k < count:
        h, i = _varint(b, i, end)
        if i < 0:
            return -1, 0
        n = np.int64(h >> np.uint64(1))
        if h & np.uint64(1):
            take = min(n * 8, count - k)
            if i + (take * width + 7) // 8 > end:
                return -1, 0
            for j in range(take):
                bit = j * width
                v = np.uint8((load8(b, i + (bit >> 3)) >> np.uint64(bit & 7)) & mask)
                out[k + j] = v
                tops += v == top
            i += n * width
        else:
            if i >= end:
                return -1, 0
            v = np.uint8(b[i])
            i += 1
            take = min(n, count - k)
            out[k:k + take] = v
            if v == top:
                tops += take
        k += take
    return i, tops


@njit(cache=True, nogil=True, error_model="numpy")
def _values(b, i, end, code, size, present, dict_size, numbers, base, got):
    """A page's `present` values (encoded `code`) at b[i:end] into got[:present]: numbers, or a
    dictionary's (`numbers` its entries when `size`, else base + each word's index). False when
    they are not so."""
    if code == RLE_DICTIONARY or code == PLAIN_DICTIONARY:
        if dict_size < 0 or i >= end:
            return False
        width = np.int64(b[i])
        if width > 32:
            return False
        if size:
            return _looked_up(b, i + 1, end, width, present, numbers, dict_size, got) >= 0
        if _hybrid(b, i + 1, end, width, present, got) < 0:
            return False
        for e in range(present):
            w = got[e]
            if w < 0 or w >= dict_size:
                return False
            got[e] = w + base
        return True
    if size == 0:
        return False  # texts not from a dictionary
    if code == DELTA_BINARY_PACKED:
        if _delta(b, i, end, present, got) < 0:
            return False
        if size == 4:
            for e in range(present):
                got[e] = np.int64(np.int32(got[e]))
        return True
    if code == PLAIN:
        return _plain(b, i, end, present, size, got) >= 0
    return False


@njit(cache=True, nogil=True, error_model="numpy")
def _length(b, i):
    return np.int64(b[i]) | (np.int64(b[i + 1]) << 8) | (np.int64(b[i + 2]) << 16) | (np.int64(b[i + 3]) << 24)


@njit(cache=True, nogil=True, error_model="numpy")
def _chunk(b, table, pages, at, size, max_def, max_rep, base, rows, values, valid, ends, items, item_valid,
           numbers, offsets, words, reps, defs):
    """Decode a column chunk's pages (decompressed in `b`, page p at at[p]) into the writer's
    arrays: a flat column's values (a dictionary's: base + its index) into values[:rows] and its
    validity into valid; a list's (max_rep 1, max_def 3) where each row's items start into
    values, end into ends (both counted from `base`), its items into `items`, theirs into item_valid. `size`: 4 or 8
    bytes a number, 0 a text. `reps`, `defs`: room for a page's levels. Returns (nulls, item
    nulls, items, words of its dictionary); (-1, ...) when a page is not one this decodes."""
    fail = (np.int64(-1), np.int64(0), np.int64(0), np.int64(0))
    nulls = 0
    item_nulls = 0
    row = -1 if max_rep else 0
    it = 0
    dict_size = -1
    for p in range(pages):
        a = at[p]
        end = a + table[p, 2]
        count = table[p, 4]
        if table[p, 3] == DICTIONARY_PAGE:
            if dict_size >= 0 or (table[p, 5] != PLAIN and table[p, 5] != PLAIN_DICTIONARY):
                return fail
            if count > numbers.shape[0] or count + 1 > offsets.shape[0]:
                return fail
            if _dictionary(b, a, end, count, size, numbers, offsets, words) < 0:
                return fail
            dict_size = count
            continue
        if table[p, 3] != DATA_PAGE or count > defs.shape[0]:
            return fail
        i = a
        if max_rep:
            if table[p, 7] != RLE or i + 4 > end:
                return fail
            n = _length(b, i)
            j, _ = _levels(b, i + 4, min(i + 4 + n, end), 1, count, reps, 0)
            if j < 0:
                return fail
            i += 4 + n
        present = count
        if max_def:
            if table[p, 6] != RLE or i + 4 > end:
                return fail
            n = _length(b, i)
            j, present = _levels(b, i + 4, min(i + 4 + n, end), 1 if max_def == 1 else 2, count, defs, max_def)
            if j < 0:
                return fail
            i += 4 + n
        if max_rep == 0:
            if row + count > rows:
                return fail
            if present == count:  # no nulls: the values straight into place
                if not _values(b, i, end, table[p, 5], size, present, dict_size, numbers, base, values[row:]):
                    return fail
                valid[row:row + count] = 1
            elif present == 0:
                values[row:row + count] = base
                valid[row:row + count] = 0
                nulls += count
            else:
                got = items  # a flat column's room for a page's values (the caller gives it)
                if not _values(b, i, end, table[p, 5], size, present, dict_size, numbers, base, got):
                    return fail
                v = 0
                for e in range(count):
                    if defs[e] == max_def:
                        values[row + e] = got[v]
                        valid[row + e] = 1
                        v += 1
                    else:
                        values[row + e] = base
                        valid[row + e] = 0
                nulls += count - present
            row += count
            continue
        if it + count > items.shape[0]:
            return fail
        if not _values(b, i, end, table[p, 5], size, present, dict_size, numbers, base, items[it:]):
            return fail
        first = it
        for e in range(count):  # each row's range of items; its slots: a value or a null item
            d = defs[e]
            if reps[e] == 0:
                if row >= 0:
                    ends[row] = it + base
                row += 1
                if row >= rows:
                    return fail
                values[row] = it + base
                if d >= 1:
                    valid[row] = 1
                else:
                    valid[row] = 0
                    nulls += 1
            elif row < 0 or d < 2:
                return fail
            if d >= 2:
                it += 1
        if it - first != present:  # null items: the values spread over their slots, last first
            v = present - 1
            q = it - 1
            for e in range(count - 1, -1, -1):
                d = defs[e]
                if d == 3:
                    items[q] = items[first + v]
                    item_valid[q] = 1
                    v -= 1
                    q -= 1
                elif d == 2:
                    items[q] = 0
                    item_valid[q] = 0
                    item_nulls += 1
                    q -= 1
        else:
            item_valid[first:it] = 1
    if max_rep:
        if row >= 0:
            ends[row] = it + base
        row += 1
    if row != rows:
        return fail
    return (np.int64(nulls), np.int64(item_nulls), np.int64(it), np.int64(max(dict_size, 0)))


@dataclass
class Column:
    """A decoded column: its form (FLAT, WORDS, LIST), its row in the group's arrays (`slot`:
    of `numbers` for FLAT and WORDS, of `starts`/`ends` for LIST), its row of `valid` (-1: no
    nulls), and for WORDS its dictionary (its texts between `offsets` in `text`, word numbers
    from `first`); for LIST where its items are in `items` and whether any is null."""
    form: int
    slot: int
    nulls: int = -1
    first: int = 0
    offsets: np.ndarray | None = None
    text: np.ndarray | None = None
    span: tuple[int, int] = (0, 0)
    item_nulls: bool = False
    chars: int = 20  # the most characters a value (an item of a list) is written in: its stored type's


@dataclass
class Group:
    """A row group decoded: `rows` rows, each column's values in rows of the arrays below
    (numbers: FLAT's values and WORDS' word numbers; starts/ends: LIST's items' range;
    valid: 1 a value, 0 a null), by name in `columns`."""
    rows: int
    numbers: np.ndarray
    valid: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    items: np.ndarray
    item_valid: np.ndarray
    columns: dict[str, Column] = field(default_factory=dict)
    words: int = 0  # word numbers given out
    spare: tuple[int, int] = (0, 0)  # the first rows of `numbers` and of `valid` left for the caller


@dataclass(frozen=True)
class _Layout:
    """How a column of a copy is stored: its number in the file, form, bytes a number (0: text),
    maximum definition and repetition levels."""
    index: int
    form: int
    size: int
    max_def: int
    max_rep: int


def _layouts(meta) -> dict[str, _Layout]:
    """The columns of a copy (its Parquet metadata `meta`) this decodes, by name."""
    schema = meta.schema
    arrow = schema.to_arrow_schema()
    out = {}
    for f in arrow:
        t = f.type
        leaf = [i for i in range(len(schema)) if schema.column(i).path.split(".")[0] == f.name]
        if len(leaf) != 1:
            continue
        c = schema.column(leaf[0])
        physical = c.physical_type
        size = {"INT32": 4, "INT64": 8}.get(physical, 0)
        if pa.types.is_integer(t) and size and pa.types.is_signed_integer(t) and c.max_repetition_level == 0 \
                and c.max_definition_level <= 1:
            out[f.name] = _Layout(leaf[0], FLAT, size, c.max_definition_level, 0)
        elif pa.types.is_dictionary(t) and pa.types.is_string(t.value_type) and physical == "BYTE_ARRAY" \
                and c.max_repetition_level == 0 and c.max_definition_level <= 1:
            out[f.name] = _Layout(leaf[0], WORDS, 0, c.max_definition_level, 0)
        elif pa.types.is_list(t) and pa.types.is_integer(t.value_type) and pa.types.is_signed_integer(t.value_type) \
                and size and c.max_repetition_level == 1 and c.max_definition_level == 3 and f.nullable \
                and t.value_field.nullable:
            out[f.name] = _Layout(leaf[0], LIST, size, 3, 1)
    return out


def enabled() -> bool:
    """Whether this machine has what the decoder needs (libzstd)."""
    return _zstd() != 0


def read_group(path: str, group: int, names: list[str], room, spare: int = 0) -> Group | None:
    """The columns `names` of row group `group` of the copy at `path`, decoded into `room`'s
    arrays (room.array(name, shape, dtype), kept for the next group; `spare` rows of `numbers`
    more, after the columns', for the caller), or None when any of them is stored in a form
    this does not decode (the caller then reads it with pyarrow)."""
    zstd = _zstd()
    if not zstd:
        return None
    context = _take_context()
    if not context:
        return None
    try:
        return _read_group(path, group, names, room, spare, zstd, context)
    finally:
        _free.append(context)


@lru_cache(maxsize=64)
def _described(path: str, stamp: tuple[int, int]):
    """A copy's metadata and the layouts of its columns, read once for all its row groups (a
    copy's file never changes under its name; `stamp`, its size and time, keys it all the same)."""
    meta = pq.read_metadata(path)
    return meta, _layouts(meta)


def _read_group(path: str, group: int, names: list[str], room, spare: int, zstd: int, context: int) -> Group | None:
    st = os.stat(path)
    meta, layouts = _described(path, (st.st_size, st.st_mtime_ns))
    if any(n not in layouts for n in names):
        return None
    rg = meta.row_group(group)
    n = rg.num_rows
    chunks = []
    for name in names:
        lay = layouts[name]
        col = rg.column(lay.index)
        if col.compression not in ("ZSTD", "UNCOMPRESSED"):
            return None
        start = col.dictionary_page_offset if col.has_dictionary_page and col.dictionary_page_offset else \
            col.data_page_offset
        chunks.append((name, lay, start, col.total_compressed_size, col.compression == "ZSTD"))
    forms = [lay.form for _, lay, *_ in chunks]
    numbers = room.array("numbers", (sum(f != LIST for f in forms) + spare, n), np.int64)
    valid = room.array("valid", (len(chunks) + spare, n), np.uint8)
    lists = sum(f == LIST for f in forms)
    starts = room.array("lstarts", (lists, n), np.int64)
    ends = room.array("lends", (lists, n), np.int64)
    out = Group(n, numbers, valid, starts, ends, np.zeros(0, np.int64), np.zeros(0, np.uint8))
    with open(path, "rb") as f:
        raw = [(_read(f, start, size)) for _, _, start, size, _ in chunks]
    tables = []
    item_room = 0
    for (name, lay, start, size, packed), data in zip(chunks, raw):
        table = np.empty((size // 6 + 2, 8), np.int64)
        pages = _pages(data, 0, size, table)
        if pages < 0:
            return None
        tables.append((table, pages))
        if lay.form == LIST:
            item_room += int(table[:pages, 4].sum())
    items = out.items = room.array("items", item_room + 1, np.int64)
    item_valid = out.item_valid = room.array("item_valid", item_room + 1, np.uint8)
    flat = lst = item_at = 0
    empty64 = np.zeros(1, np.int64)
    for row, ((name, lay, start, size, packed), data, (table, pages)) in enumerate(zip(chunks, raw, tables)):
        usize = int(table[:pages, 2].sum())
        largest = int(table[:pages, 4].max()) if pages else 0
        page_at = np.empty(max(pages, 1), np.int64)
        buffer = room.array(f"inflated{row}", usize + PAD, np.uint8)
        if not _inflate(data, table, pages, zstd if packed else 0, context, buffer, page_at):
            return None
        reps = room.array("reps", max(largest, 1), np.uint8)
        defs = room.array("defs", max(largest, 1), np.uint8)
        dict_room = max(int(table[p, 4]) for p in range(pages)) if pages else 0
        numbers_d = room.array(f"dictionary{row}", max(dict_room, 1), np.int64)
        offsets = np.zeros(dict_room + 2, np.int64)
        words = np.zeros(usize + 1, np.uint8) if lay.form == WORDS else np.zeros(1, np.uint8)
        if lay.form == LIST:
            got = _chunk(buffer, table, pages, page_at, lay.size, lay.max_def, lay.max_rep, item_at, n, starts[lst], valid[row], ends[lst],
                         items[item_at:], item_valid[item_at:], numbers_d, offsets, words, reps, defs)
            if got[0] < 0:
                return None
            out.columns[name] = Column(LIST, lst, row if got[0] else -1, span=(item_at, item_at + int(got[2])),
                                       item_nulls=bool(got[1]), chars=CHARS[lay.size])
            item_at += int(got[2])
            lst += 1
        else:
            base = out.words if lay.form == WORDS else 0
            got = _chunk(buffer, table, pages, page_at, lay.size, lay.max_def, lay.max_rep, base, n, numbers[flat],
                         valid[row], empty64, room.array("got", max(largest, 1), np.int64), item_valid[:0],
                         numbers_d, offsets, words, reps, defs)
            if got[0] < 0:
                return None
            column = Column(lay.form, flat, row if got[0] else -1, chars=CHARS.get(lay.size, 0))
            if lay.form == WORDS:
                count = int(got[3])
                if count == 0 and got[0] != n:
                    return None
                column.first = base
                column.offsets = offsets[:count + 1].copy()
                column.text = words[:int(offsets[count]) if count else 0].copy()
                out.words += max(count, 1)
            out.columns[name] = column
            flat += 1
    out.spare = (flat, len(chunks))
    return out


def _read(f, start: int, size: int) -> np.ndarray:
    """`size` bytes of the open file `f` from `start`, with PAD bytes to spare."""
    data = np.zeros(size + PAD, np.uint8)
    f.seek(start)
    if f.readinto(memoryview(data)[:size]) != size:
        raise OSError("a copy ended before its column")
    return data
