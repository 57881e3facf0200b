"""The moves every step of a game is made of: an event logged, a card taken from a pile, cards
put under a pile, a won pile reshuffled into the pile. Each keeps the pile's hash and stream
(state.Positions, for cycle detection) in step with the pile.

The smallest, called for every card or event, are inlined into their callers; those that keep
the positions are not. A game that cannot repeat a position has None for positions
(state.new_game): each of these begins with `if positions is None: return`, which numba prunes
on the argument's type before typing, so for that game it compiles to nothing (and LLVM removes
the call), and for a game with positions LLVM inlines it.
"""

from __future__ import annotations

import numpy as np

from .layout import (
    EVENT_BATTLE, EVENT_CARDS_END, EVENT_KIND, EVENT_NOTE, EVENT_SEAT, EVENT_SEATS_END, EVENT_VALUE, KIND_COLLECT,
    KIND_DOWN, KIND_RESHUFFLE, NO_NOTE, PICKUP_POOLED, PUTS, TERM_FACE_UP, TERM_OWNER, TERM_POSITION, TERM_RANK,
    TERM_STEP, TERM_TAKER,
)
from .rng import _shuffle
from .jit import borrowing
from .state import CARDS, LAID, PILE_BASE_INVERSE, ROWS, SEATS, ZERO

ONE = np.int64(1)


@borrowing(inline="linked")
def emit(log, battle, kind, seat, value, note):
    """One event row; its cards and seats were pushed just before (they end at the log's fill).
    The cards of a kind that puts cards on the table count into the game's cards laid."""
    i = log.fill[ROWS]
    cards_end = log.fill[CARDS]
    if PUTS[kind]:
        log.fill[LAID] += cards_end - (log.rows[i - 1, EVENT_CARDS_END] if i > 0 else 0)
    write_event(log.rows, i, battle, kind, seat, value, note, cards_end, log.fill[SEATS])
    log.fill[ROWS] = i + 1


@borrowing(inline="linked")
def write_event(rows, i, battle, kind, seat, value, note, cards_end, seats_end):
    """Event row i (emit's, or a run of battles' that keeps the log's fill in its own variables)."""
    rows[i, EVENT_BATTLE] = battle
    rows[i, EVENT_KIND] = kind
    rows[i, EVENT_SEAT] = seat
    rows[i, EVENT_VALUE] = value
    rows[i, EVENT_NOTE] = note
    rows[i, EVENT_CARDS_END] = cards_end
    rows[i, EVENT_SEATS_END] = seats_end


@borrowing(inline="linked")
def push_cards(log, cards, first, stop):
    """cards[first:stop] as the next event's cards."""
    end = log.fill[CARDS]
    for i in range(first, stop):
        log.card_values[end] = cards[i]
        end += 1
    log.fill[CARDS] = end


@borrowing(inline="linked")
def push_seats(log, seats, count):
    """seats[:count] as the next event's seats."""
    end = log.fill[SEATS]
    for i in range(count):
        log.seat_values[end] = seats[i]
        end += 1
    log.fill[SEATS] = end


@borrowing(inline="linked")
def take_top(s, rules, seats, positions):
    """The top card of seat s's pile, which is not empty; its hash and stream follow when the
    game looks for cycles."""
    head = seats.pile_head[s]
    card = seats.pile[s, head]
    seats.pile_head[s] = (head + 1) & (seats.pile.shape[1] - 1)
    seats.pile_size[s] -= 1
    follow_top(s, card, rules, positions)
    return card


@borrowing
def follow_top(s, card, rules, positions):
    """`card` was taken from the top of seat s's pile: its hash and stream follow (by rank)."""
    if positions is None:
        return
    if rules.detect_cycles:
        positions.pile_hash[s] = (positions.pile_hash[s] - np.uint64(rules.card_rank[card] + 1)) * PILE_BASE_INVERSE
        positions.stream_start[s] += 1


@borrowing
def follow_under(s, cards, count, old_size, rules, positions):
    """cards[:count] were put under seat s's pile of old_size cards: its hash and stream follow,
    by rank (a position is its ranks, docs/rules.md 2.6)."""
    if positions is None:
        return
    h = positions.pile_hash[s]
    end = positions.stream_end[s]
    card_rank = rules.card_rank
    for i in range(count):
        rank = card_rank[cards[i]]
        h += np.uint64(rank + 1) * positions.hash_powers[old_size + i]
        positions.stream[s, end + i] = rank
    positions.pile_hash[s] = h
    positions.stream_end[s] = end + count


@borrowing(inline="linked")
def put_under(s, cards, count, rules, seats, positions):
    """cards[:count] put under seat s's pile, in that order."""
    head = seats.pile_head[s]
    size = seats.pile_size[s]
    mask = seats.pile.shape[1] - 1
    for i in range(count):
        seats.pile[s, (head + size + i) & mask] = cards[i]
    if rules.detect_cycles:
        follow_under(s, cards, count, size, rules, positions)
    seats.pile_size[s] = size + count


@borrowing
def start_pile(s, cards, size, rules, positions):
    """Seat s was dealt cards[:size]: its hash and stream start with them."""
    if positions is None:
        return
    positions.pile_hash[s] = 0
    positions.stream_start[s] = 0
    positions.stream_end[s] = 0
    if rules.detect_cycles:
        follow_under(s, cards, size, ZERO, rules, positions)


