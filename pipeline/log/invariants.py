"""Card invariants over a whole shard of events, compiled: what fast validation checks on the
regenerated events instead of walking each game with the ledger."""

from __future__ import annotations

import numpy as np

from ..engines.compiled.layout import (
    EVENT_BATTLE,
    EVENT_CARDS_END,
    EVENT_KIND,
    KIND_SET_ASIDE,
    SUMMARY_EVENTS,
)
from ..engines.compiled.rng import njit
from ..model.schema import EVENT_KINDS
from .codec import TABLE_KINDS, TAKE_KINDS

DEALT, PUT, TAKEN = 1, 2, 3
ROLE = np.array([DEALT if kind == "deal" else PUT if kind in TABLE_KINDS else
                 TAKEN if kind in TAKE_KINDS and kind != "set_aside" else 0 for kind in EVENT_KINDS], np.int8)


def cards_balance(arrays, deck_size: int) -> bool:
    """Invariants over a whole shard of the compiled engine's output (`play_arrays`' GameArrays):
    every game's deal is the whole deck, each card once; in every battle the cards that leave
    the table are the cards put on it, none twice."""
    events, card_values, _, summaries = arrays[:4]
    if events.shape[0] == 0:
        return True
    return bool(balance(events, card_values, summaries[:, SUMMARY_EVENTS], ROLE, KIND_SET_ASIDE, deck_size))


@njit(cache=True)
def balance(events, values, counts, role, set_aside, deck_size):
    """True when every game's battle 0 deals (or sets aside) each card of the deck once, and in
    every later battle the cards taken from the table (collect, set_aside) are exactly the cards
    put on it (play, down, forfeit), none twice. role[kind] is DEALT, PUT, TAKEN or 0;
    `set_aside` is the kind that deals at battle 0 and takes later."""
    put_at = np.full(deck_size, -1, np.int64)
    taken_at = np.full(deck_size, -1, np.int64)
    dealt_at = np.full(deck_size, -1, np.int64)
    stamp = 0
    dealt = 0
    puts = 0
    takes = 0
    g = 0
    game_end = counts[0] if len(counts) else 0
    prev = -1
    start = 0
    for i in range(events.shape[0]):
        while i == game_end and g + 1 < len(counts):
            g += 1
            game_end += counts[g]
        new_game = i == 0 or i == game_end - counts[g]
        b = events[i, EVENT_BATTLE]
        if new_game or b != prev:
            if i > 0 and puts != takes:
                return False
            if new_game:
                if i > 0 and dealt != deck_size:
                    return False
                dealt = 0
            stamp += 1
            puts = 0
            takes = 0
        prev = b
        k = events[i, EVENT_KIND]
        end = events[i, EVENT_CARDS_END]
        first = start
        start = end
        r = role[k]
        if k == set_aside:
            r = DEALT if b == 0 else TAKEN
        if r == 0:
            continue
        if r == DEALT and b != 0 or r != DEALT and b == 0:
            return False
        for j in range(first, end):
            c = values[j]
            if c < 0 or c >= deck_size:
                return False
            if r == DEALT:
                if dealt_at[c] == stamp:
                    return False
                dealt_at[c] = stamp
                dealt += 1
            elif r == PUT:
                if put_at[c] == stamp:
                    return False
                put_at[c] = stamp
                puts += 1
            else:
                if put_at[c] != stamp or taken_at[c] == stamp:
                    return False
                taken_at[c] = stamp
                takes += 1
    return puts == takes and dealt == deck_size
