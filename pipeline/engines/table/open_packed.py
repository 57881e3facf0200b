"""Every deal of a deck of distinct ranks (one suit) counted on positions packed in one word: the
counting path of open_counts for the decks whose games never tie, where the open-play engine's
rings, its three replays of a cycling game and its hash of every position of a cycle cost more
than the game.

With no two cards of a rank there is no war: a battle takes both top cards and puts them under
the winner's pile, high then low (seat 0's first under table order). A pile of at most 15 cards
of ranks below 16 is a word of 4-bit cards (top in the low bits), and a position is one word: seat
0's cards, then seat 1's, then seat 0's card count in the top 4 bits. The game is played once,
each position's word kept: a cycle is found by comparing each word with two checkpoints (a
variant of Brent's check, _game_words), its first repeated position μ + λ by comparing the kept
words λ apart (no replay), and the cycle named by its least word, exact and free. While a range of deals is counted (count_rows), a cycling game's row holds
that word where the counts hold the cycle's key (the least of its positions' keys,
engines.cycle_key.position_key); each cycle is then hashed once, going round it from its least
word, into a cache the worker keeps from range to range, and the rows are keyed as open_duel's,
sorted once. A game that reaches its cap is played on to four times it, as open_duel._game
does, to tell a cycle that repeats before the cap from a capped game.
"""

from __future__ import annotations

import mmap
from math import factorial

import numpy as np

from ..compiled.jit import njit
from ..compiled.layout import (
    OUTCOME_CAPPED, OUTCOME_CYCLE, OUTCOME_WIN, PICKUP_TABLE_ORDER, SUMMARY_BATTLES, SUMMARY_CARDS_LAID, SUMMARY_COLUMNS,
    SUMMARY_CYCLE_KEY, SUMMARY_CYCLE_LENGTH, SUMMARY_OUTCOME, SUMMARY_WINNER,
)
from ..compiled.deals import _next_sequence
from ..compiled.rng import HASH_START, _fold, _mix
from ..compiled.tally import _prefetch, from_rows, pack
from ..compiled.tally import rows as rows_of

MOST_CARDS = 15   # a position's cards (4 bits each) and seat 0's count (4 bits) in 64 bits
MOST_RANK = 15    # a card is 4 bits
MOST_CAP = 1 << 20  # battles: a game's words are kept, 4 times its cap
_SPREAD = np.uint64(0x9E3779B97F4A7C15)
_FOUR = np.uint64(4)
_CARD = np.uint64(15)


def packs(rank_counts, cards: int, max_battles: int = 0) -> bool:
    """Whether a deck's deals are counted here: every rank once (no tie, no war), at most
    MOST_CARDS cards in play, ranks that fit 4 bits and a cap whose games' words fit memory."""
    return (all(c == 1 for c in rank_counts) and len(rank_counts) - 1 <= MOST_RANK and cards <= MOST_CARDS
            and max_battles <= MOST_CAP)


SPACING = 32      # battles between a game's first checkpoints (packed_game)
STEADY = 4        # checkpoints that far apart before the spacing doubles at each


def history_for(max_battles: int, half: int) -> np.ndarray:
    """Room for the words of a game played to four times its cap (packed_game), and for the
    steady checkpoints' battles beyond."""
    return np.zeros(_history_words(max_battles, half), np.uint64)


@njit(cache=True, inline="always", _nrt=False)
def _history_words(max_battles, half):
    return 4 * max_battles + 4 * half + 2 + 2 * STEADY * SPACING


@njit(cache=True, inline="always", _nrt=False)
def _word(p0, p1, n0):
    return p0 | (p1 << (_FOUR * np.uint64(n0))) | (np.uint64(n0) << np.uint64(60))


@njit(cache=True, inline="always", _nrt=False)
def _mirrored(word, cards):
    """The word of the position with the seats' piles swapped."""
    n0 = word >> np.uint64(60)
    n1 = np.uint64(cards) - n0
    p0 = word & ((np.uint64(1) << (_FOUR * n0)) - np.uint64(1))
    p1 = (word >> (_FOUR * n0)) & ((np.uint64(1) << (_FOUR * n1)) - np.uint64(1))
    return p1 | (p0 << (_FOUR * n1)) | (n1 << np.uint64(60))


