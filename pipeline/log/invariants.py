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
    counts = np.ascontiguousarray(summaries[:, SUMMARY_EVENTS])  # one type, whatever the number of games
    return bool(balance(events, card_values, counts, ROLE, KIND_SET_ASIDE, deck_size))


@njit(cache=True)
def balance(events, values, counts, role, set_aside, deck_size):
    """True when every game's battle 0 deals (or sets aside) each card of the deck once, and in
    every later battle the cards taken from the table (collect, set_aside) are exactly the cards
    put on it (play, down, forfeit), none twice. role[kind], what an event of that kind does, is
    DEALT, PUT, TAKEN or 0; `set_aside` is the kind that deals at battle 0 and takes later."""
    put_at = np.full(deck_size, -1, np.int64)
    taken_at = np.full(deck_size, -1, np.int64)
    dealt_at = np.full(deck_size, -1, np.int64)
    stamp = 0
    dealt = 0
    puts = 0
    takes = 0
    game = 0
    game_end = counts[0] if len(counts) else 0
    previous_battle = -1
    cards_start = 0
    for i in range(events.shape[0]):
        while i == game_end and game + 1 < len(counts):
            game += 1
            game_end += counts[game]
        new_game = i == 0 or i == game_end - counts[game]
        battle = events[i, EVENT_BATTLE]
        if new_game or battle != previous_battle:
            if i > 0 and puts != takes:
                return False
            if new_game:
                if i > 0 and dealt != deck_size:
                    return False
                dealt = 0
            stamp += 1
            puts = 0
            takes = 0
        previous_battle = battle
        kind = events[i, EVENT_KIND]
        end = events[i, EVENT_CARDS_END]
        first_card = cards_start
        cards_start = end
        what = role[kind]
        if kind == set_aside:
            what = DEALT if battle == 0 else TAKEN
        if what == 0:
            continue
        if what == DEALT and battle != 0 or what != DEALT and battle == 0:
            return False
        for j in range(first_card, end):
            card = values[j]
            if card < 0 or card >= deck_size:
                return False
            if what == DEALT:
                if dealt_at[card] == stamp:
                    return False
                dealt_at[card] = stamp
                dealt += 1
            elif what == PUT:
                if put_at[card] == stamp:
                    return False
                put_at[card] = stamp
                puts += 1
            else:
                if put_at[card] != stamp or taken_at[card] == stamp:
                    return False
                taken_at[card] = stamp
                takes += 1
    return puts == takes and dealt == deck_size
