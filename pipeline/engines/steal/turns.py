"""Steal War's compiled turns (engines.steal.reference's StealGame, step for step): the family's
state besides the shared one, the seats' built-in policies as codes, a turn (look, steal, play),
the wars fought turn by turn, and the winner's choice of the top card of its bundle.

Policies are data: each seat's built-in policy is a row of codes (compiled.compile_policies),
read by `choose_steal` and `choose_top`, which draw from the seat's own generator exactly as
the reference's policy functions do.

A decision's options are logged after its card in card_values, and its value column holds how
many there are (a Steal War decision has no value of its own), which is what log.compiled_codec
reads to spell them.

The log is checked for room before every turn, for the most a turn can log (a turn steals at
most once from each opponent, since a won pile emptied by a steal cannot refill during the
thief's turn); when it is short, the game plays on without a log and is played again from its
start in a larger one (loop.NEEDS_ROOM).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..compiled.jit import borrowing
from ..compiled.layout import (
    KIND_COLLECT, KIND_DECISION, KIND_OUT, KIND_PLAY, KIND_WAR, NO_NOTE, NO_SEAT, kind_code, note_code,
)
from ..compiled.loop import (
    play_games,  # noqa: F401  (the games' entry point, as every engine module names it)
    )
from ..compiled.moves import emit, lay_down, push_cards, push_seats, reshuffle, take_top
from ..compiled.rng import _bounded
from ..compiled.state import CARDS, ROWS, SEATS, ZERO

# The family's own codes in the events array (layout): its kind, and the notes of its decisions,
# module globals the engine reads as constants.
KIND_STEAL = kind_code("steal")
NOTE_STEAL, NOTE_TOP = note_code("steal"), note_code("top")

# Policy codes: a seat's row of Steal.policy is (steal code, its threshold, top code).
STEAL_ALWAYS, STEAL_NEVER, STEAL_RANDOM, STEAL_THRESHOLD = range(4)
TOP_AS_PLAYED, TOP_HIGHEST, TOP_PROTECT, TOP_RANDOM = range(4)
STEAL_CODES = {"always": STEAL_ALWAYS, "never": STEAL_NEVER, "random": STEAL_RANDOM, "threshold": STEAL_THRESHOLD}
TOP_CODES = {"as_played": TOP_AS_PLAYED, "highest": TOP_HIGHEST, "protect": TOP_PROTECT, "random": TOP_RANDOM}
POLICY_STEAL, POLICY_THRESHOLD, POLICY_TOP = range(3)
POLICY_SEED_MASK = np.uint64(0x5EA75EA75EA75EA7)  # model.rng.policy_seed
NO_CYCLE = np.int64(-1)  # Steal War looks for no repeated position


class Steal(NamedTuple):
    """What Steal War keeps besides the table engine's state."""

    policy: np.ndarray          # int64 [players, 3]: steal code, threshold, top code
    policy_rng: np.ndarray      # uint64 [players, 4]: each seat's policy generator
    copies: np.ndarray          # int64 [ranks]: cards of each rank in the deck
    in_table: np.ndarray        # int64 [ranks]: cards of each rank on the table (top:protect)
    eligible: np.ndarray        # int64 [players]: the seats a look may steal from
    sizes: np.ndarray           # int64 [players]: their won piles' sizes
    chosen: np.ndarray          # int64 [players]: the seats stolen from
    state: np.ndarray           # int64 [3]: the table's size, 1 once the log was short, the battle's first seat


TABLE_SIZE, SHORT, FIRST = range(3)  # Steal.state: the table's size, the log found short, the battle's first seat


# ---------------------------------------------------------------- the log's room

@borrowing(inline="linked")
def room_for_turn(game, rows, cards):
    """Whether the log holds `rows` and `cards` more, then the most one turn logs (cards down
    split by a reshuffle, a reshuffle and a decision per steal and one more, the steals, the
    play, an out), twice what closing a battle and the game can log, and what falls between
    turns (a war, an out): once a check fails, the rest of the battle still fits."""
    players, deck_size = game.rules.players, game.rules.deck_size
    log = game.log
    return (log.fill[ROWS] + rows + 7 * players + 24 <= log.rows.shape[0]
            and log.fill[CARDS] + cards + (2 * players + 4) * deck_size + players * players + 16
            <= log.card_values.shape[0]
            and log.fill[SEATS] + 2 * players * players + 4 * players + 16 <= log.seat_values.shape[0])


# ---------------------------------------------------------------- policies

