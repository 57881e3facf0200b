"""Every deal of a deck of distinct ranks (one suit) counted on positions packed in one word: the
counting path of open_counts for the decks whose games never tie, where the open-play engine's
rings, its three replays of a cycling game and its hash of every position of a cycle cost more
than the game.

With no two cards of a rank there is no war: a battle takes both top cards and puts them under
the winner's pile, high then low (seat 0's first under table order). A pile of at most 15 cards
of ranks below 16 is a word of 4-bit cards (top in the low bits), and a position is one word: seat
0's cards, then seat 1's, then seat 0's card count in the top 4 bits. The game is played once,
each position's word kept: a cycle is found by Brent's check on the words, its first repeated
position μ + λ by comparing the kept words λ apart (no replay), and the cycle named by its least
word, exact and free. While a range of deals is counted, a cycling game's row holds that word
where the counts hold the cycle's key (the least of its positions' keys,
engines.cycle_key.position_key); `named_by_keys` then hashes each cycle of the tally once,
going round it from its least word, and the rows are keyed as open_duel's. A game that reaches
its cap is played on to four times it, as open_duel._game does, to tell a cycle that repeats
before the cap from a capped game.
"""

from __future__ import annotations

import numpy as np

from ..compiled.jit import njit
from ..compiled.layout import (
    OUTCOME_CAPPED, OUTCOME_CYCLE, OUTCOME_WIN, PICKUP_TABLE_ORDER, SUMMARY_BATTLES, SUMMARY_CARDS_LAID, SUMMARY_CYCLE_KEY,
    SUMMARY_CYCLE_LENGTH, SUMMARY_OUTCOME, SUMMARY_WINNER,
)
from ..compiled.rng import HASH_START, _fold, _mix
from ..compiled.tally import new_tally, put, slot_of

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


def history_for(max_battles: int, half: int) -> np.ndarray:
    """Room for the words of a game played to four times its cap (packed_game)."""
    return np.zeros(4 * max_battles + 4 * half + 2, np.uint64)


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


@njit(cache=True, _nrt=False)
def packed_game(deal, half, extra, pickup, max_battles, history, hashed, mirrored, summary):
    """One game of the deal (dealt as open_duel._deal_as deals it) into `summary`'s outcome,
    winner, battles, cards laid, cycle length and key (layout.SUMMARY_COLUMNS), as open_duel._game
    gives them, but for a cycle's key: its least word, or with `hashed` its key. Returns, for a
    cycle and `mirrored`, the mirrored cycle's least word (its key with `hashed`), else 0.
    `history` holds history_for's words."""
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
    stop = history.shape[0] - 1
    while battles < stop:
        p0, p1, n0, n1 = _battle(p0, p1, n0, n1, pickup)
        battles += 1
        if n0 == 0 or n1 == 0:
            if battles > max_battles:
                break  # capped before it ended
            summary[SUMMARY_OUTCOME] = OUTCOME_WIN
            summary[SUMMARY_WINNER] = 0 if n0 > 0 else 1
            summary[SUMMARY_BATTLES] = battles
            summary[SUMMARY_CARDS_LAID] = 2 * battles
            summary[SUMMARY_CYCLE_LENGTH] = -1
            summary[SUMMARY_CYCLE_KEY] = 0
            return np.int64(0)
        word = _word(p0, p1, n0)
        history[battles] = word
        period += 1
        if word == saved:
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
            summary[SUMMARY_OUTCOME] = OUTCOME_CYCLE
            summary[SUMMARY_WINNER] = -1
            summary[SUMMARY_BATTLES] = mu + period
            summary[SUMMARY_CARDS_LAID] = 2 * (mu + period)
            summary[SUMMARY_CYCLE_LENGTH] = period
            summary[SUMMARY_CYCLE_KEY] = np.int64(least)
            return np.int64(mirror) if mirrored or hashed else np.int64(0)
        if period == power:
            saved = word
            power *= 2
            period = 0
    summary[SUMMARY_OUTCOME] = OUTCOME_CAPPED
    summary[SUMMARY_WINNER] = -1
    summary[SUMMARY_BATTLES] = max_battles
    summary[SUMMARY_CARDS_LAID] = 2 * max_battles
    summary[SUMMARY_CYCLE_LENGTH] = -1
    summary[SUMMARY_CYCLE_KEY] = 0
    return np.int64(0)


@njit(cache=True)
def _named(keys, games, first, cycling, cards, pickup, new_keys, new_games, new_first, fill):
    """The tally's rows into the new one, each cycling row (first word `cycling`) keyed by its
    cycle's key, each cycle hashed once."""
    at = np.flatnonzero((games != 0) & (keys[:, 0] % 4 == cycling))
    words = np.unique(keys[at, 3])
    named = np.zeros(words.shape[0], np.int64)
    for i in range(words.shape[0]):
        named[i] = cycle_key_of(np.uint64(words[i]), cards, pickup)
    for slot in range(keys.shape[0]):
        if games[slot]:
            k = keys[slot]
            key = k[3]
            if k[0] % 4 == cycling:
                key = named[np.searchsorted(words, key)]
            to = slot_of(new_keys, new_games, k[0], k[1], k[2], key)
            put(new_keys, new_games, new_first, fill, to, k[0], k[1], k[2], key, games[slot], first[slot])


def named_by_keys(tally, cards: int, pickup: int, cycle: int):
    """The tally with each cycling row's least word (packed_game's) replaced by its cycle's key,
    each cycle hashed once (rows that meet under one key add up, as the open duel's would)."""
    named = new_tally(tally.keys.shape[0])
    _named(tally.keys, tally.games, tally.first, np.int64(cycle), np.int64(cards), np.int64(pickup), named.keys,
           named.games, named.first, named.fill)
    return named
