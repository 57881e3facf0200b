"""One game, compiled: the deal, the battles until the game ends, its summary (engines.table.play_table,
which stays the definition of the rules, translated to numba over state.py's arrays)."""

from __future__ import annotations

import numpy as np

from .battle import collect, duel, open_battle, retire_empty, set_aside, settle
from .cycles import earlier_position, room_for_position, room_in_streams
from .jit import borrowing
from .layout import (
    KIND_DEAL,
    KIND_END,
    KIND_SET_ASIDE,
    NO_NOTE,
    NO_SEAT,
    OUTCOME_CAPPED,
    OUTCOME_CYCLE,
    OUTCOME_DRAW,
    OUTCOME_WIN,
    SUMMARY_BATTLES,
    SUMMARY_CARDS_SET_ASIDE,
    SUMMARY_CYCLE_LENGTH,
    SUMMARY_EVENTS,
    SUMMARY_FIRST_BATTLE_WAR,
    SUMMARY_MAX_WAR_DEPTH,
    SUMMARY_OUTCOME,
    SUMMARY_WAR_BATTLES,
    SUMMARY_WARS,
    SUMMARY_WINNER,
)
from .moves import emit, push_cards, start_pile
from .rng import _seed, _shuffle
from .state import (
    CARDS,
    ROWS,
    SEATS,
    ZERO,
    most_cards_per_battle,
    most_events_per_battle,
    most_seats_per_battle,
)

# What play_game returns: the game is played, or a buffer must grow before it is played again,
# or (LOOK_FOR_CYCLES) a game played without looking for cycles reached its watch and must be
# played again looking for them (table.play_games).
DONE, GROW_EVENTS, GROW_POSITIONS, GROW_STREAMS, LOOK_FOR_CYCLES = range(5)


@borrowing
def deal(index, game_seed, deals, game):
    """The game's generator seeded; the deck shuffled and dealt one card a seat in turn, the cards
    left over set aside; or, when `deals` holds explicit deals, game `index`'s piles and cards set
    aside as given (the generator then only serves later shuffles). Returns how many cards are
    set aside."""
    rules, seats, positions, log = game.rules, game.seats, game.positions, game.log
    players, deck_size = rules.players, rules.deck_size
    deck = game.table.deck
    _seed(game.rng, game_seed)
    explicit = deals.sizes.shape[0] > 0
    if explicit:
        for i in range(deck_size):
            deck[i] = deals.cards[index, i]
    else:
        for i in range(deck_size):
            deck[i] = i
        _shuffle(game.rng, deck, deck_size)
    dealt = ZERO
    for s in range(players):
        size = deals.sizes[index, s] if explicit else deck_size // players
        seats.pile_head[s] = 0
        seats.pile_size[s] = size
        seats.won_size[s] = 0
        seats.alive[s] = True
        seats.war_wins[s] = 0
        for i in range(size):
            seats.pile[s, i] = deck[dealt + i] if explicit else deck[s + i * players]
        dealt += size
        start_pile(s, seats.pile[s], size, rules, positions)
        push_cards(log, seats.pile[s], 0, size)
        emit(log, 0, KIND_DEAL, s, 0, NO_NOTE)
    if dealt < deck_size:
        push_cards(log, deck, dealt, deck_size)
        emit(log, 0, KIND_SET_ASIDE, NO_SEAT, 0, NO_NOTE)
    return deck_size - dealt


@borrowing(inline="always")
def room_for_battle(rules, log):
    """Whether the log holds one more battle and the end event, whatever happens in it."""
    players, deck_size = rules.players, rules.deck_size
    return (log.fill[ROWS] + most_events_per_battle(players, deck_size) <= log.rows.shape[0]
            and log.fill[CARDS] + most_cards_per_battle(deck_size) <= log.card_values.shape[0]
            and log.fill[SEATS] + most_seats_per_battle(players, deck_size) <= log.seat_values.shape[0])


@borrowing(inline="always")
def count_war(battle, depth, wars, war_battles, max_war_depth, first_battle_war):
    """A battle's wars (a double war counts 2) added to the game's totals (Summary.count_war):
    returns (wars, war battles, deepest war, whether battle 1 had one)."""
    if depth:
        wars += depth
        war_battles += 1
        max_war_depth = max(max_war_depth, depth)
        if battle == 1:
            first_battle_war = 1
    return wars, war_battles, max_war_depth, first_battle_war


