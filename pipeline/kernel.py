"""A compiled fast path for the table family (Classic, Multiplayer, Jokers, Război).

`play_range_fast(rules, ordinal, seed, start, stop)` plays games start..stop-1 of a rule set and
returns the same two Arrow tables as `events_table(ids, logs)` and `games_table(records)` built
from `generate.play_range`, equal value for value (so the Parquet files are byte-identical).

The engine here is a line-by-line translation of `engine.play_table` (the readable reference,
which stays the definition of the rules) into numba-compiled code over numpy arrays:

- the generator is DESIGN.md's SplitMix64 / xoshiro256** / bounded / Fisher-Yates, in uint64
  arithmetic only (numba turns int64 mixed with uint64 into float64, so every constant and every
  operand of the generator is an explicit np.uint64);
- a pile is a ring buffer, a pooled won pile a stack whose top is its end;
- events go into flat arrays (one row per event, the cards and seats lists as values + end
  offsets); per-game summaries into arrays with -1 for null;
- the events table (pipeline/logcodec.py, one row per battle) is encoded by `_encode_rows`, which
  interns each row's shape as an exact key; each distinct shape is spelt once, in Python;
- cycle detection (fixed pickup orders only) keeps every position of the game (as offsets into
  each seat's stream of cards, see `_play_one`), a 64-bit hash of each (from per-pile hashes kept
  up to date move by move) in an open-addressing table, and compares the whole position on a hash
  hit, so a cycle is found exactly when the reference finds it.

`supported(rules, deals, policies)` says when the fast path applies; anything else (explicit
deals, other families, decks too big for an int16 card code) goes through the reference.
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa

from .cards import Deck
from .engine import war_values
from .logcodec import SMALL_ORDER, token
from .schema import EVENT_KINDS, GAME_ID_STRIDE, RuleSet
from .variants import VARIANTS

try:  # numba is optional: without it `supported` is False and the reference is used.
    from numba import njit
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    HAVE_NUMBA = False

    def njit(*args, **kwargs):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f


# Event kind codes: positions in schema.EVENT_KINDS.
K_DEAL, K_SET_ASIDE, K_PLAY, K_DOWN, K_WAR, K_WAR_OUT, K_FORFEIT, K_COLLECT, K_RESHUFFLE = range(9)
K_OUT, K_END = 12, 13
assert EVENT_KINDS[K_OUT] == "out" and EVENT_KINDS[K_END] == "end" and EVENT_KINDS[K_RESHUFFLE] == "reshuffle"
assert EVENT_KINDS[:9] == ("deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect",
                           "reshuffle")

OUTCOMES = ("win", "draw", "capped", "cycle")
O_WIN, O_DRAW, O_CAPPED, O_CYCLE = range(4)

PICKUPS = ("shuffled", "table_order", "winner_first", "pooled")
P_SHUFFLED, P_TABLE_ORDER, P_WINNER_FIRST, P_POOLED = range(4)

# Columns of the per-event int32 array.
E_BATTLE, E_KIND, E_SEAT, E_VALUE, E_NOTE, E_CEND, E_SEND = range(7)
# Columns of the per-game int64 summary array.
(S_OUTCOME, S_WINNER, S_BATTLES, S_WARS, S_WAR_BATTLES, S_MAX_DEPTH, S_FIRST_WAR, S_SET_ASIDE,
 S_CYCLE, S_EVENTS) = range(10)

MAX_CARD = 32767  # card codes are int16 in the events table
# A pile's hash is sum((card + 1) * B**i) mod 2**64 over its cards top first, B odd so that taking
# the top card is a subtraction and a multiplication by B's inverse.
PILE_B = np.uint64(0x9E3779B97F4A7C15)
PILE_B_INV = np.uint64(pow(0x9E3779B97F4A7C15, -1, 1 << 64))
assert SMALL_ORDER <= 3  # _encode_rows spells a small take in 2-bit fields


# ---------------------------------------------------------------- randomness (DESIGN.md)

@njit(cache=True)
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _game_seed(master, index):
    """The (index+1)-th SplitMix64 output from state `master` (both uint64)."""
    return _mix(master + (index + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))


@njit(cache=True)
def _seed(rng, seed):
    """xoshiro256** state from the first four SplitMix64 outputs of state `seed`."""
    state = seed
    for i in range(4):
        state = state + np.uint64(0x9E3779B97F4A7C15)
        rng[i] = _mix(state)


@njit(cache=True)
def _next(rng):
    s0 = rng[0]
    s1 = rng[1]
    s2 = rng[2]
    s3 = rng[3]
    x = s1 * np.uint64(5)
    result = ((x << np.uint64(7)) | (x >> np.uint64(57))) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << np.uint64(45)) | (s3 >> np.uint64(19))
    rng[0] = s0
    rng[1] = s1
    rng[2] = s2
    rng[3] = s3
    return result


@njit(cache=True)
def _bounded(rng, n):
    """Uniform in [0, n) by rejection: accept x < 2^64 - (2^64 mod n). n: uint64 >= 1."""
    rem = (np.uint64(0) - n) % n  # 2^64 mod n
    top = np.uint64(0xFFFFFFFFFFFFFFFF) - rem  # accept x <= top
    while True:
        x = _next(rng)
        if x <= top:
            return x % n


@njit(cache=True)
def _shuffle(rng, arr, length):
    """Fisher-Yates from the end over arr[0:length], in place."""
    for i in range(length - 1, 0, -1):
        j = np.int64(_bounded(rng, np.uint64(i + 1)))
        a = arr[i]
        arr[i] = arr[j]
        arr[j] = a


# Small entry points for the tests of the generator.

@njit(cache=True)
def splitmix_outputs(state, count):
    out = np.empty(count, np.uint64)
    for i in range(count):
        state = state + np.uint64(0x9E3779B97F4A7C15)
        out[i] = _mix(state)
    return out


@njit(cache=True)
def game_seeds(master, start, stop):
    out = np.empty(stop - start, np.uint64)
    for i in range(start, stop):
        out[i - start] = _game_seed(master, np.uint64(i))
    return out


@njit(cache=True)
def xoshiro_outputs(seed, count):
    rng = np.empty(4, np.uint64)
    _seed(rng, seed)
    out = np.empty(count, np.uint64)
    for i in range(count):
        out[i] = _next(rng)
    return out


@njit(cache=True)
def shuffled_range(seed, length):
    """range(length) shuffled by the generator of `seed` (what shuffled_deal shuffles)."""
    rng = np.empty(4, np.uint64)
    _seed(rng, seed)
    deck = np.arange(length).astype(np.int32)
    _shuffle(rng, deck, length)
    return deck


@njit(cache=True)
def bounded_draws(seed, bounds):
    rng = np.empty(4, np.uint64)
    _seed(rng, seed)
    out = np.empty(len(bounds), np.uint64)
    for i in range(len(bounds)):
        out[i] = _bounded(rng, bounds[i])
    return out


# ---------------------------------------------------------------- the engine

@njit(cache=True, inline="always")
def _emit(evi, cnt, battle, kind, seat, value, note):
    """One event row; its cards and seats were pushed just before (cnt[1], cnt[2] are their ends)."""
    i = cnt[0]
    evi[i, 0] = battle
    evi[i, 1] = kind
    evi[i, 2] = seat
    evi[i, 3] = value
    evi[i, 4] = note
    evi[i, 5] = cnt[1]
    evi[i, 6] = cnt[2]
    cnt[0] = i + 1


@njit(cache=True, inline="always")
def _push(cv, cnt, src, a, b):
    k = cnt[1]
    for i in range(a, b):
        cv[k] = src[i]
        k += 1
    cnt[1] = k


@njit(cache=True)
def _append(s, src, count, L, ph, bpow, stream, sto):
    """src[:count] put under seat s's pile of L cards: its hash and its stream follow."""
    hs = ph[s]
    t = sto[s]
    for i in range(count):
        hs += np.uint64(src[i] + 1) * bpow[L + i]
        stream[s, t + i] = src[i]
    ph[s] = hs
    sto[s] = t + count


