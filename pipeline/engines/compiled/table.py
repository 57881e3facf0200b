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

`fits(rules)` says whether a rule set's deck and seats fit these arrays; log.shard chooses
between this engine and the reference (explicit deals, other families, decks too big for an
int16 card code go through the reference).
"""

from __future__ import annotations

import numpy as np

from ...model.cards import Deck
from ...model.schema import EVENT_KINDS, RuleSet
from ..table import war_values
from .rng import HAVE_NUMBA, _fold, _game_seed, _mix, _seed, _shuffle, njit

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


# ---------------------------------------------------------------- the Python side

def fits(rules: RuleSet) -> bool:
    """Whether this engine's arrays hold a game of the rule set: int16 card codes, int8 seats."""
    size = rules.ranks * rules.suits + rules.jokers
    return HAVE_NUMBA and size <= MAX_CARD and rules.players <= 8


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
