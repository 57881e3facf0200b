"""Every deal of a deck of distinct ranks (one suit) counted on positions packed in one word: the
counting path of open_counts for the decks whose games never tie, where the open-play engine's
rings, its three replays of a cycling game and its hash of every position of a cycle cost more
than the game.

With no two cards of a rank there is no war: a battle takes both top cards and puts them under
the winner's pile, high then low (seat 0's first under table order). A pile of at most 15 cards
of ranks below 16 is a word of 4-bit cards (top in the low bits), and a position is one word: seat
0's cards, then seat 1's, then seat 0's card count in the top 4 bits. The game is played once,
each position's word kept: a cycle is found by Brent's check on the words, its first repeated
position μ + λ by comparing the kept words λ apart (no replay), and the cycle by its least word,
under which a cache keeps its key and its mirror's (engines.cycle_key.position_key's least over
the cycle, open_duel._position_keys's), so each cycle's positions are hashed once a process. The
cache only saves work: a cycle it has no room for is hashed again, and the counts are the same
whatever it holds.

A game not decided before its cap (μ + λ or its end past `max_battles`) is left to
open_duel._game, which plays capped games as the table family's engine does.
"""

from __future__ import annotations

import numpy as np

from ..compiled.jit import njit
from ..compiled.layout import (
    OUTCOME_CYCLE, OUTCOME_WIN, PICKUP_TABLE_ORDER, SUMMARY_BATTLES, SUMMARY_CARDS_LAID, SUMMARY_CYCLE_KEY,
    SUMMARY_CYCLE_LENGTH, SUMMARY_OUTCOME, SUMMARY_WINNER,
)
from ..compiled.rng import HASH_START, _fold, _mix

MOST_CARDS = 15   # a position's cards (4 bits each) and seat 0's count (4 bits) in 64 bits
MOST_RANK = 15    # a card is 4 bits
CACHE_SLOTS = 1 << 20  # cycles whose keys a process keeps: 24 MiB
_SPREAD = np.uint64(0x9E3779B97F4A7C15)
_FOUR = np.uint64(4)
_CARD = np.uint64(15)


def packs(rank_counts, cards: int) -> bool:
    """Whether a deck's deals are counted here: every rank once (no tie, no war), at most
    MOST_CARDS cards in play and ranks that fit 4 bits."""
    return all(c == 1 for c in rank_counts) and len(rank_counts) - 1 <= MOST_RANK and cards <= MOST_CARDS


def new_cache(slots: int = CACHE_SLOTS):
    """An empty cache of cycle keys: (least words, [key, mirror key], rows in use)."""
    return np.zeros(slots, np.uint64), np.zeros((slots, 2), np.int64), np.zeros(1, np.int64)


@njit(cache=True, inline="always", _nrt=False)
def _word(p0, p1, n0):
    return p0 | (p1 << (_FOUR * np.uint64(n0))) | (np.uint64(n0) << np.uint64(60))


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


@njit(cache=True, _nrt=False)
def _cycle_keys(history, mu, period, cards, cache_words, cache_keys, cache_fill):
    """The least key of the cycle's positions (history[mu .. mu + period - 1]) and of their
    mirrors, from the cache when it holds the cycle (by its least word)."""
    least = history[mu]
    for s in range(mu + 1, mu + period):
        least = min(least, history[s])
    mask = cache_words.shape[0] - 1
    slot = np.int64(((least * _SPREAD) >> np.uint64(24)) & np.uint64(mask))
    while cache_words[slot] != 0:
        if cache_words[slot] == least:
            return cache_keys[slot, 0], cache_keys[slot, 1]
        slot = (slot + 1) & mask
    key = mirror = np.uint64(0xFFFFFFFFFFFFFFFF)
    for s in range(mu, mu + period):
        k, m = packed_keys(history[s], cards)
        key = min(key, k)
        mirror = min(mirror, m)
    if 2 * (cache_fill[0] + 1) <= cache_words.shape[0]:
        cache_words[slot] = least
        cache_keys[slot, 0] = np.int64(key)
        cache_keys[slot, 1] = np.int64(mirror)
        cache_fill[0] += 1
    return np.int64(key), np.int64(mirror)


@njit(cache=True, _nrt=False)
def packed_game(deal, half, extra, pickup, max_battles, history, cache_words, cache_keys, cache_fill, summary):
    """One game of the deal (dealt as open_duel._deal_as deals it) into `summary`'s outcome,
    winner, battles, cards laid, cycle length and key (layout.SUMMARY_COLUMNS), as open_duel._game
    gives them. Returns (whether it decided the game: False leaves it to _game, the mirrored
    cycle's key). `history` holds at least max_battles + 1 words."""
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
    saved = history[0]
    power = 1
    period = 0
    battles = 0
    while battles < max_battles:
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
        battles += 1
        if n0 == 0 or n1 == 0:
            summary[SUMMARY_OUTCOME] = OUTCOME_WIN
            summary[SUMMARY_WINNER] = 0 if n0 > 0 else 1
            summary[SUMMARY_BATTLES] = battles
            summary[SUMMARY_CARDS_LAID] = 2 * battles
            summary[SUMMARY_CYCLE_LENGTH] = -1
            summary[SUMMARY_CYCLE_KEY] = 0
            return True, np.int64(0)
        word = _word(p0, p1, n0)
        history[battles] = word
        period += 1
        if word == saved:
            mu = 0
            while history[mu] != history[mu + period]:
                mu += 1
            if mu + period >= max_battles:
                return False, np.int64(0)
            key, mirror = _cycle_keys(history, mu, period, cards, cache_words, cache_keys, cache_fill)
            summary[SUMMARY_OUTCOME] = OUTCOME_CYCLE
            summary[SUMMARY_WINNER] = -1
            summary[SUMMARY_BATTLES] = mu + period
            summary[SUMMARY_CARDS_LAID] = 2 * (mu + period)
            summary[SUMMARY_CYCLE_LENGTH] = period
            summary[SUMMARY_CYCLE_KEY] = key
            return True, mirror
        if period == power:
            saved = word
            power *= 2
            period = 0
    return False, np.int64(0)