@njit(cache=True)
def _reshuffle(s, battle, rng, pile, head, plen, won, wlen, tmp, mask, evi, cv, cnt, detect, ph, bpow,
               stream, sto):
    """Seat s's won pile, shuffled, becomes its (empty) pile; with detection on, ph[s] and the
    stream follow (see _play_one)."""
    w = wlen[s]
    for i in range(w):  # the won pile, top first
        tmp[i] = won[s, w - 1 - i]
    _shuffle(rng, tmp, w)
    h = head[s]
    for i in range(w):
        pile[s, (h + i) & mask] = tmp[i]
    plen[s] = w
    wlen[s] = 0
    if detect:
        _append(s, tmp, w, 0, ph, bpow, stream, sto)
    _push(cv, cnt, tmp, 0, w)
    _emit(evi, cnt, battle, K_RESHUFFLE, s, 0, -1)


@njit(cache=True, inline="always")
def _pop(s, pile, head, plen, ph, sfrom, mask):
    """The top card of seat s's pile, which is not empty; ph[s] and sfrom[s] follow. No branch
    here: numba counts references to the arrays an inlined function takes, and drops those
    counts (atomic operations, per array and per call) only when the function is one block."""
    h = head[s]
    c = pile[s, h]
    head[s] = (h + 1) & mask
    plen[s] -= 1
    ph[s] = (ph[s] - np.uint64(c + 1)) * PILE_B_INV
    sfrom[s] += 1
    return c