@njit(cache=True, _nrt=False)
def packed_keys(word, cards):
    """The position's key and its mirror's (open_duel._position_keys), from its word."""
    n0 = np.int64(word >> np.uint64(60))
    n1 = cards - n0
    key = _fold(HASH_START, n0)
    for i in range(cards):
        if i == n0:
            key = _fold(key, n1)
        key = _fold(key, ((word >> (_FOUR * np.uint64(i))) & _CARD) + np.uint64(1))
    if n0 == cards:
        key = _fold(key, n1)
    mirror = _fold(HASH_START, n1)
    for i in range(n0, cards):
        mirror = _fold(mirror, ((word >> (_FOUR * np.uint64(i))) & _CARD) + np.uint64(1))
    mirror = _fold(mirror, n0)
    for i in range(n0):
        mirror = _fold(mirror, ((word >> (_FOUR * np.uint64(i))) & _CARD) + np.uint64(1))
    return _mix(key), _mix(mirror)


@njit(cache=True, inline="always", _nrt=False)
def _battle(p0, p1, n0, n1, pickup):
    """One battle on the piles' words: the higher top card takes both, under its pile (a version
    without a branch on the winner measured slower: the compiler makes this one branch-free)."""
    a = p0 & _CARD
    b = p1 & _CARD
    p0 >>= _FOUR
    p1 >>= _FOUR
    n0 -= 1
    n1 -= 1
    if pickup == PICKUP_TABLE_ORDER:
        first, second = a, b
    else:
        first, second = max(a, b), min(a, b)
    if a > b:
        p0 |= (first << (_FOUR * np.uint64(n0))) | (second << (_FOUR * np.uint64(n0 + 1)))
        n0 += 2
    else:
        p1 |= (first << (_FOUR * np.uint64(n1))) | (second << (_FOUR * np.uint64(n1 + 1)))
        n1 += 2
    return p0, p1, n0, n1


@njit(cache=True, inline="always", _nrt=False)
def _key(p0, p1, n0, n1):
    """The position's key (open_duel._position_keys's first), from its piles' words."""
    key = _fold(HASH_START, n0)
    for i in range(n0):
        key = _fold(key, ((p0 >> (_FOUR * np.uint64(i))) & _CARD) + np.uint64(1))
    key = _fold(key, n1)
    for i in range(n1):
        key = _fold(key, ((p1 >> (_FOUR * np.uint64(i))) & _CARD) + np.uint64(1))
    return _mix(key)


@njit(cache=True, _nrt=False)
def cycle_key_of(word, cards, pickup):
    """The key of the cycle through the position `word` (the least of its positions' keys), going
    round it once."""
    n0 = np.int64(word >> np.uint64(60))
    n1 = cards - n0
    p0 = word & ((np.uint64(1) << (_FOUR * np.uint64(n0))) - np.uint64(1))
    p1 = (word >> (_FOUR * np.uint64(n0))) & ((np.uint64(1) << (_FOUR * np.uint64(n1))) - np.uint64(1))
    least = np.uint64(0xFFFFFFFFFFFFFFFF)
    while True:
        least = min(least, _key(p0, p1, n0, n1))
        p0, p1, n0, n1 = _battle(p0, p1, n0, n1, pickup)
        if _word(p0, p1, n0) == word:
            return np.int64(least)


MEMO_AT = 7   # the battle at which a game asks the memo (memo_for) what becomes of its position: a
# 6 | 7 or 7 | 7 deal has played every card it was dealt by then, and deals that differ only in
# how the pairs won by each seat interleave stand on one position (at 12: as many found, 5 battles later)
MEMO_SLOTS = 1 << 20  # a worker's memo: positions, 32 bytes each


def memo_for(slots: int = MEMO_SLOTS) -> tuple[np.ndarray, int]:
    """An empty memo of what becomes of positions (packed_game's `memo`, each row: the position's
    word (0: empty), its fate, its cycle's least word and its mirror's), and its shift."""
    return zeroed(4 * slots).view(np.uint64).reshape(slots, 4), 64 - (slots.bit_length() - 1)


