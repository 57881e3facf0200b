"""Cycle detection (fixed pickup orders only): before each battle the position is looked up among
the game's earlier ones, so that a cycle is found exactly when the reference finds it.

A position is every seat's pile as ranks (and its hand, and its war wins when a number of them
wins): suits never decide a game, so two positions that differ only by suits play alike, and the
game loops from the first time its ranks come back (docs/rules.md 2.6). Its 64-bit hash comes
from per-pile hashes of ranks (state.PILE_BASE) kept up to date move by move (moves.py), so it
costs O(players); positions live in an open-addressing table of their hashes (state.Positions),
and a hash hit is compared rank for rank against the stored position before it counts.

Most games never look: loop.play_games plays a game without looking first (its rules'
detect_cycles false: the positions are not kept up to date), and again looking only when it
lasts (Workspace.watch; docs/decisions.md says why that finds the same cycles). A game of a
family whose rules never repeat a position (Steal War) has None for positions, and the steps
here compile to nothing for it (see moves.py).

When a position comes back, the game's cycle is the stored positions from the earlier one on; its
*key* (engines.cycle_key, the same function in Python) names the cycle whatever position the game
entered it by, so that games falling into one cycle share a key.
"""

from __future__ import annotations

import numpy as np

from .jit import borrowing
from .layout import SUMMARY_CYCLE_KEY
from .rng import HASH_START, _fold, _mix


@borrowing
def room_for_position(positions, stored):
    """Whether the buffers hold one more position after `stored` of them."""
    if positions is None:
        return True
    return stored + 1 < positions.hashes.shape[0]


@borrowing
def room_in_streams(rules, positions):
    """Whether every seat's stream holds the cards of one more battle (at most the deck)."""
    if positions is None:
        return True
    for s in range(rules.players):
        if positions.stream_end[s] + rules.deck_size > positions.stream.shape[1]:
            return False
    return True


@borrowing(inline="linked")
def position_hash(rules, seats, positions, hands):
    h = HASH_START
    for s in range(rules.players):
        h = _fold(_fold(h, seats.pile_size[s]), positions.pile_hash[s])
        if hands is not None:  # pruned before typing where seats hold no hand
            h = _fold(h, hands.hand_size[s])
            for i in range(hands.hand_size[s]):
                h = _fold(h, rules.card_rank[hands.hands[s, i]])
    if rules.wars_to_win > 0:
        for s in range(rules.players):
            h = _fold(h, seats.war_wins[s])
    return _mix(h)


@borrowing
def is_current_position(number, rules, seats, positions, hands):
    """Whether stored position `number` is the current one: every pile rank for rank (the
    streams hold ranks), every hand's ranks (kept in code order, so in rank order) where seats
    hold hands, and the war wins under wars:N."""
    players = rules.players
    stream = positions.stream
    for s in range(players):
        size = seats.pile_size[s]
        if positions.size[number * players + s] != size:
            return False
        stored_start = positions.start[number * players + s]
        start = positions.stream_start[s]
        for i in range(size):
            if stream[s, stored_start + i] != stream[s, start + i]:
                return False
        if hands is not None:
            width = hands.hands.shape[1]
            for i in range(width):
                rank = rules.card_rank[hands.hands[s, i]] if i < hands.hand_size[s] else -1
                if hands.stored_hands[number, s * width + i] != rank:
                    return False
    if rules.wars_to_win > 0:
        for s in range(players):
            if positions.war_wins[number * players + s] != seats.war_wins[s]:
                return False
    return True


@borrowing
def position_key(number, rules, positions, hands):
    """Stored position `number`'s key by ranks (engines.cycle_key.position_key): each seat's
    pile size and its cards' ranks top first, its hand's size and ranks where seats hold hands,
    then every seat's war wins under wars:N."""
    players = rules.players
    stream = positions.stream
    h = HASH_START
    for s in range(players):
        size = positions.size[number * players + s]
        start = positions.start[number * players + s]
        h = _fold(h, size)
        for i in range(size):
            h = _fold(h, stream[s, start + i] + 1)
        if hands is not None:
            width = hands.hands.shape[1]
            held = 0
            for i in range(width):
                if hands.stored_hands[number, s * width + i] >= 0:
                    held += 1
            h = _fold(h, held)
            for i in range(held):
                h = _fold(h, hands.stored_hands[number, s * width + i] + 1)
    if rules.wars_to_win > 0:
        for s in range(players):
            h = _fold(h, positions.war_wins[number * players + s])
    return _mix(h)


@borrowing
def cycle_key(rules, positions, earlier, stored, hands):
    """The key of the cycle of stored positions earlier..stored-1: the least of their keys."""
    best = position_key(earlier, rules, positions, hands)
    for number in range(earlier + 1, stored):
        key = position_key(number, rules, positions, hands)
        if key < best:
            best = key
    return best


@borrowing
def earlier_position(rules, seats, positions, stored, attempt, hands, tally):
    """The number of the game's earlier position equal to the current one; else -1, the current
    position stored as number `stored` (there is room, see room_for_position). A slot is filled
    when slot_attempt holds `attempt`, which numbers the attempts at a game (a game is played
    again when a buffer grows): slots left by earlier attempts count as empty. `hands`: the
    seats' hands (`hands`, `hand_size`, and `stored_hands` a row a stored position) where seats
    hold them (Arneson's War, ruling 18), else None. When the position came before, the cycle's
    key goes into the game's `tally`."""
    if positions is None:
        return np.int64(-1)
    h = position_hash(rules, seats, positions, hands)
    slots = positions.slots
    slot_mask = slots.shape[0] - 1
    slot = np.int64(h & np.uint64(slot_mask))
    while positions.slot_attempt[slot] == attempt:
        number = slots[slot]
        if positions.hashes[number] == h and is_current_position(number, rules, seats, positions, hands):
            tally[SUMMARY_CYCLE_KEY] = np.int64(cycle_key(rules, positions, number, stored, hands))
            return number
        slot = (slot + 1) & slot_mask
    positions.slot_attempt[slot] = attempt
    slots[slot] = stored
    positions.hashes[stored] = h
    players = rules.players
    for s in range(players):
        positions.start[stored * players + s] = positions.stream_start[s]
        positions.size[stored * players + s] = seats.pile_size[s]
        if hands is not None:
            width = hands.hands.shape[1]
            for i in range(width):
                hands.stored_hands[stored, s * width + i] = \
                    rules.card_rank[hands.hands[s, i]] if i < hands.hand_size[s] else -1
    if rules.wars_to_win > 0:
        for s in range(players):
            positions.war_wins[stored * players + s] = seats.war_wins[s]
    return -1