@njit(cache=True, inline="always")
def _fold(h, word):
    """One word into a running hash (finished by _mix): of a position, of a shape key."""
    return (h ^ np.uint64(word)) * np.uint64(0x100000001B3)


@njit(cache=True)
def _play_one(gseed, n, D, rank, values, by_rank, fixed_down, single_up, lose, pickup, wtw,
              max_battles, detect, rng, deck, pile, head, plen, won, wlen, alive, table, tseat, order, tmp,
              up, cont, tied, ready, war_wins, ph, bpow, stream, sfrom, sto, pos_from, pos_len, pos_hash,
              pos_ww, ht, ht_gen, gen, evi, cv, sv, cnt, summ, ww_out, fc_out):
    """Play one game (engine.play_table), appending its events. Returns 0 when done, 1 when the
    event buffers may be too small for the next battle, 2 when the position buffers are full, 3
    when the streams are; the caller then grows them and plays the game again from the start.

    Cycle detection looks up each position before a battle among the game's earlier ones. For
    that, every change to a pile (deal, draw, reshuffle, forfeit, collect) keeps, besides the
    ring buffer: ph[s], the pile's hash (see PILE_B), so a position hashes in O(players); and
    the seat's stream, every card ever put in its pile in order, of which the pile is
    stream[s, sfrom[s]:sto[s]], so a position is stored exactly as (sfrom, plen) per seat, and
    compared card for card with the current one on a hash hit."""
    mask = pile.shape[1] - 1
    ev_cap = evi.shape[0]
    cv_cap = cv.shape[0]
    sv_cap = sv.shape[0]
    # The most room one battle and the end event can take. A battle has at most D/2 + 1 war
    # rounds (each takes a card from two seats or more); a round logs a war and, per seat, at
    # most a down split in two by a reshuffle and a play; once per seat and battle come a
    # reshuffle (a won pile is refilled only by the collect), a war_out or a forfeit and out, and
    # an out. Cards: each table card is played, put down or forfeited once, reshuffled at most
    # once and collected (or set aside) once.
    ev_need = (D + 2) * (2 * n + 2) + 8 * n + 16
    cv_need = 3 * D + 16
    sv_need = (D + 2) * n + 8
    if cnt[0] + n + 2 > ev_cap or cnt[1] + D > cv_cap:
        return 1
    ev0 = cnt[0]

    _seed(rng, gseed)
    for i in range(D):
        deck[i] = i
    _shuffle(rng, deck, D)
    each = D // n
    dealt = each * n
    for s in range(n):
        head[s] = 0
        plen[s] = each
        wlen[s] = 0
        alive[s] = True
        war_wins[s] = 0
        for i in range(each):
            pile[s, i] = deck[s + i * n]
        ph[s] = 0
        sfrom[s] = 0
        sto[s] = 0
        if detect:
            _append(s, pile[s], each, 0, ph, bpow, stream, sto)
        _push(cv, cnt, pile[s], 0, each)
        _emit(evi, cnt, 0, K_DEAL, s, 0, -1)
    set_aside = D - dealt
    if set_aside:
        _push(cv, cnt, deck, dealt, D)
        _emit(evi, cnt, 0, K_SET_ASIDE, -1, 0, -1)

    wars = 0
    war_battles = 0
    max_depth = 0
    first_war = 0
    outcome = -1
    winner = -1
    cycle = -1
    npos = 0
    hmask = ht.shape[0] - 1
    battle = 0
    while True:
        if cnt[0] + ev_need > ev_cap or cnt[1] + cv_need > cv_cap or cnt[2] + sv_need > sv_cap:
            return 1
        if battle >= max_battles:
            outcome = O_CAPPED
            break
        if detect:
            if npos + 1 >= pos_hash.shape[0]:
                return 2
            hv = np.uint64(0x84222325CBF29CE4)
            for s in range(n):
                if sto[s] + D > stream.shape[1]:  # a battle puts at most D cards in a pile
                    return 3
                hv = _fold(_fold(hv, plen[s]), ph[s])
            if wtw > 0:
                for s in range(n):
                    hv = _fold(hv, war_wins[s])
            hv = _mix(hv)
            slot = np.int64(hv & np.uint64(hmask))
            found = -1
            while ht_gen[slot] == gen:
                j = ht[slot]
                if pos_hash[j] == hv:
                    same = True
                    for s in range(n):
                        L = plen[s]
                        if pos_len[j * n + s] != L:
                            same = False
                            break
                        a = pos_from[j * n + s]
                        b = sfrom[s]
                        for i in range(L):
                            if stream[s, a + i] != stream[s, b + i]:
                                same = False
                                break
                        if not same:
                            break
                    if same and wtw > 0:
                        for s in range(n):
                            if pos_ww[j * n + s] != war_wins[s]:
                                same = False
                                break
                    if same:
                        found = j
                        break
                slot = (slot + 1) & hmask
            if found >= 0:
                outcome = O_CYCLE
                cycle = battle - found
                break
            ht_gen[slot] = gen
            ht[slot] = npos
            pos_hash[npos] = hv
            for s in range(n):
                pos_from[npos * n + s] = sfrom[s]
                pos_len[npos * n + s] = plen[s]
            if wtw > 0:
                for s in range(n):
                    pos_ww[npos * n + s] = war_wins[s]
            npos += 1
        battle += 1

        tl = 0
        nc = 0
        for s in range(n):
            if alive[s]:
                cont[nc] = s
                nc += 1
        for ci in range(nc):
            s = cont[ci]
            if plen[s] == 0:
                _reshuffle(s, battle, rng, pile, head, plen, won, wlen, tmp, mask, evi, cv, cnt, detect, ph, bpow,
                           stream, sto)
            c = _pop(s, pile, head, plen, ph, sfrom, mask)
            table[tl] = c
            tseat[tl] = s
            tl += 1
            up[s] = c
            _push(cv, cnt, table, tl - 1, tl)
            _emit(evi, cnt, battle, K_PLAY, s, 0, -1)

        depth = 0
        win = -1
        while True:
            best = -1
            for ci in range(nc):
                r = rank[up[cont[ci]]]
                if r > best:
                    best = r
            nt = 0
            for ci in range(nc):
                s = cont[ci]
                if rank[up[s]] == best:
                    tied[nt] = s
                    nt += 1
            if nt == 1:
                win = tied[0]
                break
            depth += 1
            k2 = cnt[2]
            for i in range(nt):
                sv[k2] = tied[i]
                k2 += 1
            cnt[2] = k2
            _emit(evi, cnt, battle, K_WAR, -1, depth, -1)
            if single_up and depth >= 2:
                down = 0
            elif by_rank:
                down = values[best] - 1
            else:
                down = fixed_down
            nr = 0
            for i in range(nt):
                s = tied[i]
                have = plen[s] + wlen[s]
                if have == 0:
                    _emit(evi, cnt, battle, K_WAR_OUT, s, 0, -1)
                elif lose and have <= down:
                    t0 = tl
                    h = head[s]
                    for i2 in range(plen[s]):
                        table[tl] = pile[s, (h + i2) & mask]
                        tseat[tl] = s
                        tl += 1
                    for i2 in range(wlen[s] - 1, -1, -1):
                        table[tl] = won[s, i2]
                        tseat[tl] = s
                        tl += 1
                    plen[s] = 0
                    ph[s] = 0
                    sfrom[s] = sto[s]
                    wlen[s] = 0
                    alive[s] = False
                    _push(cv, cnt, table, t0, tl)
                    _emit(evi, cnt, battle, K_FORFEIT, s, 0, -1)
                    _emit(evi, cnt, battle, K_OUT, s, 0, -1)
                else:
                    ready[nr] = s
                    nr += 1
            if nr > 1:
                for i in range(nr):
                    s = ready[i]
                    k = min(down, plen[s] + wlen[s] - 1)
                    if k > 0:
                        t0 = tl
                        for _ in range(k):
                            if plen[s] == 0 and tl > t0:
                                _push(cv, cnt, table, t0, tl)
                                _emit(evi, cnt, battle, K_DOWN, s, 0, -1)
                                t0 = tl
                            if plen[s] == 0:
                                _reshuffle(s, battle, rng, pile, head, plen, won, wlen, tmp, mask, evi, cv, cnt,
                                           detect, ph, bpow, stream, sto)
                            c = _pop(s, pile, head, plen, ph, sfrom, mask)
                            table[tl] = c
                            tseat[tl] = s
                            tl += 1
                        _push(cv, cnt, table, t0, tl)
                        _emit(evi, cnt, battle, K_DOWN, s, 0, -1)
                    if plen[s] == 0:
                        _reshuffle(s, battle, rng, pile, head, plen, won, wlen, tmp, mask, evi, cv, cnt, detect,
                                   ph, bpow, stream, sto)
                    c = _pop(s, pile, head, plen, ph, sfrom, mask)
                    table[tl] = c
                    tseat[tl] = s
                    tl += 1
                    up[s] = c
                    _push(cv, cnt, table, tl - 1, tl)
                    _emit(evi, cnt, battle, K_PLAY, s, 0, -1)
            if nr <= 1:
                win = ready[0] if nr == 1 else -1
                break
            for i in range(nr):
                cont[i] = ready[i]
            nc = nr

        if depth:
            wars += depth
            war_battles += 1
            if depth > max_depth:
                max_depth = depth
            if battle == 1:
                first_war = 1

        if win < 0:
            set_aside += tl
            _push(cv, cnt, table, 0, tl)
            _emit(evi, cnt, battle, K_SET_ASIDE, -1, 0, -1)
        else:
            if pickup == P_SHUFFLED:
                _shuffle(rng, table, tl)
                src = table
            elif pickup == P_WINNER_FIRST:
                o = 0
                for i in range(tl):
                    if tseat[i] == win:
                        order[o] = table[i]
                        o += 1
                for s in range(n):
                    if s != win:
                        for i in range(tl):
                            if tseat[i] == s:
                                order[o] = table[i]
                                o += 1
                src = order
            else:
                src = table
            if pickup == P_POOLED:
                w = wlen[win]
                for i in range(tl - 1, -1, -1):
                    won[win, w] = src[i]
                    w += 1
                wlen[win] = w
            else:
                h = head[win]
                L = plen[win]
                for i in range(tl):
                    pile[win, (h + L + i) & mask] = src[i]
                if detect:
                    _append(win, src, tl, L, ph, bpow, stream, sto)
                plen[win] = L + tl
            _push(cv, cnt, src, 0, tl)
            _emit(evi, cnt, battle, K_COLLECT, win, 0, -1)
            if depth:
                war_wins[win] += 1
                if wtw > 0 and war_wins[win] >= wtw:
                    outcome = O_WIN
                    winner = win
                    break

        for s in range(n):
            if alive[s] and plen[s] + wlen[s] == 0:
                alive[s] = False
                _emit(evi, cnt, battle, K_OUT, s, 0, -1)
        nl = 0
        last = -1
        for s in range(n):
            if alive[s]:
                nl += 1
                if last < 0:
                    last = s
        if nl <= 1:
            if nl == 1:
                outcome = O_WIN
                winner = last
            else:
                outcome = O_DRAW
                winner = -1
            break

    for s in range(n):
        fc_out[s] = plen[s] + wlen[s]
        ww_out[s] = war_wins[s]
    _emit(evi, cnt, battle, K_END, winner, battle, outcome)
    summ[0] = outcome
    summ[1] = winner
    summ[2] = battle
    summ[3] = wars
    summ[4] = war_battles
    summ[5] = max_depth
    summ[6] = first_war
    summ[7] = set_aside
    summ[8] = cycle
    summ[9] = cnt[0] - ev0
    return 0


