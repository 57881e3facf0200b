"""Every deal of a deck counted (and kept) on the two-seat open-play engine (open_duel): deals in
lexicographic order, one of each class played where the pickup treats the seats alike, each game
tallied by kind (engines.compiled.tally) or, for `--keep`, its deal kept when its kind is one
asked for.

A deal and the deal with the seats' piles swapped play the same game with the winner swapped
(under winner's cards first, natural and sorted pickups); the first of the two in lexicographic
order is the one whose first pair of cards that differ has seat 0's the lower, so whether a deal
is first of its class is a comparison, and the swapped deal's number is computed only when it is
wanted (the least deal of a kind, or a kept deal). Where the seats are dealt different numbers of
cards (`deal = first_short`, an odd deck) a deal's swap is no deal: every deal is played, each the
first of its class of one.
"""

from __future__ import annotations

import numpy as np

from ...model.schema import RuleSet
from ..compiled.deals import _next_sequence, _unrank, swapped_index
from ..compiled.jit import njit
from ..compiled.layout import (
    OUTCOME_CYCLE, SUMMARY_BATTLES, SUMMARY_CARDS_LAID, SUMMARY_COLUMNS, SUMMARY_CYCLE_KEY, SUMMARY_CYCLE_LENGTH,
    SUMMARY_OUTCOME, SUMMARY_WINNER,
)
from ..compiled.tally import Tally, from_rows, grown, merge, new_tally, pack, put, rows, slot_of
from .open_duel import PICKUPS_CODE, SYMMETRIC, _game, _ring_cap, extra_card
from .open_packed import count_rows as packed_rows
from .open_packed import _history_words, packed_game, packs



@njit(cache=True)
def _walk(counts, seq, index, stop, extra, pickup, max_battles, classes, packed, keys, games, first, fill, kept,
          most):
    """Deals index..stop-1 of the enumeration (`seq` holds deal `index`'s ranks, and is left
    holding the first deal not walked). With `classes`, only the first deal of each class is
    played (a deal and the deal with the seats' piles swapped play the same game with the winner
    swapped), and both deals count. Without `kept` rows, each game is tallied into the tally
    (keys, games, first, fill); with them, the tally holds the kinds asked for, and the number
    of each deal of those kinds goes into `kept` (at most `most`; a swapped deal's after its
    class's first). With `extra` (seat 1 dealt one card more: open_duel._deal_as) no deal's
    swap is a deal, and each is the first of its class of one. With `packed` (a deck of
    distinct ranks: open_packed), each game is played on packed positions, each cycle hashed
    to its key (keeping only: open_packed.count_rows counts such a deck). Returns (the first
    deal not walked: `stop`, or sooner when the tally must grow first, or `kept` is full; the
    deals kept)."""
    keeping = kept.shape[0] > 0
    size = seq.shape[0]
    half = size // 2
    aside = size - 2 * half - extra
    deal = np.empty(size, np.uint8)
    mirror = np.empty(size, np.int64)
    ring = np.zeros(2 * _ring_cap(size), np.uint8)
    snap = np.zeros_like(ring)
    table = np.empty(size + 2, np.uint8)
    out = np.zeros(32, np.int64)
    summaries = np.zeros((1, len(SUMMARY_COLUMNS)), np.int64)
    wins = np.zeros((1, 2), np.int32)
    final = np.zeros((1, 2), np.int32)
    history = np.zeros(_history_words(max_battles, half) if packed else 1, np.uint64)  # open_packed.history_for
    no_memo = np.zeros((0, 4), np.uint64)  # open_packed.packed_game's memo: none (count_rows counts with one)
    found = 0
    while index < stop:
        if (keeping and found + 2 > most) or (not keeping and 2 * (fill[0] + 2) > keys.shape[0]):
            return index, found
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
            if packed:
                mirror_key = packed_game(deal, half, extra, pickup, max_battles, history, keeping, classes,
                                         summaries[0], no_memo, np.int64(0))
            else:
                mirror_key = _game(deal, half, extra, aside, pickup, max_battles, ring, snap, table, out, 0,
                                   summaries, wins, final)
            row = summaries[0]
            outcome, winner, battles = row[SUMMARY_OUTCOME], row[SUMMARY_WINNER], row[SUMMARY_BATTLES]
            laid, length = row[SUMMARY_CARDS_LAID], row[SUMMARY_CYCLE_LENGTH]
            key = row[SUMMARY_CYCLE_KEY] if outcome == OUTCOME_CYCLE else 0
            w0 = pack(outcome, winner, np.int64(first_of_class), battles)
            slot = slot_of(keys, games, w0, laid, length, key)
            if not keeping:
                put(keys, games, first, fill, slot, w0, laid, length, key, 1, index)
            elif games[slot]:
                kept[found] = index
                found += 1
            if classes and not own:
                swapped = 1 - winner if winner >= 0 else winner
                mkey = mirror_key if outcome == OUTCOME_CYCLE else 0
                w0 = pack(outcome, swapped, 0, battles)
                slot = slot_of(keys, games, w0, laid, length, mkey)
                if not keeping:
                    at = first[slot] if games[slot] else -1
                    if at < 0 or at > index:  # the swapped deal's number may be the row's least
                        at = swapped_index(counts, seq, mirror, half)
                    put(keys, games, first, fill, slot, w0, laid, length, mkey, 1, at)
                elif games[slot]:
                    kept[found] = swapped_index(counts, seq, mirror, half)
                    found += 1
        index += 1
        if index < stop:
            _next_sequence(seq)
    return index, found