@njit(cache=True, inline="always", _nrt=False)
def _ended(summary, winner, battles, max_battles):
    """A game that ends after `battles`, won by `winner`, into `summary` (capped past the cap)."""
    if battles > max_battles:
        _capped(summary, max_battles)
        return
    summary[SUMMARY_OUTCOME] = OUTCOME_WIN
    summary[SUMMARY_WINNER] = winner
    summary[SUMMARY_BATTLES] = battles
    summary[SUMMARY_CARDS_LAID] = 2 * battles
    summary[SUMMARY_CYCLE_LENGTH] = -1
    summary[SUMMARY_CYCLE_KEY] = 0


@njit(cache=True, inline="always", _nrt=False)
def _cycled(summary, repeat, period, least, max_battles):
    """A game whose first repeated position is the `repeat`th, `period` after its first visit,
    into `summary` (capped when it repeats at or past the cap)."""
    if repeat >= max_battles:
        _capped(summary, max_battles)
        return
    summary[SUMMARY_OUTCOME] = OUTCOME_CYCLE
    summary[SUMMARY_WINNER] = -1
    summary[SUMMARY_BATTLES] = repeat
    summary[SUMMARY_CARDS_LAID] = 2 * repeat
    summary[SUMMARY_CYCLE_LENGTH] = period
    summary[SUMMARY_CYCLE_KEY] = np.int64(least)


@njit(cache=True, inline="always", _nrt=False)
def _capped(summary, max_battles):
    summary[SUMMARY_OUTCOME] = OUTCOME_CAPPED
    summary[SUMMARY_WINNER] = -1
    summary[SUMMARY_BATTLES] = max_battles
    summary[SUMMARY_CARDS_LAID] = 2 * max_battles
    summary[SUMMARY_CYCLE_LENGTH] = -1
    summary[SUMMARY_CYCLE_KEY] = 0


_CYCLE_FATE = np.uint64(1)
_FATE_SHIFT = np.uint64(2)
_PERIOD_SHIFT = np.uint64(32)
_FATE_MASK = np.uint64(0x3FFFFFFF)