@njit(cache=True)
def _pow2(x):
    p = 1
    while p < x:
        p *= 2
    return p


@njit(cache=True)
def play_games(master, start, stop, n, D, rank, values, by_rank, fixed_down, single_up, lose, pickup,
               wtw, max_battles, detect, ev_cap, cv_cap, sv_cap, pos_cap):
    """Play games start..stop-1 of master seed `master` (uint64). Returns the event rows
    (int32 [E, 7]), the card and seat values, the summaries (int64 [G, 10]), war wins and final
    cards ([G, n]) and the game seeds."""
    G = stop - start
    summ = np.zeros((G, 10), np.int64)
    ww_out = np.zeros((G, n), np.int32)
    fc_out = np.zeros((G, n), np.int32)
    seeds = np.zeros(G, np.uint64)
    evi = np.empty((max(ev_cap, 16), 7), np.int32)
    cv = np.empty(max(cv_cap, 16), np.int16)
    sv = np.empty(max(sv_cap, 16), np.int8)
    cnt = np.zeros(3, np.int64)

    rng = np.empty(4, np.uint64)
    deck = np.empty(D, np.int32)
    cap = _pow2(D)
    pile = np.empty((n, cap), np.int32)
    head = np.zeros(n, np.int64)
    plen = np.zeros(n, np.int64)
    won = np.empty((n, D), np.int32)
    wlen = np.zeros(n, np.int64)
    alive = np.zeros(n, np.bool_)
    table = np.empty(D, np.int32)
    tseat = np.empty(D, np.int64)
    order = np.empty(D, np.int32)
    tmp = np.empty(D, np.int32)
    up = np.zeros(n, np.int64)
    cont = np.zeros(n, np.int64)
    tied = np.zeros(n, np.int64)
    ready = np.zeros(n, np.int64)
    war_wins = np.zeros(n, np.int64)

    npos_cap = max(pos_cap, 2) if detect else 1
    if detect and max_battles + 2 < npos_cap:
        npos_cap = max_battles + 2
    ph = np.zeros(n, np.uint64)
    bpow = np.empty(D + 1, np.uint64)  # PILE_B ** i
    bpow[0] = np.uint64(1)
    for i in range(1, D + 1):
        bpow[i] = bpow[i - 1] * PILE_B
    stream = np.empty((n, 2 * D + 4 * npos_cap if detect else 1), np.int16)
    sfrom = np.zeros(n, np.int64)
    sto = np.zeros(n, np.int64)
    pos_from = np.zeros(npos_cap * n if detect else 1, np.int64)
    pos_len = np.zeros(npos_cap * n if detect else 1, np.int64)
    pos_hash = np.zeros(npos_cap, np.uint64)
    pos_ww = np.zeros(npos_cap * n if (detect and wtw > 0) else 1, np.int64)
    hsize = _pow2(2 * npos_cap)
    ht = np.zeros(hsize, np.int64)
    ht_gen = np.zeros(hsize, np.int64)

    gen = 0
    g = 0
    while g < G:
        gen += 1
        e0 = cnt[0]
        c0 = cnt[1]
        s0 = cnt[2]
        gseed = _game_seed(master, np.uint64(start + g))
        status = _play_one(gseed, n, D, rank, values, by_rank, fixed_down, single_up, lose, pickup,
                           wtw, max_battles, detect, rng, deck, pile, head, plen, won, wlen, alive, table, tseat,
                           order, tmp, up, cont, tied, ready, war_wins, ph, bpow, stream, sfrom, sto, pos_from,
                           pos_len, pos_hash, pos_ww, ht, ht_gen, gen, evi, cv, sv, cnt, summ[g], ww_out[g],
                           fc_out[g])
        if status == 0:
            seeds[g] = gseed
            g += 1
            continue
        cnt[0] = e0
        cnt[1] = c0
        cnt[2] = s0
        if status == 1:  # grow the event buffers, keeping the games already played
            new_evi = np.empty((2 * evi.shape[0] + (D + 2) * (2 * n + 2) + 8 * n + 16, 7), np.int32)
            new_evi[:e0] = evi[:e0]
            evi = new_evi
            new_cv = np.empty(2 * cv.shape[0] + 3 * D + 16, np.int16)
            new_cv[:c0] = cv[:c0]
            cv = new_cv
            new_sv = np.empty(2 * sv.shape[0] + (D + 2) * n + 8, np.int8)
            new_sv[:s0] = sv[:s0]
            sv = new_sv
        elif status == 3:  # grow the streams (their contents belong to the game being replayed)
            stream = np.empty((n, 2 * stream.shape[1]), np.int16)
        else:  # grow the position buffers (likewise)
            npos_cap *= 2
            pos_from = np.zeros(npos_cap * n, np.int64)
            pos_len = np.zeros(npos_cap * n, np.int64)
            pos_hash = np.zeros(npos_cap, np.uint64)
            pos_ww = np.zeros(npos_cap * n if wtw > 0 else 1, np.int64)
            hsize = _pow2(2 * npos_cap)
            ht = np.zeros(hsize, np.int64)
            ht_gen = np.zeros(hsize, np.int64)
    return evi[:cnt[0]], cv[:cnt[1]], sv[:cnt[2]], summ, ww_out, fc_out, seeds


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