@borrowing
def forget_pile(s, positions):
    """Seat s's pile was emptied at once (a forfeit): its hash and stream start again."""
    if positions is None:
        return
    positions.pile_hash[s] = 0
    positions.stream_start[s] = positions.stream_end[s]


@borrowing
def reshuffle(s, battle, game):
    """Seat s's won pile, shuffled, becomes its (empty) pile."""
    seats = game.seats
    scratch = game.table.scratch
    won = seats.won_size[s]
    for i in range(won):  # the won pile, top first
        scratch[i] = seats.won[s, won - 1 - i]
    _shuffle(game.rng, scratch, won)
    seats.won_size[s] = 0
    put_under(s, scratch, won, game.rules, seats, game.positions)
    push_cards(game.log, scratch, 0, won)
    emit(game.log, battle, KIND_RESHUFFLE, s, 0, NO_NOTE)


@borrowing(inline="linked")
def draw(s, battle, game):
    """Seat s's top card, its pile refilled from its won pile first when empty."""
    if game.seats.pile_size[s] == 0:
        reshuffle(s, battle, game)
    return take_top(s, game.rules, game.seats, game.positions)


@borrowing
def ordered_by_key(table, first, stop, seat, card_rank, key, out):
    """Table cards first..stop-1 into out[:stop - first] in a fixed pickup order (model.pickups),
    seat `seat` taking them: each card's terms packed into one key by `key`'s rows (term,
    descending, values, weight: engine.pickup_key), its mark read as 2 x step + 1 face up, then
    sorted by key. An insertion sort: a table holds a few cards."""
    for i in range(stop - first):
        p = first + i
        card = table.cards[p]
        mark = table.marks[p]
        packed = ZERO
        for t in range(key.shape[0]):
            term = key[t, 0]
            if term == TERM_POSITION:
                value = i
            elif term == TERM_TAKER:
                value = ONE if table.owners[p] == seat else ZERO
            elif term == TERM_OWNER:
                value = table.owners[p]
            elif term == TERM_STEP:
                value = mark >> 1
            elif term == TERM_FACE_UP:
                value = mark & 1
            elif term == TERM_RANK or mark & 1:
                value = card_rank[card]
            else:  # up_rank, face down
                value = ZERO
            if key[t, 1]:
                value = key[t, 2] - 1 - value
            packed += value * key[t, 3]
        j = i
        while j > 0 and table.keys[j - 1] > packed:
            table.keys[j] = table.keys[j - 1]
            out[j] = out[j - 1]
            j -= 1
        table.keys[j] = packed
        out[j] = card


@borrowing(inline="linked")
def lay_holdings(s, depth, table_size, game):
    """Seat s's pile (top first), then its won pile (top first), onto the table face down, in
    the war of this depth, without a reshuffle (a forfeit, ruling 2); both are empty after.
    Returns the new table size."""
    seats, table = game.seats, game.table
    head = seats.pile_head[s]
    mask = seats.pile.shape[1] - 1
    for i in range(seats.pile_size[s]):
        table.cards[table_size] = seats.pile[s, (head + i) & mask]
        table.owners[table_size] = s
        table.marks[table_size] = 2 * depth
        table_size += 1
    for i in range(seats.won_size[s] - 1, -1, -1):
        table.cards[table_size] = seats.won[s, i]
        table.owners[table_size] = s
        table.marks[table_size] = 2 * depth
        table_size += 1
    seats.pile_size[s] = 0
    seats.won_size[s] = 0
    forget_pile(s, game.positions)
    return table_size


@borrowing(inline="linked")
def take(winner, cards, count, battle, game):
    """The winner takes cards[:count], in that order: under its pile, or onto its won pile
    (pooled pickup)."""
    seats = game.seats
    if game.rules.pickup == PICKUP_POOLED:
        won = seats.won_size[winner]
        for i in range(count - 1, -1, -1):
            seats.won[winner, won] = cards[i]
            won += 1
        seats.won_size[winner] = won
    else:
        put_under(winner, cards, count, game.rules, seats, game.positions)
    push_cards(game.log, cards, 0, count)
    emit(game.log, battle, KIND_COLLECT, winner, 0, NO_NOTE)


@borrowing
def lay_down(s, count, battle, depth, table_size, game):
    """A war's face-down cards, in the war of this depth: up to `count` from seat s's pile onto
    the table from `table_size`, reshuffling its won pile into it when it runs out, fewer when
    both are empty; one `down` event for each run between reshuffles. Returns the new table
    size."""
    seats, table, log = game.seats, game.table, game.log
    run = table_size
    for _ in range(count):
        if seats.pile_size[s] == 0:
            if table_size > run:
                push_cards(log, table.cards, run, table_size)
                emit(log, battle, KIND_DOWN, s, 0, NO_NOTE)
            run = table_size
            if seats.won_size[s] == 0:
                break
            reshuffle(s, battle, game)
        table.cards[table_size] = take_top(s, game.rules, seats, game.positions)
        table.owners[table_size] = s
        table.marks[table_size] = 2 * depth
        table_size += 1
    if table_size > run:
        push_cards(log, table.cards, run, table_size)
        emit(log, battle, KIND_DOWN, s, 0, NO_NOTE)
    return table_size
