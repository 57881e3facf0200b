"""Card invariants over a whole shard of events, compiled: what fast validation checks on the
regenerated events instead of walking each game with the ledger."""

from __future__ import annotations

import numpy as np

from ..engines.compiled.jit import njit
from ..engines.compiled.layout import EVENT_BATTLE, EVENT_CARDS_END, EVENT_KIND, SUMMARY_EVENTS
from ..model.event_kinds import KINDS

# What an event of each kind (by its code, model.event_kinds.KINDS' order) does to the cards:
# deals them (at the deal), puts them on the table, takes them off it, or, for a kind that can
# deal too, deals them at the deal and takes them later (a set-aside); 0: moves none it checks.
DEALT, PUT, TAKEN, DEALT_THEN_TAKEN = 1, 2, 3, 4
ROLE = np.array([DEALT if k.source == "deck" else DEALT_THEN_TAKEN if k.at_deal and k.takes else
                 PUT if k.puts else TAKEN if k.takes else 0 for k in KINDS], np.int8)


def cards_balance(arrays, deck_size: int) -> bool:
    """Invariants over a whole shard of the compiled engine's output (`play_arrays`' GameArrays):
    every game's deal is the whole deck, each card once; in every battle the cards that leave
    the table are the cards put on it, none twice."""
    if arrays[0].shape[0] == 0:
        return True
    return balance_of(arrays, deck_size)


def balance_of(arrays, deck_size: int) -> bool:
    """The compiled check of cards_balance, called even on empty arrays: how log.warm's first
    run compiles it (compile_checks)."""
    events, card_values, _, summaries = arrays[:4]
    counts = np.ascontiguousarray(summaries[:, SUMMARY_EVENTS])  # one type, whatever the number of games
    return bool(balance(events, card_values, counts, ROLE, np.zeros(deck_size, np.int64),
                        np.zeros(deck_size, np.int64)))


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def balance(events, values, counts, role, table, dealt_at):
    """True when every game's battle 0 deals (or sets aside) each card of the deck once, and in
    every later battle the cards taken from the table (collect, set_aside) are exactly the cards
    put on it (play, down, forfeit), none twice. role[kind], what an event of that kind does, is
    DEALT, PUT, TAKEN, DEALT_THEN_TAKEN (at battle 0 and after) or 0.
    Events past the last game's count belong to the last game.
    One pass, game by game; a card's `table` entry is 2 x the battle's stamp once put on the
    table and 2 x stamp + 1 once taken from it, so no per-battle set is ever cleared."""
    deck_size = table.shape[0]
    total = events.shape[0]
    stamp = 0
    i = 0
    cards_start = 0
    games = counts.shape[0]
    if games == 0:
        return total == 0
    for game in range(games):
        end = total if game == games - 1 else i + counts[game]
        if end > total:
            end = total
        if i >= end:
            continue
        dealt = 0
        puts = 0
        takes = 0
        previous_battle = events[i, EVENT_BATTLE]
        stamp += 1
        for k in range(i, end):
            battle = events[k, EVENT_BATTLE]
            if battle != previous_battle:
                if puts != takes:
                    return False
                previous_battle = battle
                stamp += 1
                puts = 0
                takes = 0
            kind = events[k, EVENT_KIND]
            first_card = cards_start
            cards_start = events[k, EVENT_CARDS_END]
            what = role[kind]
            if what == DEALT_THEN_TAKEN:
                what = DEALT if battle == 0 else TAKEN
            if what == 0:
                continue
            if (what == DEALT) != (battle == 0):
                return False
            put = 2 * stamp
            for j in range(first_card, cards_start):
                card = values[j]
                if card < 0 or card >= deck_size:
                    return False
                if what == DEALT:
                    if dealt_at[card] == stamp:
                        return False
                    dealt_at[card] = stamp
                    dealt += 1
                elif what == PUT:
                    if table[card] >= put:
                        return False
                    table[card] = put
                    puts += 1
                else:
                    if table[card] != put:
                        return False
                    table[card] = put + 1
                    takes += 1
        if puts != takes or dealt != deck_size:
            return False
        i = end
    return True