def _walker(rules: RuleSet, start: int):
    from ...model.all_deals import rank_counts

    counts = np.array(rank_counts(rules), np.int64)
    seq = np.empty(int(counts.sum()), np.int64)
    _unrank(counts, np.int64(start), seq)
    extra = extra_card(rules)
    packed = packs(counts, _in_play(rules), rules.max_battles)
    return counts, seq, (np.int64(extra), np.int64(PICKUPS_CODE[rules.pickup]), np.int64(rules.max_battles),
                         rules.pickup in SYMMETRIC and not extra, packed)


def _in_play(rules: RuleSet) -> int:
    """The cards dealt to the two seats (the rest set aside)."""
    from ...model.deal import pile_sizes

    return sum(pile_sizes(rules)[:2])


def count_deals(rules: RuleSet, start: int, stop: int, tally: Tally | None = None) -> Tally:
    """The tally of deals start..stop-1 of the rule set's enumeration (added to `tally`)."""
    tally = tally or new_tally()
    if stop <= start:
        return tally
    counts, seq, how = _walker(rules, start)
    if how[-1]:  # packed
        counted = from_rows(*packed_rows(counts, seq, start, stop, *how[:4], _in_play(rules)))
        return merge(tally, counted) if tally.fill[0] else counted
    index, nothing = start, np.zeros(0, np.int64)
    while index < stop:
        index, _ = _walk(counts, seq, np.int64(index), np.int64(stop), *how, tally.keys, tally.games,
                         tally.first, tally.fill, nothing, np.int64(0))
        if index < stop:
            tally = grown(tally)
    return tally


def count_rows(rules: RuleSet, start: int, stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """count_deals's tally as its rows (tally.rows: keys, games, first deals, in the keys'
    order): for a deck counted on packed positions, made sorted (open_packed.count_rows)
    rather than a table then sorted."""
    if stop > start:
        counts, seq, how = _walker(rules, start)
        if how[-1]:
            return packed_rows(counts, seq, start, stop, *how[:4], _in_play(rules))
    return rows(count_deals(rules, start, stop))


def keep_deals(rules: RuleSet, start: int, stop: int, kinds: Tally, most: int) -> np.ndarray:
    """The numbers of the deals start..stop-1 whose games are of the kinds that `kinds` holds (a
    tally of them), in order, at most the `most` first."""
    if stop <= start or most <= 0:
        return np.zeros(0, np.int64)
    counts, seq, how = _walker(rules, start)
    kept = np.zeros(max(most, 2) + 2, np.int64)
    index, found = _walk(counts, seq, np.int64(start), np.int64(stop), *how, kinds.keys, kinds.games, kinds.first,
                         kinds.fill, kept, np.int64(kept.shape[0]))
    deals = np.sort(kept[:found])
    if index < stop and found:  # full: a later deal may still be kept before a swapped one found
        return np.sort(np.concatenate([deals, keep_deals(rules, index, stop, kinds, most)]))[:most]
    return deals[:most]
