"""Two seats in open play, compiled on their own: the fast path through every deal of a small deck
and through random deals of the open game, the games research on War plays by the billion.

A rule set of two seats that lays no card face down in a war (`war_down = 0`), gathers the table
by a fixed order and is won by holding every card plays the same ranks whatever the suits
(docs/rules.md 2.6), so this engine keeps ranks alone, a byte a card, each pile a ring of bytes,
the heads and sizes in registers. It logs no events: it gives the games rows the table family's
compiled engine gives (a test holds them equal over every deal of small decks), for datasets that
store the games table alone, and the counts of an enumeration (jobs.counts).

Cycles are found by Brent's algorithm on the positions by rank: the position before battle b is
compared with one saved at the last power of two, which costs a comparison of pile sizes a
battle and finds the period λ of a game that loops. The game's first repeated position μ + λ
(where the table family's engine stops it) then comes from two copies of the game λ battles
apart, played in step until their positions meet, and the game is played once more to that
battle for its counts and the cycle's key (the least key of its λ positions, engines.cycle_key).
A game that reaches its cap is played on, to four times the cap, to tell a cycle that begins
before the cap (whose repeat Brent's saved position had not reached) from a game that is capped.
"""

from __future__ import annotations

import numpy as np

from ...model.schema import RuleSet
from ..compiled.deals import _next_sequence, _unrank
from ..compiled.jit import HAVE_NUMBA, njit
from ..compiled.layout import (
    OUTCOME_CAPPED, OUTCOME_CYCLE, OUTCOME_DRAW, OUTCOME_WIN, PICKUP_NATURAL, PICKUP_SORTED, PICKUP_TABLE_ORDER,
    PICKUP_WINNER_FIRST, SUMMARY_BATTLES, SUMMARY_CARDS_LAID, SUMMARY_CARDS_SET_ASIDE, SUMMARY_COLUMNS,
    SUMMARY_CYCLE_KEY, SUMMARY_CYCLE_LENGTH, SUMMARY_EVENTS, SUMMARY_FIRST_BATTLE_WAR, SUMMARY_MAX_WAR_DEPTH,
    SUMMARY_OUTCOME, SUMMARY_WAR_BATTLES, SUMMARY_WARS, SUMMARY_WINNER,
)
from ..compiled.rng import HASH_START, _fold, _game_seed, _mix, _seed, _shuffle

FIXED = ("table_order", "winner_first", "natural", "sorted")
# The orders that treat the seats alike: a deal with the seats' piles swapped plays the same game
# with the winner swapped (table order puts seat 0's cards first, so it does not).
SYMMETRIC = ("winner_first", "natural", "sorted")
PICKUPS_CODE = {"table_order": PICKUP_TABLE_ORDER, "winner_first": PICKUP_WINNER_FIRST, "natural": PICKUP_NATURAL,
                "sorted": PICKUP_SORTED}
MOST_RANKS = 255          # a rank is a byte
MOST_BATTLES = 1 << 40    # a game's cap, played on four times over, stays in int64
MOST_DEALS = 1 << 63      # a deal's number in the enumeration is an int64 (compiled.deals._unrank)

def extra_card(rules: RuleSet) -> int:
    """1 where seat 1 is dealt one card more than seat 0 (`deal = first_short`, an odd deck:
    model.deal.deal_plan), else 0."""
    from ...model.deal import pile_sizes

    sizes = pile_sizes(rules)
    return sizes[1] - sizes[0]


# What _play returns besides the position counts.
ENDED, CAPPED, CYCLE = 0, 1, 2


def fits(rules: RuleSet) -> bool:
    """Whether this engine plays the rule set's games, of those the family's declaration sends it
    (its `fast_options`: two seats, open play, a fixed pickup, won by every card, the Ace high):
    numba there, ranks that fit a byte and a cap that fits its counts."""
    return HAVE_NUMBA and rules.ranks + (rules.jokers > 0) <= MOST_RANKS and rules.max_battles <= MOST_BATTLES


# ---------------------------------------------------------------- one battle

@njit(cache=True, inline="always", _nrt=False)
def _same(ring, mask, cap, h0, h1, n0, n1, snap, sh0, sh1):
    """Whether the piles hold the ranks of the saved position (whose seat 0 pile has n0 cards:
    the caller compared the sizes). `snap` is a ring of the same shape."""
    for i in range(n0):
        if ring[(h0 + i) & mask] != snap[(sh0 + i) & mask]:
            return False
    for i in range(n1):
        if ring[cap + ((h1 + i) & mask)] != snap[cap + ((sh1 + i) & mask)]:
            return False
    return True