# ---------------------------------------------------------------- the Python side

def supported(rules: RuleSet, deals=None, policies=()) -> bool:
    """True when play_range_fast gives exactly the reference's tables for these games."""
    if not HAVE_NUMBA or deals is not None or policies or os.environ.get("WAR_ENGINE") == "reference":
        return False
    spec = VARIANTS.get(rules.variant)
    if spec is None or spec.family != "table" or spec.decisions:
        return False
    size = rules.ranks * rules.suits + rules.jokers
    return size <= MAX_CARD and rules.players <= 8


def _params(rules: RuleSet) -> dict:
    """The kernel's arguments. Numbers the game cannot reach are clamped into int64: a war of
    more cards than the deck, an Ace worth more, a cap or a war count beyond any game, all play
    exactly as the clamped value does (a player never holds more than the deck)."""
    size = rules.ranks * rules.suits + rules.jokers
    values = war_values(rules)
    big = 1 << 62
    return dict(
        n=rules.players, D=size,
        rank=np.array(Deck(rules.ranks, rules.suits, rules.jokers).rank, dtype=np.int64),
        values=np.array([min(v, size + 1) for v in values] if values is not None else (0,), dtype=np.int64),
        by_rank=values is not None,
        fixed_down=0 if values is not None else min(int(rules.war_down), size),
        single_up=rules.war_tiebreak == "single_up", lose=rules.shortfall == "lose",
        pickup=PICKUPS.index(rules.pickup), wtw=min(int(rules.wars_to_win or 0), big),
        max_battles=min(int(rules.max_battles), big),
        detect=rules.pickup in ("table_order", "winner_first"),
    )


