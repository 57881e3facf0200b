"""Every deal of a deck, compiled: a range of the enumeration (model.all_deals) as the arrays the
engines read explicit deals from (state.Deals), made in one pass, without a Python loop a deal.

The first deal of the range is unranked from its index; each next one is the lexicographically
next sequence of the deck's ranks (the next permutation of a multiset), so a batch costs a few
steps a card. Numbers stay within int64: the enumerations played hold at most
model.all_deals.MAX_DEALS deals.
"""

from __future__ import annotations

import numpy as np

from ...model.all_deals import first_codes, rank_counts, seats_alike
from ...model.deal import deal_plan
from .jit import njit
from .state import Deals


@njit(cache=True)
def _multinomial(counts):
    """The number of distinct sequences of a multiset with these counts (as products of
    binomials, which stay exact in int64)."""
    total = np.int64(1)
    placed = 0
    for c in counts:
        for k in range(1, c + 1):
            placed += 1
            total = total * placed // k
    return total


@njit(cache=True)
def _unrank(counts, index, out):
    """The rank sequence of lexicographic rank `index` into `out` (model.all_deals.ranks_of)."""
    sequence_unrank(counts, _multinomial(counts), index, out)


@njit(cache=True)
def sequence_unrank(counts, total, index, out):
    """_unrank with the multinomial of `counts` (`total`) given: what a caller that unranks many
    sequences of one multiset computes once (solve.chain)."""
    counts = counts.copy()
    left = counts.sum()
    for i in range(out.shape[0]):
        for r in range(counts.shape[0]):
            c = counts[r]
            if c == 0:
                continue
            block = total * c // left
            if index < block:
                out[i] = r
                counts[r] -= 1
                total = block
                break
            index -= block
        left -= 1