@borrowing(inline="linked")
def choose_steal(s, count, steal):
    """The eligible seats seat s's policy steals from, into steal.chosen: how many
    (policies.steal_always, steal_never, steal_random, steal_threshold)."""
    code = steal.policy[s, POLICY_STEAL]
    chosen = 0
    for i in range(count):
        if code == STEAL_ALWAYS:
            take = True
        elif code == STEAL_RANDOM:
            take = _bounded(steal.policy_rng[s], np.uint64(2)) != np.uint64(0)
        elif code == STEAL_THRESHOLD:
            take = steal.sizes[i] >= steal.policy[s, POLICY_THRESHOLD]
        else:
            take = False
        if take:
            steal.chosen[chosen] = steal.eligible[i]
            chosen += 1
    return chosen


@borrowing(inline="linked")
def choose_top(s, table_size, game, steal):
    """The table position of the card seat s's policy puts on top of its bundle
    (policies.top_as_played, top_highest, top_protect, top_random)."""
    code = steal.policy[s, POLICY_TOP]
    cards, card_rank = game.table.cards, game.rules.card_rank
    if code == TOP_RANDOM:
        return np.int64(_bounded(steal.policy_rng[s], np.uint64(table_size)))
    if code == TOP_HIGHEST:
        best = 0
        for i in range(1, table_size):
            if card_rank[cards[i]] > card_rank[cards[best]]:
                best = i
        return best
    if code == TOP_PROTECT:
        for i in range(table_size):
            steal.in_table[card_rank[cards[i]]] = 0
        for i in range(table_size):
            steal.in_table[card_rank[cards[i]]] += 1
        best = 0
        best_left = steal.copies[card_rank[cards[0]]] - steal.in_table[card_rank[cards[0]]]
        for i in range(1, table_size):
            r = card_rank[cards[i]]
            left = steal.copies[r] - steal.in_table[r]
            if left < best_left or left == best_left and r > card_rank[cards[best]]:
                best, best_left = i, left
        return best
    return 0


# ---------------------------------------------------------------- a turn

@borrowing(inline="linked")
def knock_out(s, battle, game):
    game.seats.alive[s] = False
    emit(game.log, battle, KIND_OUT, s, 0, NO_NOTE)


@borrowing
def steal_with(s, card, chosen, battle, game, steal):
    """Seat s takes the won piles of steal.chosen[:chosen] with `card`, its top card: the bundle,
    `card` then each pile top first, goes on top of its won pile."""
    seats, log = game.seats, game.log
    take_top(s, game.rules, seats, game.positions)
    end = log.fill[CARDS]
    log.card_values[end] = card
    end += 1
    for j in range(chosen):
        o = steal.chosen[j]
        for i in range(seats.won_size[o] - 1, -1, -1):
            log.card_values[end] = seats.won[o, i]
            end += 1
    log.fill[CARDS] = end
    push_seats(log, steal.chosen, chosen)
    emit(log, battle, KIND_STEAL, s, 0, NO_NOTE)
    top = seats.won_size[s]
    for j in range(chosen - 1, -1, -1):
        o = steal.chosen[j]
        for i in range(seats.won_size[o]):
            seats.won[s, top] = seats.won[o, i]
            top += 1
        seats.won_size[o] = 0
    seats.won[s, top] = card
    seats.won_size[s] = top + 1


@borrowing(inline="linked")
def play_up(s, battle, game, steal):
    """Seat s looks at its top card, steals with it as long as its policy wants, then plays it;
    False when it has no card left (StealGame.play_up)."""
    seats, table, log = game.seats, game.table, game.log
    players, card_rank = game.rules.players, game.rules.card_rank
    while True:
        if seats.pile_size[s] == 0:
            if seats.won_size[s] == 0:
                return False
            reshuffle(s, battle, game)
        card = seats.pile[s, seats.pile_head[s]]
        rank = card_rank[card]
        count = 0
        for k in range(1, players):
            o = s + k
            if o >= players:
                o -= players
            size = seats.won_size[o]
            if size > 0 and card_rank[seats.won[o, size - 1]] == rank:
                steal.eligible[count] = o
                steal.sizes[count] = size
                count += 1
        if count == 0:
            break
        chosen = choose_steal(s, count, steal)
        end = log.fill[CARDS]
        log.card_values[end] = card
        for i in range(count):
            log.card_values[end + 1 + i] = steal.eligible[i]
        log.fill[CARDS] = end + 1 + count
        push_seats(log, steal.chosen, chosen)
        emit(log, battle, KIND_DECISION, s, count, NOTE_STEAL)
        if chosen == 0:
            break
        steal_with(s, np.int64(card), np.int64(chosen), battle, game, steal)
    table_size = steal.state[TABLE_SIZE]
    table.cards[table_size] = take_top(s, game.rules, seats, game.positions)
    table.face_up[s] = table.cards[table_size]
    push_cards(log, table.cards, table_size, table_size + 1)
    emit(log, battle, KIND_PLAY, s, 0, NO_NOTE)
    steal.state[TABLE_SIZE] = table_size + 1
    return True