@njit(cache=True, _nrt=False)
def packed_game(deal, half, extra, pickup, max_battles, history, hashed, mirrored, summary, memo, memo_shift):
    """One game of the deal (dealt as open_duel._deal_as deals it) into `summary`'s outcome,
    winner, battles, cards laid, cycle length and key (layout.SUMMARY_COLUMNS), as open_duel._game
    gives them, but for a cycle's key: its least word, or with `hashed` its key. Returns, for a
    cycle and `mirrored`, the mirrored cycle's least word (its key with `hashed`), else 0.
    `history` holds history_for's words.

    `memo` (memo_for's; no rows: none) is what becomes of positions met at battle MEMO_AT by the
    games played before: neighbouring deals meet (at battle 7 of 1x13 6 | 7, 3.8 million live
    games of 4 million stand on 0.9 million positions), and a game whose position is there is over, its
    battles and cycle those of its position plus MEMO_AT. A position's fate is its own (the
    battles to its end and its winner, or to its cycle and the cycle), whatever game reached it,
    so the counts are those of every game played whole; a position already on its cycle is not
    kept (its game's first repeat may lie before it). Not with `hashed`."""
    p0 = np.uint64(0)
    p1 = np.uint64(0)
    n0 = half
    n1 = half + extra
    if extra == 0:
        for i in range(half):
            p0 |= np.uint64(deal[2 * i]) << (_FOUR * np.uint64(i))
            p1 |= np.uint64(deal[2 * i + 1]) << (_FOUR * np.uint64(i))
    else:
        for i in range(half):
            p0 |= np.uint64(deal[2 * i + 1]) << (_FOUR * np.uint64(i))
            p1 |= np.uint64(deal[2 * i]) << (_FOUR * np.uint64(i))
        p1 |= np.uint64(deal[2 * half]) << (_FOUR * np.uint64(half))
    cards = n0 + n1
    history[0] = _word(p0, p1, n0)
    older = newer = history[0]  # the checkpoints' words, each compared with every word after it
    older_at = newer_at = 0     # and their battles
    spacing = SPACING
    left = SPACING
    steady = STEADY
    battles = 0
    stop = history.shape[0] - 1
    asked = MEMO_AT if memo.shape[0] and not hashed else -1
    slot = -1  # the memo's slot of the position at battle MEMO_AT, to keep its fate in
    while battles < stop:
        p0, p1, n0, n1 = _battle(p0, p1, n0, n1, pickup)
        battles += 1
        if n0 == 0 or n1 == 0:
            if battles > max_battles:
                break  # capped before it ended
            winner = 0 if n0 > 0 else 1
            if slot >= 0:
                memo[slot, 0] = history[MEMO_AT]
                memo[slot, 1] = np.uint64(2 * winner) | (np.uint64(battles - MEMO_AT) << _FATE_SHIFT)
            _ended(summary, winner, battles, max_battles)
            return np.int64(0)
        word = _word(p0, p1, n0)
        history[battles] = word
        if battles == asked:
            slot = np.int64((word * _SPREAD) >> np.uint64(memo_shift))
            if memo[slot, 0] == word:
                fate = memo[slot, 1]
                ahead = np.int64((fate >> _FATE_SHIFT) & _FATE_MASK)
                if fate & _CYCLE_FATE:
                    period = np.int64(fate >> _PERIOD_SHIFT)
                    _cycled(summary, battles + ahead + period, period, memo[slot, 2], max_battles)
                    return np.int64(memo[slot, 3]) if mirrored and summary[SUMMARY_OUTCOME] == OUTCOME_CYCLE \
                        else np.int64(0)
                _ended(summary, np.int64((fate >> np.uint64(1)) & np.uint64(1)), battles + ahead, max_battles)
                return np.int64(0)
        if word == older or word == newer:
            # a checkpoint is compared with every word after it, so its first repeat is λ on
            period = battles - (older_at if word == older else newer_at)
            mu = 0
            while history[mu] != history[mu + period]:
                mu += 1
            if mu + period >= max_battles:
                break  # it repeats at or past the cap: capped
            least = mirror = np.uint64(0xFFFFFFFFFFFFFFFF)
            if hashed:
                for s in range(mu, mu + period):
                    k, m = packed_keys(history[s], cards)
                    least = min(least, k)
                    mirror = min(mirror, m)
            else:
                for s in range(mu, mu + period):
                    least = min(least, history[s])
                if mirrored:
                    for s in range(mu, mu + period):
                        mirror = min(mirror, _mirrored(history[s], cards))
            if slot >= 0 and mu > MEMO_AT:  # not yet on its cycle at battle MEMO_AT
                memo[slot, 0] = history[MEMO_AT]
                memo[slot, 1] = _CYCLE_FATE | (np.uint64(mu - MEMO_AT) << _FATE_SHIFT) | \
                    (np.uint64(period) << _PERIOD_SHIFT)
                memo[slot, 2] = least
                memo[slot, 3] = mirror
            _cycled(summary, mu + period, period, least, max_battles)
            return np.int64(mirror) if mirrored or hashed else np.int64(0)
        left -= 1
        if left == 0:
            older, older_at, newer, newer_at = newer, newer_at, word, battles
            if steady:
                steady -= 1
            else:
                spacing *= 2
            left = spacing
    _capped(summary, max_battles)
    return np.int64(0)


# Counting a range on packed positions: a table of its own whose rows are one cache line apiece
# (the tally's keys, counts and first deals are three arrays: three misses a deal on a table of
# hundreds of megabytes), its cycles named from a cache a worker keeps from shard to shard, its
# rows sorted once, by kind then key.

ROW_WORDS = 4  # a row of count_rows's table: kind (kind_of), cycle word, games, first deal
_K0 = np.uint64(0x9E3779B97F4A7C15)
_K1 = np.uint64(0xC2B2AE3D27D4EB4F)
FIRST_ROWS = 1 << 12
MOST_FIRST_ROWS = 1 << 22  # a range's table starts at most this large (it grows when half full)
MOST_CACHED = 1 << 24      # slots of a worker's cycle cache: past them it starts again
GROUP_SLOTS = 1 << 16      # slots for the kinds a sort by kind counts (past half: numpy's lexsort)