@njit(cache=True)
def _next_sequence(seq):
    """The lexicographically next sequence of the same ranks, in place; False after the last."""
    n = seq.shape[0]
    i = n - 2
    while i >= 0 and seq[i] >= seq[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = n - 1
    while seq[j] <= seq[i]:
        j -= 1
    seq[i], seq[j] = seq[j], seq[i]
    lo, hi = i + 1, n - 1
    while lo < hi:
        seq[lo], seq[hi] = seq[hi], seq[lo]
        lo += 1
        hi -= 1
    return True


@njit(cache=True)
def _deal_row(seq, firsts, players, dealt, start, used, deck, cards, sizes):
    """One deal into a row of cards and sizes: the rank sequence's cards (each rank's in code
    order), dealt one a seat in turn from seat `start` until `dealt` cards are dealt
    (model.deal.deal_plan), the rest set aside."""
    n = seq.shape[0]
    used[:] = 0
    for i in range(n):
        r = seq[i]
        deck[i] = firsts[r] + used[r]
        used[r] += 1
    at = 0
    for s in range(players):
        first = (s - start) % players
        size = (dealt - first + players - 1) // players
        for k in range(size):
            cards[at] = deck[first + k * players]
            at += 1
        sizes[s] = size
    for i in range(dealt, n):
        cards[at] = deck[i]
        at += 1
    sizes[players] = n - dealt


@njit(cache=True)
def _fill(counts, firsts, players, dealt, deal_start, start, indexes, cards, sizes):
    """Deals into cards and sizes (state.Deals' rows), one a row: deals start.. in order, or,
    when `indexes` has rows, deal indexes[g] into row g, each unranked on its own; each dealt as
    deal_plan says (`dealt` cards, from seat `deal_start`)."""
    n = cards.shape[1]
    seq = np.empty(n, np.int64)
    used = np.empty(counts.shape[0], np.int64)
    deck = np.empty(n, np.int64)
    each = indexes.shape[0] > 0
    if not each:
        _unrank(counts, start, seq)
    for g in range(cards.shape[0]):
        if each:
            _unrank(counts, indexes[g], seq)
        elif g:
            _next_sequence(seq)
        _deal_row(seq, firsts, players, dealt, deal_start, used, deck, cards[g], sizes[g])


def enumerated_deals(rules, start: int, stop: int) -> Deals:
    """Deals start..stop-1 of the rule set's enumeration as state.Deals."""
    size = rules.ranks * rules.suits + rules.jokers
    games = max(stop - start, 0)
    cards = np.empty((games, size), np.int32)
    sizes = np.empty((games, rules.players + 1), np.int64)
    if games:
        _fill(np.array(rank_counts(rules), np.int64), np.array(first_codes(rules), np.int64), np.int64(rules.players),
              *_plan(rules), np.int64(start), np.empty(0, np.int64), cards, sizes)
    return Deals(cards, sizes)


def _plan(rules) -> tuple:
    """model.deal.deal_plan as the compiled steps take it."""
    dealt, start = deal_plan(rules)
    return np.int64(dealt), np.int64(start)


def deals_at(rules, indexes) -> Deals:
    """The deals of these indexes of the rule set's enumeration, in any order, as state.Deals."""
    indexes = np.ascontiguousarray(indexes, np.int64)
    size = rules.ranks * rules.suits + rules.jokers
    cards = np.empty((indexes.shape[0], size), np.int32)
    sizes = np.empty((indexes.shape[0], rules.players + 1), np.int64)
    if indexes.shape[0]:
        _fill(np.array(rank_counts(rules), np.int64), np.array(first_codes(rules), np.int64),
              np.int64(rules.players), *_plan(rules), np.int64(0), indexes, cards, sizes)
    return Deals(cards, sizes)


@njit(cache=True)
def _index_of(counts, seq):
    """The lexicographic rank of a rank sequence (model.all_deals.index_of)."""
    return sequence_rank(counts, _multinomial(counts), seq)


@njit(cache=True)
def sequence_rank(counts, total, seq):
    """_index_of with the multinomial of `counts` (`total`) given (solve.chain ranks positions)."""
    counts = counts.copy()
    left = seq.shape[0]
    index = np.int64(0)
    for i in range(seq.shape[0]):
        rank = seq[i]
        for r in range(rank):
            if counts[r]:
                index += total * counts[r] // left
        total = total * counts[rank] // left
        counts[rank] -= 1
        left -= 1
    return index


@njit(cache=True)
def _two_seats(counts):
    """For a deck of these rank counts dealt to two seats: how many of its cards are dealt (an
    odd card is set aside), and room for one rank sequence."""
    n = 0
    for c in counts:
        n += c
    return n // 2 * 2, np.empty(n, np.int64)


@njit(cache=True, inline="always", _nrt=False)
def swapped_index(counts, seq, mirror, half):
    """The number of the deal `seq` with the seats' piles swapped (its cards at 2k and 2k + 1),
    `mirror` room for its ranks: the walks of every deal (open_counts, open_packed) ask it of a
    class's first deal."""
    for i in range(seq.shape[0]):
        mirror[i] = seq[i]
    for k in range(0, 2 * half, 2):
        mirror[k], mirror[k + 1] = mirror[k + 1], mirror[k]
    return _index_of(counts, mirror)


@njit(cache=True)
def _swap_each(counts, indexes, out):
    """For each deal of two seats, the number of the deal with the seats' piles swapped: the
    deck's cards dealt to seat 0 (even positions) and to seat 1 (odd) trade places."""
    dealt, seq = _two_seats(counts)
    for g in range(indexes.shape[0]):
        _unrank(counts, indexes[g], seq)
        for k in range(0, dealt, 2):
            seq[k], seq[k + 1] = seq[k + 1], seq[k]
        out[g] = _index_of(counts, seq)


def swapped_indexes(rules, indexes) -> np.ndarray:
    """The numbers of these deals (of a two-seat rule set's enumeration) with the seats swapped.
    Where the seats hold different numbers of cards (`deal = first_short`, an odd deck) a deal's
    swap is no deal of the enumeration: its class is the deal alone, and its number is its own."""
    indexes = np.ascontiguousarray(indexes, np.int64)
    if not seats_alike(rules):
        return indexes.copy()
    out = np.empty(indexes.shape[0], np.int64)
    if indexes.shape[0]:
        _swap_each(np.array(rank_counts(rules), np.int64), indexes, out)
    return out


@njit(cache=True)
def _first_of_class_each(counts, indexes, out):
    """For each deal of two seats, whether it is the first of its class (its number at most that
    of the deal with the seats' piles swapped, _swap_each). Deals are numbered in lexicographic
    order of their rank sequences, and the swap exchanges the ranks at positions 2k and 2k + 1
    (dealt to seat 0 and seat 1): the deal comes first where, at the first such pair that
    differs, seat 0's rank is the lower (or where no pair differs: the deal is its own swap).
    No deal's number is computed, and a run of consecutive numbers is unranked once and then
    stepped (_next_sequence)."""
    dealt, seq = _two_seats(counts)
    for g in range(indexes.shape[0]):
        if g > 0 and indexes[g] == indexes[g - 1] + 1:
            _next_sequence(seq)
        else:
            _unrank(counts, indexes[g], seq)
        first = True
        for k in range(0, dealt, 2):
            if seq[k] != seq[k + 1]:
                first = seq[k] < seq[k + 1]
                break
        out[g] = first


def first_of_class(rules, indexes) -> np.ndarray:
    """Whether each of these deals (of a two-seat rule set's enumeration) is the first of its
    class: its number is at most its swapped deal's (swapped_indexes), found without it. Every
    deal is where the seats hold different numbers of cards (a class of one deal)."""
    indexes = np.ascontiguousarray(indexes, np.int64)
    if not seats_alike(rules):
        return np.ones(indexes.shape[0], np.bool_)
    out = np.empty(indexes.shape[0], np.bool_)
    if indexes.shape[0]:
        _first_of_class_each(np.array(rank_counts(rules), np.int64), indexes, out)
    return out
