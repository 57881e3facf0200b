"""One game, compiled: the deal, the battles until the game ends, its summary (engines.table.play_table,
which stays the definition of the rules, translated to numba over state.py's arrays)."""

from __future__ import annotations


from .jit import borrowing
from .layout import (
    KIND_DEAL,
    KIND_END,
    KIND_SET_ASIDE,
    NO_NOTE,
    NO_SEAT,
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