@borrowing
def end_game(index, battle, outcome, winner, wars, war_battles, max_war_depth, first_battle_war,
             cards_set_aside, cycle_length, first_event, game, results):
    """The end event, and the game's summary (layout.SUMMARY_COLUMNS; its events are those of the
    log from `first_event`), each seat's war wins and cards at the end into results[index]: what
    every compiled engine writes when a game is over."""
    seats, log = game.seats, game.log
    for s in range(game.rules.players):
        results.final_cards[index, s] = seats.pile_size[s] + seats.won_size[s]
        results.war_wins[index, s] = seats.war_wins[s]
    emit(log, battle, KIND_END, winner, battle, outcome)
    summary = results.summaries[index]
    summary[SUMMARY_OUTCOME] = outcome
    summary[SUMMARY_WINNER] = winner
    summary[SUMMARY_BATTLES] = battle
    summary[SUMMARY_WARS] = wars
    summary[SUMMARY_WAR_BATTLES] = war_battles
    summary[SUMMARY_MAX_WAR_DEPTH] = max_war_depth
    summary[SUMMARY_FIRST_BATTLE_WAR] = first_battle_war
    summary[SUMMARY_CARDS_SET_ASIDE] = cards_set_aside
    summary[SUMMARY_CYCLE_LENGTH] = cycle_length
    summary[SUMMARY_EVENTS] = log.fill[ROWS] - first_event


@borrowing
def play_game(index, game_seed, attempt, watch, deals, game, results):
    """Play one game, number `index` of `results`, appending its events to the log and writing its
    summary (layout.SUMMARY_COLUMNS), war wins and final cards; its deal is deals' row `index`
    when `deals` has rows (state.Deals), else shuffled from its seed. Returns DONE, or the buffer to
    grow before the game is played again from its start (its events are then dropped by the
    caller), or LOOK_FOR_CYCLES when `watch` battles were played and the game has not ended
    (a game played without looking for cycles, see table.play_games). `attempt` numbers the
    calls with these positions (see cycles.py)."""
    rules, seats, positions, log = game.rules, game.seats, game.positions, game.log
    if (log.fill[ROWS] + rules.players + 2 > log.rows.shape[0]
            or log.fill[CARDS] + rules.deck_size > log.card_values.shape[0]):
        return GROW_EVENTS
    first_event = log.fill[ROWS]
    cards_set_aside = deal(index, game_seed, deals, game)
    wars = war_battles = max_war_depth = first_battle_war = ZERO
    cycle_length = np.int64(-1)
    positions_stored = ZERO
    battle = ZERO
    while True:
        if not room_for_battle(rules, log):
            return GROW_EVENTS
        if battle >= watch:
            return LOOK_FOR_CYCLES
        if battle >= rules.max_battles:
            outcome, winner = OUTCOME_CAPPED, NO_SEAT
            break
        if rules.detect_cycles:
            if not room_for_position(positions, positions_stored):
                return GROW_POSITIONS
            if not room_in_streams(rules, positions):
                return GROW_STREAMS
            earlier = earlier_position(rules, seats, positions, positions_stored, attempt)
            if earlier >= 0:
                outcome, winner = OUTCOME_CYCLE, NO_SEAT
                cycle_length = battle - earlier
                break
            positions_stored += 1
        battle += 1

        winner = duel(battle, game)
        if winner != NO_SEAT:
            depth, table_size = ZERO, np.int64(2)
        else:
            contenders, table_size = open_battle(battle, game)
            winner, depth, table_size = settle(battle, contenders, table_size, game)
            wars, war_battles, max_war_depth, first_battle_war = count_war(battle, depth, wars, war_battles,
                                                                           max_war_depth, first_battle_war)
        if winner == NO_SEAT:
            cards_set_aside += table_size
            set_aside(battle, table_size, game)
        else:
            collect(winner, battle, table_size, game)
            if depth:
                seats.war_wins[winner] += 1
                if 0 < rules.wars_to_win <= seats.war_wins[winner]:
                    outcome = OUTCOME_WIN
                    break
        if rules.players == 2 and not depth and seats.pile_size[1 - winner] + seats.won_size[1 - winner] > 0:
            continue  # no war, two seats: only the loser could be out, and it is not
        alive, first_alive = retire_empty(battle, game)
        if alive <= 1:
            outcome, winner = (OUTCOME_WIN, first_alive) if alive == 1 else (OUTCOME_DRAW, NO_SEAT)
            break

    end_game(index, battle, outcome, winner, wars, war_battles, max_war_depth, first_battle_war, cards_set_aside,
             cycle_length, first_event, game, results)
    return DONE
