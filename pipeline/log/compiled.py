"""The compiled event encoder (log.codec over the compiled engine's arrays) and the Arrow
assembly of its tables."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..engines.compiled.rng import _fold, _mix, njit
from ..engines.compiled.table import (
    E_BATTLE,
    E_CEND,
    E_KIND,
    E_NOTE,
    E_SEAT,
    E_SEND,
    E_VALUE,
    K_COLLECT,
    K_DOWN,
    K_END,
    K_FORFEIT,
    K_PLAY,
    K_SET_ASIDE,
    K_WAR,
    OUTCOMES,
    S_BATTLES,
    S_CYCLE,
    S_EVENTS,
    S_FIRST_WAR,
    S_MAX_DEPTH,
    S_OUTCOME,
    S_SET_ASIDE,
    S_WAR_BATTLES,
    S_WARS,
    S_WINNER,
)
from ..engines.game import policy_specs
from ..model.schema import EVENT_KINDS, GAME_ID_STRIDE, RuleSet
from .codec import SMALL_ORDER, token
from .tables import EVENT_SCHEMA, GAME_SCHEMA

assert SMALL_ORDER <= 3  # _encode_rows spells a small take in 2-bit fields


@njit(cache=True)
def _first_indices(codes, k):
    """For each code 0..k-1, the index of its first appearance (-1 when absent)."""
    first = np.full(k, -1, np.int64)
    found = 0
    for i in range(len(codes)):
        c = codes[i]
        if c >= 0 and first[c] < 0:
            first[c] = i
            found += 1
            if found == k:
                break
    return first


# ---------------------------------------------------------------- the events table (logcodec)

@njit(cache=True)
def _grow(a, need):
    b = np.empty(max(2 * a.shape[0], need), a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True)
def _find(key, klen, h, keys, kstart, khash, slots):
    """The id of the shape key[:klen] (hash h), comparing whole keys on a hash hit so that two
    different keys never share an id; -1 - slot when it is new, `slot` being where it goes."""
    smask = slots.shape[0] - 1
    s = np.int64(h & np.uint64(smask))
    while True:
        k = slots[s]
        if k < 0:
            return -1 - s
        a = kstart[k]
        if khash[k] == h and kstart[k + 1] - a == klen:
            same = True
            for i in range(klen):
                if keys[a + i] != key[i]:
                    same = False
                    break
            if same:
                return k
        s = (s + 1) & smask


@njit(cache=True)
def _rehash(khash, nshapes, size):
    slots = np.full(size, -1, np.int32)
    smask = size - 1
    for k in range(nshapes):
        s = np.int64(khash[k] & np.uint64(smask))
        while slots[s] >= 0:
            s = (s + 1) & smask
        slots[s] = k
    return slots


# Where _encode_pass stands (st[...]): at the start of a row, so that it can resume there.
R_GAME, R_FIRST, R_EVENT, R_ROW, R_CARDS, R_ORDER, R_SHAPES, R_TGEN, R_UGEN, R_NEED = range(10)


@njit(cache=True)
def _encode_pass(ids, evi, cv, sv, counts, st, stamp, tpos, used, gid, seq, battles, shape, coff,
                 cards, ooff, order, key, keys, kstart, khash, slots):
    """The rows of `_encode_rows` from where `st` says. Returns 0 when done; 1 when `key` is too
    small for the next row (st[R_NEED] words), 2 when the shapes' buffers are; the caller grows
    them and calls again, which plays that row again. No array is reassigned here: numba counts
    references to an array that may be, and in this loop that would cost more than the work."""
    G = counts.shape[0]
    g = st[R_GAME]
    first = st[R_FIRST]
    i = st[R_EVENT]
    r = st[R_ROW]
    nc = st[R_CARDS]
    no = st[R_ORDER]
    nshapes = st[R_SHAPES]
    tgen = st[R_TGEN]
    ugen = st[R_UGEN]
    while True:
        while g < G and i == first + counts[g]:
            first = i
            g += 1
        if g == G:
            break
        st[R_GAME] = g
        st[R_FIRST] = first
        st[R_EVENT] = i
        st[R_ROW] = r
        st[R_CARDS] = nc
        st[R_ORDER] = no
        st[R_SHAPES] = nshapes
        stop = first + counts[g]
        c0 = evi[i - 1, E_CEND] if i > 0 else 0
        s0 = evi[i - 1, E_SEND] if i > 0 else 0
        battle = evi[i, E_BATTLE]
        gid[r] = ids[g]
        seq[r] = i - first
        battles[r] = battle
        tgen += 1
        tlen = 0
        dup = False
        klen = 0
        h = np.uint64(0x84222325CBF29CE4)
        while i < stop and evi[i, E_BATTLE] == battle:
            kind = evi[i, E_KIND]
            cend = evi[i, E_CEND]
            send = evi[i, E_SEND]
            m = cend - c0
            ok = False
            small = np.int64(0)
            if (kind == K_COLLECT or kind == K_SET_ASIDE) and m == tlen and m > 0 and not dup:
                ugen += 1
                ok = True
                for j in range(m):  # the positions go to `order` at once: `no` moves only if ok
                    c = cv[c0 + j]
                    p = tpos[c]
                    if stamp[c] != tgen or used[p] == ugen:
                        ok = False
                        break
                    used[p] = ugen
                    order[no + j] = p
                    if m <= SMALL_ORDER:
                        small |= p << (53 + 2 * j)
            w0 = ((np.int64(evi[i, E_SEAT]) + 1) & 0xFFFFFFFF) | (np.int64(kind) << 32) | \
                (np.int64(evi[i, E_NOTE] + 1) << 40)
            count = 0
            if ok:
                if m <= SMALL_ORDER:
                    w0 |= (np.int64(1) << 48) | (np.int64(m) << 51) | small
                else:
                    w0 |= np.int64(2) << 48
                    no += m
                tgen += 1
                tlen = 0
                dup = False
            else:
                count = m
                for j in range(m):
                    cards[nc + j] = cv[c0 + j]
                nc += m
                if kind == K_PLAY or kind == K_DOWN or kind == K_FORFEIT:
                    for j in range(m):
                        c = cv[c0 + j]
                        if stamp[c] == tgen:
                            dup = True
                        stamp[c] = tgen
                        tpos[c] = tlen
                        tlen += 1
            has_value = kind == K_WAR or kind == K_END
            ns = send - s0
            if klen + 3 + (ns + 7) // 8 > key.shape[0]:
                st[R_TGEN] = tgen
                st[R_UGEN] = ugen
                st[R_NEED] = klen + 3 + (ns + 7) // 8
                return 1
            w0 |= np.int64(has_value) << 50
            w1 = np.int64(count) | (np.int64(ns) << 32)
            key[klen] = w0
            key[klen + 1] = w1
            h = _fold(_fold(h, w0), w1)
            klen += 2
            if has_value:
                key[klen] = evi[i, E_VALUE]
                h = _fold(h, key[klen])
                klen += 1
            for j in range(0, ns, 8):
                w = np.int64(0)
                for b in range(j, min(j + 8, ns)):
                    w |= (np.int64(sv[s0 + b]) & 0xFF) << (8 * (b - j))
                key[klen] = w
                h = _fold(h, w)
                klen += 1
            c0 = cend
            s0 = send
            i += 1
        h = _mix(h)
        k = _find(key, klen, h, keys, kstart, khash, slots)
        if k < 0:
            slot = -1 - k
            k = nshapes
            a = kstart[k]
            if a + klen > keys.shape[0] or k + 2 > kstart.shape[0] or 2 * (k + 1) > slots.shape[0]:
                st[R_TGEN] = tgen
                st[R_UGEN] = ugen
                st[R_NEED] = klen
                return 2
            keys[a:a + klen] = key[:klen]
            kstart[k + 1] = a + klen
            khash[k] = h
            slots[slot] = k
            nshapes += 1
        shape[r] = k
        r += 1
        coff[r] = nc
        ooff[r] = no
    st[R_GAME] = g
    st[R_EVENT] = i
    st[R_ROW] = r
    st[R_CARDS] = nc
    st[R_ORDER] = no
    st[R_SHAPES] = nshapes
    return 0


@njit(cache=True)
def _encode_rows(ids, evi, cv, sv, counts):
    """logcodec.encode over the kernel's arrays, as the columns of `events/` rows: one row per run
    of a game's events with the same battle, with its cards, the order of its whole-table takes
    of more than SMALL_ORDER cards (both as int32 offsets and int16 values) and a shape id. Equal
    shapes get one id, numbered in order of first appearance; keys[kstart[k]:kstart[k+1]] is
    shape k's key, which `_shape_strings` spells.

    A key holds per event two words, `(seat + 1) & 0xFFFFFFFF | kind << 32 | (note + 1) << 40 |
    mode << 48 | has_value << 50 | takes << 51 | positions << 53` (mode 0: raw cards; 1: a
    whole-table take spelt in the shape, `takes` positions of 2 bits; 2: one in `order`) and
    `count | seats << 32`, then the value when there is one, then the seats, eight bytes a word.
    Kinds, notes and the positions of a small take fit their bits, so equal keys are equal shapes.

    The table of a row is kept as stamp[card] == tgen (on the table) and tpos[card] (where), so
    a take is checked in one pass over its cards, whatever the card codes."""
    E = evi.shape[0]
    size = 1
    for i in range(cv.shape[0]):
        if cv[i] >= size:
            size = cv[i] + 1
    st = np.zeros(10, np.int64)
    stamp = np.zeros(size, np.int64)
    tpos = np.zeros(size, np.int64)
    used = np.zeros(size, np.int64)
    gid = np.empty(E, np.int64)
    seq = np.empty(E, np.int32)
    battles = np.empty(E, np.int32)
    shape = np.empty(E, np.int32)
    coff = np.empty(E + 1, np.int32)
    ooff = np.empty(E + 1, np.int32)
    coff[0] = 0
    ooff[0] = 0
    cards = np.empty(cv.shape[0], np.int16)
    order = np.empty(cv.shape[0], np.int16)
    key = np.empty(256, np.int64)
    keys = np.empty(4096, np.int64)
    kstart = np.zeros(256, np.int64)
    khash = np.empty(256, np.uint64)
    slots = np.full(512, -1, np.int32)
    while True:
        status = _encode_pass(ids, evi, cv, sv, counts, st, stamp, tpos, used, gid, seq, battles, shape,
                              coff, cards, ooff, order, key, keys, kstart, khash, slots)
        if status == 0:
            break
        need = st[R_NEED]
        nshapes = st[R_SHAPES]
        if status == 1:
            key = _grow(key, need)
            continue
        if kstart[nshapes] + need > keys.shape[0]:
            keys = _grow(keys, kstart[nshapes] + need)
        if nshapes + 2 > kstart.shape[0]:
            kstart = _grow(kstart, nshapes + 2)
            khash = _grow(khash, nshapes + 2)
        if 2 * (nshapes + 1) > slots.shape[0]:
            slots = _rehash(khash, nshapes, 2 * slots.shape[0])
    r = st[R_ROW]
    nshapes = st[R_SHAPES]
    return (gid[:r], seq[:r], battles[:r], shape[:r], coff[:r + 1], cards[:st[R_CARDS]], ooff[:r + 1],
            order[:st[R_ORDER]], keys[:kstart[nshapes]], kstart[:nshapes + 1])


def _dictionary_from_codes(codes: np.ndarray, names) -> pa.DictionaryArray:
    """What `pa.array([names[c] or None]).dictionary_encode()` gives: the dictionary in order of
    first appearance, int32 indices, null where the code is -1."""
    first = _first_indices(codes, len(names))
    present = [c for c in np.argsort(first, kind="stable") if first[c] >= 0]
    remap = np.full(len(names) + 1, -1, np.int32)  # the last slot maps code -1
    remap[present] = np.arange(len(present), dtype=np.int32)
    indices = remap[codes]
    nulls = codes < 0
    idx = pa.array(indices, type=pa.int32(), mask=nulls if nulls.any() else None)
    return pa.DictionaryArray.from_arrays(idx, pa.array([names[c] for c in present], type=pa.string()))


def _constant_dictionary(value: str, count: int) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(count, np.int32)),
                                          pa.array([value] if count else [], type=pa.string()))


def _list(ends: np.ndarray, values: np.ndarray, value_type) -> pa.ListArray:
    offsets = np.empty(len(ends) + 1, np.int32)
    offsets[0] = 0
    if len(ends) and ends[-1] > np.iinfo(np.int32).max:
        raise OverflowError("more list values than int32 offsets hold")
    offsets[1:] = ends
    return pa.ListArray.from_arrays(pa.array(offsets, type=pa.int32()), pa.array(values, type=value_type))


def _nullable(values: np.ndarray, nulls: np.ndarray, type_) -> pa.Array:
    return pa.array(values, type=type_, mask=nulls if nulls.any() else None)


_SPELT: dict[bytes, str] = {}  # shape keys (as bytes) already spelt, across calls
_SPELT_MAX = 1 << 16


def _spell(words: list[int], events: dict) -> str:
    """One shape's text from its key's words (see `_encode_rows`), through logcodec.token;
    `events` keeps the text of each distinct event's words."""
    tokens = []
    i = 0
    while i < len(words):
        w0, w1 = words[i], words[i + 1]
        ns = w1 >> 32
        has_value = (w0 >> 50) & 1
        j = i + 2 + has_value + (ns + 7) // 8
        event = tuple(words[i:j])
        text = events.get(event)
        if text is None:
            seat = (w0 & 0xFFFFFFFF) - 1
            note = ((w0 >> 40) & 0xFF) - 1
            mode = (w0 >> 48) & 3
            take = tuple((w0 >> (53 + 2 * t)) & 3 for t in range((w0 >> 51) & 3)) if mode == 1 else None
            seats = tuple((event[2 + has_value + t // 8] >> (8 * (t % 8))) & 0xFF for t in range(ns))
            text = events[event] = token(EVENT_KINDS[(w0 >> 32) & 0xFF], None if seat < 0 else seat,
                                         w1 & 0xFFFFFFFF, take, mode == 2, seats, 0,
                                         event[2] if has_value else None, OUTCOMES[note] if note >= 0 else None)
        tokens.append(text)
        i = j
    return " ".join(tokens)


def _shape_strings(keys: np.ndarray, kstart: np.ndarray) -> list[str]:
    """The text of each shape interned by `_encode_rows`. Most shapes recur from one batch of
    games to the next, so texts are kept by key (exact bytes, never a hash alone)."""
    raw = keys.astype("<i8", copy=False).tobytes()
    bounds = (kstart * 8).tolist()
    events: dict = {}
    shapes = []
    if len(_SPELT) > _SPELT_MAX:
        _SPELT.clear()
    for a, b in zip(bounds, bounds[1:]):
        k = raw[a:b]
        text = _SPELT.get(k)
        if text is None:
            text = _SPELT[k] = _spell(keys[a // 8:b // 8].tolist(), events)
        shapes.append(text)
    return shapes


def events_from_arrays(ids: np.ndarray, evi, cv, sv, counts) -> pa.Table:
    """The `events/` table of the kernel's games, equal value for value to storage.events_table
    of their logs, built by `_encode_rows` and numpy instead of a Python loop per event."""
    if cv.shape[0] > np.iinfo(np.int32).max:
        raise OverflowError("more cards than int32 offsets hold")
    gid, seq, battle, shape, coff, cards, ooff, order, keys, kstart = _encode_rows(
        np.ascontiguousarray(ids, np.int64), evi, cv, sv, np.ascontiguousarray(counts, np.int64))
    shapes = pa.DictionaryArray.from_arrays(pa.array(shape, pa.int32()),
                                            pa.array(_shape_strings(keys, kstart), pa.string()))
    return pa.Table.from_arrays([
        pa.array(gid, pa.int64()), pa.array(seq, pa.int32()), pa.array(battle, pa.int32()), shapes,
        pa.ListArray.from_arrays(pa.array(coff, pa.int32()), pa.array(cards, pa.int16())),
        pa.ListArray.from_arrays(pa.array(ooff, pa.int32()), pa.array(order, pa.int16())),
    ], schema=EVENT_SCHEMA)


def build_tables(rules: RuleSet, ordinal: int, start: int, stop: int, arrays) -> tuple[pa.Table, pa.Table]:
    """The events and games tables from the kernel's arrays, without a loop over events."""
    evi, cv, sv, summ, ww, fc, seeds = arrays
    G = summ.shape[0]
    n = rules.players
    index = np.arange(start, start + G, dtype=np.int64)
    ids = np.int64(ordinal) * GAME_ID_STRIDE + index
    counts = summ[:, S_EVENTS]
    events = events_from_arrays(ids, evi, cv, sv, counts)

    policies = list(policy_specs(rules, ()))
    pol_values = pa.array(policies * G, type=pa.string())
    pol_offsets = pa.array(np.arange(G + 1, dtype=np.int32) * len(policies), type=pa.int32())
    winner = summ[:, S_WINNER]
    cycle = summ[:, S_CYCLE]
    columns = {
        "game_id": pa.array(ids, pa.int64()),
        "game_index": pa.array(index, pa.int64()),
        "game_seed": pa.array(seeds, pa.uint64()),
        "variant": _constant_dictionary(rules.variant, G),
        "rules_id": _constant_dictionary(rules.rules_id, G),
        "players": pa.array(np.full(G, n, np.int8), pa.int8()),
        "policies": pa.ListArray.from_arrays(pol_offsets, pol_values),
        "deal": _constant_dictionary("shuffle", G),
        "outcome": _dictionary_from_codes(summ[:, S_OUTCOME].astype(np.int8), OUTCOMES),
        "winner": _nullable(winner.astype(np.int8), winner < 0, pa.int8()),
        "battles": pa.array(summ[:, S_BATTLES].astype(np.int32), pa.int32()),
        "wars": pa.array(summ[:, S_WARS].astype(np.int32), pa.int32()),
        "war_battles": pa.array(summ[:, S_WAR_BATTLES].astype(np.int32), pa.int32()),
        "max_war_depth": pa.array(summ[:, S_MAX_DEPTH].astype(np.int16), pa.int16()),
        "first_battle_war": pa.array(summ[:, S_FIRST_WAR].astype(np.bool_), pa.bool_()),
        "war_wins": _list(np.arange(1, G + 1, dtype=np.int64) * n, ww.reshape(-1), pa.int32()),
        "final_cards": _list(np.arange(1, G + 1, dtype=np.int64) * n, fc.reshape(-1).astype(np.int16),
                             pa.int16()),
        "cards_set_aside": pa.array(summ[:, S_SET_ASIDE].astype(np.int16), pa.int16()),
        "cycle_length": _nullable(cycle.astype(np.int32), cycle < 0, pa.int32()),
        "events": pa.array(counts.astype(np.int32), pa.int32()),
    }
    games = pa.Table.from_arrays([columns[name] for name in GAME_SCHEMA.names], schema=GAME_SCHEMA)
    return events, games