def play_arrays(rules: RuleSet, seed: int, start: int, stop: int, capacity: int | None = None,
                positions: int = 1024):
    """The kernel's raw output for games start..stop-1 of master seed `seed` (numpy arrays).
    `capacity` (events) and `positions` (per game) are only first sizes: buffers grow as needed."""
    p = _params(rules)
    games = max(stop - start, 0)
    if capacity is None:
        guess = {"pooled": 1200, "shuffled": 1000}.get(rules.pickup, 700) * p["n"] * p["D"] // 104 + 64
        capacity = games * min(guess, 20_000)
    return play_games(np.uint64(seed), start, start + games, p["n"], p["D"], p["rank"], p["values"],
                      p["by_rank"], p["fixed_down"], p["single_up"], p["lose"], p["pickup"], p["wtw"],
                      p["max_battles"], p["detect"], capacity, capacity, capacity // 10 + 16, positions)


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
    from .storage import EVENT_SCHEMA

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
    from .game import policy_specs
    from .storage import GAME_SCHEMA

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


def play_range_fast(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int) -> tuple[pa.Table, pa.Table]:
    """Games start..stop-1 of a rule set as (events table, games table): the same tables as
    events_table / games_table over generate.play_range, for rule sets where `supported`."""
    if not supported(rules):
        raise ValueError(f"the fast path does not play rule set {rules.variant} {rules.rules_id}")
    return build_tables(rules, ordinal, start, stop, play_arrays(rules, seed, start, stop))


def shard_tables(rules: RuleSet, ordinal: int, seed: int, start: int, stop: int, deals=None, policies=(),
                 tick=None) -> tuple[pa.Table, pa.Table]:
    """(events table, games table) of games start..stop-1: from the fast path when it applies,
    else from the reference engine. What generate.run_shard writes."""
    if supported(rules, deals, policies):
        tables = play_range_fast(rules, ordinal, seed, start, stop)
        if tick is not None and stop > start:
            tick(stop - start)
        return tables
    from .generate import play_range
    from .storage import games_table, rows_table

    ids, rows, records = play_range(rules, ordinal, seed, start, stop, deals, policies, tick, encode=True)
    return rows_table(ids, rows), games_table(records)


def warm() -> None:
    """Load (or compile) the kernel's machine code now, by playing one tiny game."""
    if HAVE_NUMBA:
        from .rules import build_rules

        play_range_fast(build_rules("classic", {"ranks": "5", "suits": "2"}), 0, 0, 0, 1)