@njit(cache=True, inline="always", _nrt=False)
def _war(ring, mask, cap, h0, h1, n0, n1, a, b, pickup, table):
    """A battle whose cards a and b tie, from its first war on (docs/rules.md 2.2, 2.3 with no card
    down): each seat turns a card up while both hold one; a seat holding none is out of the war and
    the other takes the table, and when both hold none the table is set aside. The winner takes
    the table in `pickup` order. Returns the piles, the winner (-1: set aside), the wars, and the
    cards laid, events logged and cards set aside beyond a plain battle's 2, 3 and 0."""
    table[0] = a
    table[1] = b
    size = 2
    depth = 0
    events = 0
    winner = -1
    while True:
        depth += 1
        events += 1  # war
        if n0 == 0 or n1 == 0:
            events += (n0 == 0) + (n1 == 0)  # war_out each; a set_aside or a collect follows as in a battle
            if n0 > 0:
                winner = 0
            elif n1 > 0:
                winner = 1
            break
        a = ring[h0]
        h0 = (h0 + 1) & mask
        n0 -= 1
        b = ring[cap + h1]
        h1 = (h1 + 1) & mask
        n1 -= 1
        table[size] = a
        table[size + 1] = b
        size += 2
        events += 2  # play each
        if a != b:
            winner = 0 if a > b else 1
            break
    if winner < 0:
        return h0, h1, n0, n1, winner, depth, size - 2, events, size
    base = winner * cap
    head = h0 if winner == 0 else h1
    held = n0 if winner == 0 else n1
    if pickup == PICKUP_TABLE_ORDER:
        for i in range(size):
            ring[base + ((head + held + i) & mask)] = table[i]
    elif pickup == PICKUP_WINNER_FIRST:
        at = held
        for first in (winner, 1 - winner):
            for i in range(first, size, 2):
                ring[base + ((head + at) & mask)] = table[i]
                at += 1
    elif pickup == PICKUP_NATURAL:  # the stack turned over: the last step first, each high then low
        at = held
        for step in range(size // 2 - 1, -1, -1):
            x, y = table[2 * step], table[2 * step + 1]
            ring[base + ((head + at) & mask)] = max(x, y)
            ring[base + ((head + at + 1) & mask)] = min(x, y)
            at += 2
    else:  # sorted: highest rank first (equal ranks are alike)
        for i in range(1, size):
            x = table[i]
            j = i
            while j > 0 and table[j - 1] < x:
                table[j] = table[j - 1]
                j -= 1
            table[j] = x
        for i in range(size):
            ring[base + ((head + held + i) & mask)] = table[i]
    if winner == 0:
        n0 += size
    else:
        n1 += size
    return h0, h1, n0, n1, winner, depth, size - 2, events, 0


@njit(cache=True, inline="always", _nrt=False)
def _battle(ring, mask, cap, h0, h1, n0, n1, pickup, table):
    """One battle: both seats turn their top card; the higher takes both, high then low (table
    order: seat 0's first); a tie goes to _war. Returns what _war returns. The plain battle is
    written without a branch on who wins, which a processor cannot foresee."""
    a = ring[h0]
    b = ring[cap + h1]
    h0 = (h0 + 1) & mask
    h1 = (h1 + 1) & mask
    n0 -= 1
    n1 -= 1
    if a == b:
        return _war(ring, mask, cap, h0, h1, n0, n1, a, b, pickup, table)
    w = np.int64(b > a)
    if pickup == PICKUP_TABLE_ORDER:
        first, second = a, b
    else:
        first, second = max(a, b), min(a, b)
    at = (h1 + n1) * w + (h0 + n0) * (1 - w)
    base = cap * w
    ring[base + (at & mask)] = first
    ring[base + ((at + 1) & mask)] = second
    return h0, h1, n0 + 2 - 2 * w, n1 + 2 * w, w, 0, 0, 0, 0


@njit(cache=True, inline="always", _nrt=False)
def _deal(ring, mask, cap, deal, half):
    """Card i of the deal's ranks to seat i mod 2 (docs/rules.md 1.4), the first on top."""
    for i in range(half):
        ring[i] = deal[2 * i]
        ring[cap + i] = deal[2 * i + 1]


@njit(cache=True, inline="always", _nrt=False)
def _deal_as(ring, mask, cap, deal, half, extra):
    """The deal's ranks dealt as the rule set deals them (model.deal.deal_plan): with `extra` 0,
    card i to seat i mod 2 (_deal); with 1 (`deal = first_short`, an odd deck), every card, card
    i to seat (i + 1) mod 2, so that seat 1 holds the one card more."""
    if extra == 0:
        _deal(ring, mask, cap, deal, half)
        return
    for i in range(half):
        ring[i] = deal[2 * i + 1]
        ring[cap + i] = deal[2 * i]
    ring[cap + half] = deal[2 * half]


@njit(cache=True, _nrt=False)
def _position_keys(ring, mask, cap, h0, h1, n0, n1):
    """The position's key (engines.cycle_key.position_key) and its mirror's, seats swapped."""
    key = HASH_START
    key = _fold(key, n0)
    for i in range(n0):
        key = _fold(key, ring[(h0 + i) & mask] + 1)
    key = _fold(key, n1)
    for i in range(n1):
        key = _fold(key, ring[cap + ((h1 + i) & mask)] + 1)
    mirror = HASH_START
    mirror = _fold(mirror, n1)
    for i in range(n1):
        mirror = _fold(mirror, ring[cap + ((h1 + i) & mask)] + 1)
    mirror = _fold(mirror, n0)
    for i in range(n0):
        mirror = _fold(mirror, ring[(h0 + i) & mask] + 1)
    return _mix(key), _mix(mirror)


# ---------------------------------------------------------------- one game

@njit(cache=True, _nrt=False)
def _play(deal, half, extra, pickup, stop, detect, key_from, ring, snap, table, out):
    """Play the deal until it ends, `stop` battles are played or (with `detect`) Brent's check
    finds its period. `out`: battles, wars, war battles, deepest war, first battle a war, war wins
    of each seat, cards laid and events beyond 2 and 3 a battle, cards set aside, each seat's
    cards, and from battle `key_from` on (>= 0) the least key of the positions met and of their
    mirrors. Returns (ENDED, CAPPED or CYCLE, the period found)."""
    cap = ring.shape[0] // 2
    mask = cap - 1
    _deal_as(ring, mask, cap, deal, half, extra)
    h0 = h1 = 0
    n0 = half
    n1 = half + extra
    battles = wars = war_battles = deepest = first_war = wins0 = wins1 = laid = events = aside = 0
    least = mirror_least = np.uint64(0xFFFFFFFFFFFFFFFF)
    sh0 = sh1 = sn0 = 0
    power = 1
    lam = 0
    status = CAPPED
    watch = 4 * half if detect else stop  # Brent's check from here on: most games have ended by then
    while battles < stop:
        if battles >= watch:
            if battles > watch and n0 == sn0 and _same(ring, mask, cap, h0, h1, n0, n1, snap, sh0, sh1):
                status = CYCLE
                break
            if power == lam or battles == watch:
                for i in range(n0):
                    snap[(h0 + i) & mask] = ring[(h0 + i) & mask]
                for i in range(n1):
                    snap[cap + ((h1 + i) & mask)] = ring[cap + ((h1 + i) & mask)]
                sh0, sh1, sn0 = h0, h1, n0
                power *= 2
                lam = 0
        if 0 <= key_from <= battles:
            key, mirror = _position_keys(ring, mask, cap, h0, h1, n0, n1)
            least = min(least, key)
            mirror_least = min(mirror_least, mirror)
        h0, h1, n0, n1, winner, depth, more_laid, more_events, set_aside = _battle(ring, mask, cap, h0, h1, n0, n1,
                                                                                   pickup, table)
        battles += 1
        lam += 1
        if depth:
            wars += depth
            war_battles += 1
            deepest = max(deepest, depth)
            if battles == 1:
                first_war = 1
            if winner == 0:
                wins0 += 1
            elif winner == 1:
                wins1 += 1
            laid += more_laid
            events += more_events
            aside += set_aside
        if n0 == 0 or n1 == 0:
            status = ENDED
            break
    out[0], out[1], out[2], out[3], out[4] = battles, wars, war_battles, deepest, first_war
    out[5], out[6], out[7], out[8], out[9] = wins0, wins1, laid, events, aside
    out[10], out[11] = n0, n1
    out[12], out[13] = np.int64(least), np.int64(mirror_least)
    return status, lam


@njit(cache=True, _nrt=False)
def _first_repeat(deal, half, extra, pickup, period, ring, snap, table):
    """μ: the first battle count whose position comes back `period` battles later, from two
    copies of the game `period` battles apart played in step."""
    cap = ring.shape[0] // 2
    mask = cap - 1
    _deal_as(ring, mask, cap, deal, half, extra)
    _deal_as(snap, mask, cap, deal, half, extra)
    h0 = h1 = s0 = s1 = 0
    n0 = m0 = half
    n1 = m1 = half + extra
    for _ in range(period):
        h0, h1, n0, n1, _w, _d, _l, _e, _a = _battle(ring, mask, cap, h0, h1, n0, n1, pickup, table)
    mu = 0
    while not (n0 == m0 and _same(ring, mask, cap, h0, h1, n0, n1, snap, s0, s1)):
        h0, h1, n0, n1, _w, _d, _l, _e, _a = _battle(ring, mask, cap, h0, h1, n0, n1, pickup, table)
        s0, s1, m0, m1, _w, _d, _l, _e, _a = _battle(snap, mask, cap, s0, s1, m0, m1, pickup, table)
        mu += 1
    return mu


@njit(cache=True, _nrt=False)
def _game(deal, half, extra, aside, pickup, max_battles, ring, snap, table, out, g, summaries, wins, final):
    """One game of the deal (its ranks, seat 0 dealt `half`, seat 1 `half + extra` as _deal_as
    deals them; the last `aside` are set aside), into its summaries row
    (layout.SUMMARY_COLUMNS), war wins and final cards, as the table family's engine gives them.
    Returns the key of the mirrored cycle (the seats' piles swapped), for a cycle."""
    status, period = _play(deal, half, extra, pickup, max_battles, True, -1, ring, snap, table, out)
    outcome = OUTCOME_WIN
    cycle_length = -1
    mu = -1  # the battle the cycle starts at, once found
    if status == CAPPED:
        again, period = _play(deal, half, extra, pickup, 4 * max_battles + 4 * half, True, -1, ring, snap, table,
                              out[16:])
        if again == CYCLE:
            mu = _first_repeat(deal, half, extra, pickup, period, ring, snap, table)
            if mu + period < max_battles:
                status = CYCLE
        if status == CAPPED:  # `out` holds the game at its cap
            outcome = OUTCOME_CAPPED
    if status == CYCLE:
        if mu < 0:
            mu = _first_repeat(deal, half, extra, pickup, period, ring, snap, table)
        _play(deal, half, extra, pickup, mu + period, False, mu, ring, snap, table, out)
        outcome = OUTCOME_CYCLE
        cycle_length = period
    battles = out[0]
    n0, n1 = out[10], out[11]
    winner = -1
    events = 2 + (aside > 0) + 3 * battles + out[8] + 1  # the deal, the battles, the end
    if status == ENDED:
        events += (n0 == 0) + (n1 == 0)  # out
        if n0 > 0:
            winner = 0
        elif n1 > 0:
            winner = 1
        else:
            outcome = OUTCOME_DRAW
    summary = summaries[g]
    summary[SUMMARY_OUTCOME] = outcome
    summary[SUMMARY_WINNER] = winner
    summary[SUMMARY_BATTLES] = battles
    summary[SUMMARY_WARS] = out[1]
    summary[SUMMARY_WAR_BATTLES] = out[2]
    summary[SUMMARY_MAX_WAR_DEPTH] = out[3]
    summary[SUMMARY_FIRST_BATTLE_WAR] = out[4]
    summary[SUMMARY_CARDS_SET_ASIDE] = aside + out[9]
    summary[SUMMARY_CYCLE_LENGTH] = cycle_length
    summary[SUMMARY_EVENTS] = events
    summary[SUMMARY_CARDS_LAID] = 2 * battles + out[7]
    summary[SUMMARY_CYCLE_KEY] = out[12] if outcome == OUTCOME_CYCLE else 0
    wins[g, 0], wins[g, 1] = out[5], out[6]
    final[g, 0], final[g, 1] = n0, n1
    return out[13]


# ---------------------------------------------------------------- ranges of games

@njit(cache=True)
def _enumerated(counts, start, games, size, extra, pickup, max_battles, master_seed, summaries, wins, final, seeds,
                mirror_keys):
    """Deals start..start+games-1 of the deck's enumeration (model.all_deals), each played (with
    `extra`, every card dealt: _deal_as)."""
    seq = np.empty(size, np.int64)
    deal = np.empty(size, np.uint8)
    half = size // 2
    ring = np.zeros(2 * _ring_cap(size), np.uint8)
    snap = np.zeros_like(ring)
    table = np.empty(size + 2, np.uint8)
    out = np.zeros(32, np.int64)
    _unrank(counts, start, seq)
    for g in range(games):
        if g:
            _next_sequence(seq)
        for i in range(size):
            deal[i] = seq[i]
        mirror_keys[g] = _game(deal, half, extra, size - 2 * half - extra, pickup, max_battles, ring, snap, table,
                               out, g, summaries, wins, final)
        seeds[g] = _game_seed(master_seed, np.uint64(start + g))


@njit(cache=True)
def _ring_cap(size):
    cap = 1
    while cap < size:
        cap *= 2
    return cap


@njit(cache=True)
def _shuffled(card_rank, start, games, extra, pickup, max_battles, master_seed, summaries, wins, final, seeds):
    """Games start.. of master seed `master_seed`, each deck shuffled from its seed (docs/rules.md,
    Randomness) and read as ranks (with `extra`, every card dealt: _deal_as)."""
    size = card_rank.shape[0]
    half = size // 2
    codes = np.empty(size, np.int64)
    deal = np.empty(size, np.uint8)
    rng = np.zeros(4, np.uint64)
    ring = np.zeros(2 * _ring_cap(size), np.uint8)
    snap = np.zeros_like(ring)
    table = np.empty(size + 2, np.uint8)
    out = np.zeros(32, np.int64)
    for g in range(games):
        seed = _game_seed(master_seed, np.uint64(start + g))
        _seed(rng, seed)
        for i in range(size):
            codes[i] = i
        _shuffle(rng, codes, size)
        for i in range(size):
            deal[i] = card_rank[codes[i]]
        _game(deal, half, extra, size - 2 * half - extra, pickup, max_battles, ring, snap, table, out, g, summaries,
              wins, final)
        seeds[g] = seed


# ---------------------------------------------------------------- from Python

def _results(games: int):
    return (np.zeros((games, len(SUMMARY_COLUMNS)), np.int64), np.zeros((games, 2), np.int32),
            np.zeros((games, 2), np.int32), np.zeros(games, np.uint64), np.zeros(games, np.int64))


def play_arrays(rules: RuleSet, seed: int, start: int, stop: int, enumerated: bool = False):
    """The games start..stop-1 of master seed `seed` (deals start.. of the deck's enumeration
    with `enumerated`, else shuffled from each game's seed) as the compiled engines' arrays
    (layout.GameArrays) without events, and the keys of their mirrored cycles."""
    from ...model.all_deals import deal_count, rank_counts
    from ...model.deal import deck_of
    from ..compiled.layout import GameArrays

    games = max(stop - start, 0)
    summaries, wins, final, seeds, mirror_keys = _results(games)
    pickup = PICKUPS_CODE[rules.pickup]
    extra = np.int64(extra_card(rules))
    if games and enumerated:
        if deal_count(rules) >= MOST_DEALS:  # past what generate enumerates (check_enumerable) by far
            raise ValueError(f"the open duel numbers deals in 64 bits: {deal_count(rules)} deals are too many")
        counts = np.array(rank_counts(rules), np.int64)
        _enumerated(counts, np.int64(start), np.int64(games), np.int64(int(counts.sum())), extra, np.int64(pickup),
                    np.int64(rules.max_battles), np.uint64(seed), summaries, wins, final, seeds, mirror_keys)
    elif games:
        card_rank = np.array(deck_of(rules).rank, np.int64)
        _shuffled(card_rank, np.int64(start), np.int64(games), extra, np.int64(pickup), np.int64(rules.max_battles),
                  np.uint64(seed), summaries, wins, final, seeds)
    arrays = GameArrays(np.zeros((0, 7), np.int32), np.zeros(0, np.int16), np.zeros(0, np.int8), summaries, wins,
                        final, seeds)
    return arrays, mirror_keys