@borrowing(inline="linked")
def take_turn(s, down, battle, game, steal):
    """Seat s lays `down` cards (in a war), then looks, steals and plays: whether it played. A
    log short of room for the turn marks the game to be played again, and the seat plays no
    more."""
    if steal.state[SHORT] or not room_for_turn(game, 0, 0):
        steal.state[SHORT] = 1
        return False
    first = steal.state[TABLE_SIZE]
    if down > 0:  # Steal War keeps no pickup order: its cards' marks are not read
        steal.state[TABLE_SIZE] = lay_down(s, down, battle, ZERO, first, game)
    if steal.state[TABLE_SIZE] - first != down:
        return False
    return play_up(s, battle, game, steal)


# ---------------------------------------------------------------- a battle

@borrowing
def war_round(battle, tied, down, game, steal):
    """Each tied seat in turn lays `down` cards and plays; a seat that cannot is out, and when
    one tied seat is left it wins at once. The seats still in the war, into table.contenders:
    how many (StealGame.war_round)."""
    table, alive = game.table, game.seats.alive
    ready = 0
    for i in range(tied):
        s = table.tied[i]
        if take_turn(s, down, battle, game, steal):
            table.ready[ready] = s
            ready += 1
            continue
        knock_out(s, battle, game)
        left = 0
        last = NO_SEAT
        for j in range(tied):
            if alive[table.tied[j]]:
                left += 1
                last = table.tied[j]
        if left == 1:
            table.contenders[0] = last
            return 1
    for i in range(ready):
        table.contenders[i] = table.ready[i]
    return ready


@borrowing(inline="linked")
def settle(battle, contenders, game, steal):
    """Wars among the contenders tied for the best card until one card is best: (the winner,
    NO_SEAT when nobody is left, and how many wars it took) (StealGame.settle)."""
    rules, table, log = game.rules, game.table, game.log
    card_rank = rules.card_rank
    depth = 0
    while contenders > 0:
        best = -1
        for i in range(contenders):
            best = max(best, card_rank[table.face_up[table.contenders[i]]])
        tied = 0
        for i in range(contenders):
            s = table.contenders[i]
            if card_rank[table.face_up[s]] == best:
                table.tied[tied] = s
                tied += 1
        if tied == 1:
            return table.tied[0], depth
        depth += 1
        end = log.fill[SEATS]
        for s in range(rules.players):
            for i in range(tied):
                if table.tied[i] == s:
                    log.seat_values[end] = s
                    end += 1
        log.fill[SEATS] = end
        emit(log, battle, KIND_WAR, NO_SEAT, depth, NO_NOTE)
        down = 0 if rules.single_up and depth >= 2 else rules.cards_down
        contenders = war_round(battle, np.int64(tied), down, game, steal)
        if contenders <= 1:
            return (table.contenders[0] if contenders == 1 else NO_SEAT), depth
    return NO_SEAT, depth


@borrowing(inline="linked")
def pick_up(winner, battle, game, steal):
    """The winner chooses the table card on top of its bundle (a decision when the table holds
    more than one), and the bundle, that card then the rest in table order, goes on top of its
    won pile (StealGame.pick_up, Game.collect)."""
    seats, table, log = game.seats, game.table, game.log
    table_size = steal.state[TABLE_SIZE]
    top = 0
    if table_size > 1:
        top = choose_top(winner, table_size, game, steal)
        end = log.fill[CARDS]
        log.card_values[end] = table.cards[top]
        log.fill[CARDS] = end + 1
        push_cards(log, table.cards, 0, table_size)
        emit(log, battle, KIND_DECISION, winner, table_size, NOTE_TOP)
    bundle = table.pickup_order
    bundle[0] = table.cards[top]
    n = 1
    for i in range(table_size):
        if i != top:
            bundle[n] = table.cards[i]
            n += 1
    push_cards(log, bundle, 0, table_size)
    emit(log, battle, KIND_COLLECT, winner, 0, NO_NOTE)
    won = seats.won_size[winner]
    for i in range(table_size - 1, -1, -1):
        seats.won[winner, won] = bundle[i]
        won += 1
    seats.won_size[winner] = won


@borrowing(inline="linked")
def open_battle(battle, first, game, steal):
    """Every seat still in, in turn from `first`, looks, may steal and plays; a seat with no
    card is out. The seats that played, into table.contenders: how many."""
    players = game.rules.players
    alive, table = game.seats.alive, game.table
    contenders = 0
    for k in range(players):
        s = first + k
        if s >= players:
            s -= players
        if not alive[s]:
            continue
        if take_turn(s, 0, battle, game, steal):
            table.contenders[contenders] = s
            contenders += 1
        else:
            knock_out(s, battle, game)
    return contenders