def row_table(slots: int) -> np.ndarray:
    """A table of `slots` rows of ROW_WORDS words (zero: empty), each row within one 64-byte
    cache line."""
    return zeroed(slots * ROW_WORDS).reshape(slots, ROW_WORDS)


HUGE_PAGE = 1 << 21


def zeroed(words: int) -> np.ndarray:
    """`words` zero int64s from 64 bytes on; from 2 MB up, on memory asked to be mapped in huge
    pages where the system maps them on request (Linux's transparent huge pages, `madvise`): a
    table of hundreds of megabytes read at random costs a page-table walk a read in 4 KB pages,
    more under a virtual machine's nested tables."""
    size = 8 * words
    if size < HUGE_PAGE or not hasattr(mmap, "MADV_HUGEPAGE"):
        buf = np.zeros(words + 8, np.int64)
        skip = (-buf.ctypes.data % 64) // 8
        return buf[skip:skip + words]
    memory = mmap.mmap(-1, size + HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        memory.madvise(mmap.MADV_HUGEPAGE)
    except OSError:
        pass  # not offered: 4 KB pages
    buf = np.frombuffer(memory, np.int64)
    skip = (-buf.ctypes.data % HUGE_PAGE) // 8
    return buf[skip:skip + words]


@njit(cache=True, inline="always", _nrt=False)
def kind_of(w0, length):
    """A row's kind in one word: the tally's first word (tally.pack: outcome, winner, first of
    class, battles < 2^22) and the cycle length + 1 above it; the cards laid are twice the
    battles (no wars)."""
    return w0 | ((length + 1) << 32)


@njit(cache=True, inline="always", _nrt=False)
def _row_home(rows, kind, word):
    """The slot where a row's search starts."""
    h = (np.uint64(kind) * _K0) ^ (np.uint64(word) * _K1)
    return np.int64((h ^ (h >> np.uint64(29))) & np.uint64(rows.shape[0] - 1))


@njit(cache=True, inline="always", _nrt=False)
def _row_slot(rows, kind, word):
    mask = rows.shape[0] - 1
    slot = _row_home(rows, kind, word)
    while rows[slot, 2] != 0:
        if rows[slot, 0] == kind and rows[slot, 1] == word:
            return slot
        slot = (slot + 1) & mask
    return slot


@njit(cache=True, inline="always", _nrt=False)
def _row_put(rows, fill, slot, kind, word, count, deal):
    if rows[slot, 2] == 0:
        rows[slot, 0] = kind
        rows[slot, 1] = word
        rows[slot, 2] = count
        rows[slot, 3] = deal
        fill[0] += 1
    else:
        rows[slot, 2] += count
        if deal < rows[slot, 3]:
            rows[slot, 3] = deal


@njit(cache=True, _nrt=False)
def _rows_into(rows, bigger, fill):
    for slot in range(rows.shape[0]):
        if rows[slot, 2]:
            r = rows[slot]
            _row_put(bigger, fill, _row_slot(bigger, r[0], r[1]), r[0], r[1], r[2], r[3])


def _grown_rows(rows: np.ndarray, fill: np.ndarray) -> np.ndarray:
    bigger = row_table(2 * rows.shape[0])
    fill[0] = 0
    _rows_into(rows, bigger, fill)
    return bigger



@njit(cache=True)
def _count_walk(counts, seq, index, stop, extra, pickup, max_battles, classes, rows, fill, memo, memo_shift):
    """Deals index..stop-1 (`seq` holds deal `index`'s ranks, and is left holding the first deal
    not walked) into `rows`, as open_counts._walk tallies them (a cycling row keyed by its
    cycle's least word); returns the first deal not walked: `stop`, or sooner when the table
    must grow first. A deal's rows (its own, and its swapped deal's where that is counted with it)
    are asked of memory (_prefetch) when its game ends and added when the next game ends: a table
    of hundreds of megabytes misses the cache nearly every deal, and the wait is then spent
    playing (rows add alike in any order, each keeping its least deal)."""
    size = seq.shape[0]
    half = size // 2
    deal = np.empty(size, np.uint8)
    summary = np.zeros(len(SUMMARY_COLUMNS), np.int64)
    history = np.zeros(_history_words(max_battles, half), np.uint64)  # history_for
    pending = 0  # rows asked for, to add (kind, word, deal): the deal's, then its swapped deal's
    pending_kind = np.zeros(2, np.int64)
    pending_word = np.zeros(2, np.int64)
    pending_deal = np.zeros(2, np.int64)
    while index < stop:
        if 2 * (fill[0] + 4) > rows.shape[0]:
            break
        own = True  # its own swap
        first_of_class = True
        for k in range(0, 2 * half * (1 - extra), 2):
            if seq[k] != seq[k + 1]:
                own = False
                first_of_class = seq[k] < seq[k + 1]
                break
        if first_of_class or not classes:
            for i in range(size):
                deal[i] = seq[i]
            mirror_word = packed_game(deal, half, extra, pickup, max_battles, history, False, classes, summary, memo,
                                      memo_shift)
            outcome, winner, battles = summary[SUMMARY_OUTCOME], summary[SUMMARY_WINNER], summary[SUMMARY_BATTLES]
            length = summary[SUMMARY_CYCLE_LENGTH]
            cycling = outcome == OUTCOME_CYCLE
            for p in range(pending):
                _row_put(rows, fill, _row_slot(rows, pending_kind[p], pending_word[p]), pending_kind[p],
                         pending_word[p], 1, pending_deal[p])
            word = summary[SUMMARY_CYCLE_KEY] if cycling else 0
            kind = kind_of(pack(outcome, winner, np.int64(first_of_class), battles), length)
            _prefetch(rows, _row_home(rows, kind, word) * ROW_WORDS)
            pending_kind[0], pending_word[0], pending_deal[0] = kind, word, index
            pending = 1
            if classes and not own:
                swapped = 1 - winner if winner >= 0 else winner
                word = mirror_word if cycling else 0
                kind = kind_of(pack(outcome, swapped, 0, battles), length)
                _prefetch(rows, _row_home(rows, kind, word) * ROW_WORDS)
                pending_kind[1], pending_word[1], pending_deal[1] = kind, word, swapped_number(seq, half)
                pending = 2
        index += 1
        if index < stop:
            _next_sequence(seq)
    for p in range(pending):
        _row_put(rows, fill, _row_slot(rows, pending_kind[p], pending_word[p]), pending_kind[p], pending_word[p], 1,
                 pending_deal[p])
    return index


_BELOW = np.array([(1 << r) - 1 for r in range(64)], np.uint64)  # the ranks below r, as bits
_FACTORIALS = np.array([factorial(n) for n in range(MOST_RANK + 2)], np.int64)  # up to MOST_RANK + 1 cards


@njit(cache=True, inline="always", _nrt=False)
def _ones(bits):
    """The bits set in a word (its population count)."""
    bits = bits - ((bits >> np.uint64(1)) & np.uint64(0x5555555555555555))
    bits = (bits & np.uint64(0x3333333333333333)) + ((bits >> np.uint64(2)) & np.uint64(0x3333333333333333))
    bits = (bits + (bits >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((bits * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always", _nrt=False)
def swapped_number(seq, half):
    """The number of the deal `seq` with the seats' piles swapped (deals.swapped_index's), for a
    deck of distinct ranks: the swapped sequence's Lehmer code (each card's count of the unused
    ranks below it) weighed by factorials, where swapped_index's multinomial walk divides about
    fifty times (most of a 7 | 7 deal's count: every class's first deal asks it)."""
    n = seq.shape[0]
    unused = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    number = np.int64(0)
    for i in range(n):
        if i < 2 * half:
            card = seq[i + 1] if i % 2 == 0 else seq[i - 1]
        else:
            card = seq[i]
        number += _ones(unused & _BELOW[card]) * _FACTORIALS[n - 1 - i]
        unused &= ~(np.uint64(1) << np.uint64(card))
    return number


@njit(cache=True, _nrt=False)
def _used_rows(rows, kinds, words, games, first):
    n = 0
    for slot in range(rows.shape[0]):
        if rows[slot, 2]:
            kinds[n] = rows[slot, 0]
            words[n] = rows[slot, 1]
            games[n] = rows[slot, 2]
            first[n] = rows[slot, 3]
            n += 1
    return n


@njit(cache=True, inline="always", _nrt=False)
def _cached_slot(cached, word):
    mask = cached.shape[0] - 1
    h = np.uint64(word) * _K0
    slot = np.int64((h ^ (h >> np.uint64(31))) & np.uint64(mask))
    while cached[slot, 0] != 0 and cached[slot, 0] != word:
        slot = (slot + 1) & mask
    return slot


@njit(cache=True, _nrt=False)
def _name(kinds, words, at, cycling, cards, pickup, cached, fill):
    """Rows at.. : each cycling row's least word replaced by its cycle's key, from the cache or
    going round the cycle once (then cached). Returns the first row not named: all of them, or
    sooner when the cache is half full."""
    for i in range(at, kinds.shape[0]):
        if kinds[i] % 4 != cycling:
            continue
        slot = _cached_slot(cached, words[i])
        if cached[slot, 0] == 0:
            if 2 * (fill[0] + 1) > cached.shape[0]:
                return i
            cached[slot, 0] = words[i]
            cached[slot, 1] = cycle_key_of(np.uint64(words[i]), cards, pickup)
            fill[0] += 1
        words[i] = cached[slot, 1]
    return kinds.shape[0]


_MEMOS: dict = {}   # (cards, pickup, classes): a worker's memo (memo_for), kept from range to range
_CYCLES: dict = {}  # (cards, pickup): (the cache [slots, 2]: least word (0: empty), key; its fill)


def _named(kinds: np.ndarray, words: np.ndarray, cards: int, pickup: int, cycling: int) -> None:
    """Each cycling row's least word replaced by its cycle's key, in place. The cycles a worker
    has met are cached: 1x13's 16.8 million deals a shard meet about 600,000 cycles, nearly all
    met by the shard before."""
    cached, fill = _CYCLES.get((cards, pickup), (None, None))
    if cached is None:
        cached, fill = _cache(FIRST_ROWS)
    at = 0
    while True:
        at = _name(kinds, words, at, np.int64(cycling), np.int64(cards), np.int64(pickup), cached, fill)
        if at == kinds.shape[0]:
            break
        if 2 * cached.shape[0] > MOST_CACHED:
            cached, fill = _cache(FIRST_ROWS)
            continue
        bigger, more = _cache(2 * cached.shape[0])
        _recached(cached, bigger, more)
        cached, fill = bigger, more
    _CYCLES[(cards, pickup)] = (cached, fill)


def _cache(slots: int):
    return zeroed(2 * slots).reshape(slots, 2), np.zeros(1, np.int64)


@njit(cache=True, _nrt=False)
def _recached(cached, bigger, fill):
    for slot in range(cached.shape[0]):
        if cached[slot, 0]:
            to = _cached_slot(bigger, cached[slot, 0])
            bigger[to, 0] = cached[slot, 0]
            bigger[to, 1] = cached[slot, 1]
            fill[0] += 1


@njit(cache=True, inline="always", _nrt=False)
def _group_of(kind):
    """A kind as one word in the order of the tally's columns (outcome, winner, first of class,
    battles, then cards laid, twice the battles, and the cycle length)."""
    w0 = kind & 0xFFFFFFFF
    return ((w0 & 3) << 56) | (((w0 >> 2) & 63) << 48) | (((w0 >> 8) & 3) << 46) | ((w0 >> 10) << 22) | (kind >> 32)


@njit(cache=True)
def _sorted_rows(kinds, keys, games, first, out, out_games, out_first, room):
    """The rows in the tally's order (tally.rows'): by kind (_group_of), then key, by a count of
    the kinds and a sort of each kind's keys; rows of one kind and key (two cycles of one key)
    added up. Returns the rows written into `out` [rows, 7] (tally.KEY's columns), or -1 when
    the kinds are more than `room` / 2 (a power of 2)."""
    n = kinds.shape[0]
    groups = np.zeros(n, np.int64)
    table = np.full(room, -1, np.int64)
    distinct = np.zeros(room // 2, np.int64)
    found = 0
    mask = room - 1
    bits = np.uint64(64)
    r = room
    while r > 1:
        r //= 2
        bits -= np.uint64(1)
    for i in range(n):
        g = _group_of(kinds[i])
        groups[i] = g
        slot = np.int64((np.uint64(g) * _K0) >> bits) & mask
        while table[slot] >= 0 and distinct[table[slot]] != g:
            slot = (slot + 1) & mask
        if table[slot] < 0:
            if found == distinct.shape[0]:
                return -1
            table[slot] = found
            distinct[found] = g
            found += 1
    order = np.argsort(distinct[:found])
    rank = np.empty(found, np.int64)
    for r in range(found):
        rank[order[r]] = r
    starts = np.zeros(found + 1, np.int64)
    member = np.empty(n, np.int64)
    for i in range(n):
        slot = np.int64((np.uint64(groups[i]) * _K0) >> bits) & mask
        while distinct[table[slot]] != groups[i]:
            slot = (slot + 1) & mask
        member[i] = rank[table[slot]]
        starts[member[i] + 1] += 1
    for r in range(found):
        starts[r + 1] += starts[r]
    placed = starts[:found].copy()
    at = np.empty(n, np.int64)
    for i in range(n):
        at[placed[member[i]]] = i
        placed[member[i]] += 1
    rows = 0
    last_group = -1
    for r in range(found):
        block = at[starts[r]:starts[r + 1]]
        block = block[np.argsort(keys[block])]
        for i in block:
            if rows and r == last_group and keys[i] == out[rows - 1, 6]:
                out_games[rows - 1] += games[i]
                out_first[rows - 1] = min(out_first[rows - 1], first[i])
                continue
            last_group = r
            w0 = kinds[i] & 0xFFFFFFFF
            out[rows, 0] = w0 % 4
            out[rows, 1] = (w0 // 4) % 64 - 1
            out[rows, 2] = (w0 // 256) % 4 - 1
            out[rows, 3] = w0 // 1024
            out[rows, 4] = 2 * (w0 // 1024)
            out[rows, 5] = (kinds[i] >> 32) - 1
            out[rows, 6] = keys[i]
            out_games[rows] = games[i]
            out_first[rows] = first[i]
            rows += 1
    return rows


def count_rows(counts: np.ndarray, seq: np.ndarray, start: int, stop: int, extra: int, pickup: int, max_battles: int,
               classes: bool, cards: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tally of deals start..stop-1 (`seq` holds deal `start`'s ranks; `cards` in play) as
    tally.rows gives it: (keys [rows, 7] in KEY's columns, games, first deal), in the order of
    the keys, each cycle named by its key. One table, one naming, one sort."""
    slots = FIRST_ROWS
    while slots < min(MOST_FIRST_ROWS, stop - start):
        slots *= 2
    rows, fill = row_table(slots), np.zeros(1, np.int64)
    if (cards, pickup, classes) not in _MEMOS:
        _MEMOS[(cards, pickup, classes)] = memo_for()
    memo, shift = _MEMOS[(cards, pickup, classes)]
    index = start
    while index < stop:
        index = _count_walk(counts, seq, np.int64(index), np.int64(stop), np.int64(extra), np.int64(pickup),
                            np.int64(max_battles), classes, rows, fill, memo, np.int64(shift))
        if index < stop:
            rows = _grown_rows(rows, fill)
    n = int(fill[0])
    kinds, words, games, first = (np.empty(n, np.int64) for _ in range(4))
    _used_rows(rows, kinds, words, games, first)
    del rows
    _named(kinds, words, cards, pickup, OUTCOME_CYCLE)
    out, out_games, out_first = np.empty((n, 7), np.int64), np.empty(n, np.int64), np.empty(n, np.int64)
    done = _sorted_rows(kinds, words, games, first, out, out_games, out_first, np.int64(GROUP_SLOTS)) if n else 0
    if done < 0:  # kinds too many to count: numpy's sort, the tally's
        del out
        w0 = kinds & 0xFFFFFFFF
        keys = np.stack([w0 % 4, (w0 // 4) % 64 - 1, (w0 // 256) % 4 - 1, w0 // 1024, 2 * (w0 // 1024),
                         (kinds >> 32) - 1, words], axis=1)
        return rows_of(from_rows(keys, games, first))
    return out[:done], out_games[:done], out_first[:done]
