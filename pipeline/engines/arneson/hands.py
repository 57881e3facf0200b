"""Arneson's War's compiled hands and wars (engines.arneson.reference's ArnesonGame, step for
step): the family's state besides the shared one, the hands (kept sorted by card code, which is
the order of a decision's options), the choice of a hand card by the seat's policy code, the
battle's cards and draws, the wars with the fourth card from the hand, and the two packets of a
war's collect.

A decision's options are logged after its card in card_values, and its value column holds how
many there are (log.compiled_codec reads them so). The reference's decision also has a value,
the depth of the war it is in; that depth is the value of the row's last war event before it
(0 in none), which is how log.compiled_codec spells it.

A battle logs a bounded number of events whatever the deck (a war takes a hand card from each
seat, and hands are refilled only after the whole war, so a battle has at most four wars): the
log is checked for room before each battle (room_for).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..compiled.jit import borrowing
from ..compiled.layout import (
    KIND_DECISION, KIND_FORFEIT, KIND_OUT, KIND_PLAY, KIND_WAR, KIND_WAR_OUT, NO_NOTE, NO_SEAT,
    PICKUP_SHUFFLED, kind_code, note_code,
)
from ..compiled.loop import (
    play_games,  # noqa: F401  (the games' entry point, as every engine module names it)
    )
from ..compiled.moves import emit, lay_down, lay_holdings, ordered_by_key, push_cards, reshuffle, take, take_top
from ..compiled.rng import _bounded, _shuffle
from ..compiled.state import CARDS, ROWS, SEATS, ZERO
from .reference import WAR_DOWN

# The family's own codes in the events array (layout): its kind and its decision's note, module
# globals the engine reads as constants.
KIND_DRAW = kind_code("draw")
NOTE_HAND = note_code("hand")

# Policy codes: policies.hand_random, hand_highest, hand_lowest, hand_save_high.
HAND_RANDOM, HAND_HIGHEST, HAND_LOWEST, HAND_SAVE_HIGH = range(4)
HAND_CODES = {"random": HAND_RANDOM, "highest": HAND_HIGHEST, "lowest": HAND_LOWEST, "save_high": HAND_SAVE_HIGH}
POLICY_SEED_MASK = np.uint64(0x5EA75EA75EA75EA7)  # model.rng.policy_seed
HAND_SIZE = 3  # rules 7.1; RuleSet.hand_size allows no other
PLAYERS = 2

# The most one battle logs (see the module's docstring): rows, cards beyond 8 per deck card, seats.
BATTLE_ROWS, BATTLE_CARDS, BATTLE_SEATS = 128, 128, 16


class Arneson(NamedTuple):
    """What Arneson's War keeps besides the table engine's state."""

    policy: np.ndarray          # int64 [2]: each seat's hand policy code
    policy_rng: np.ndarray      # uint64 [2, 4]: each seat's policy generator
    hands: np.ndarray           # int32 [2, HAND_SIZE]: each seat's hand, sorted by card code
    hand_size: np.ndarray       # int64 [2]
    stored_hands: np.ndarray    # int32 [positions, 2 * HAND_SIZE]: the hands of each stored position as ranks, -1 past the end
    state: np.ndarray           # int64 [1]: the table's size


TABLE_SIZE = 0


# ---------------------------------------------------------------- the log's room

@borrowing(inline="linked")
def room_for(rows, cards, game):
    """Whether the log holds `rows` and `cards` more, and one more battle."""
    log = game.log
    return (log.fill[ROWS] + rows + BATTLE_ROWS <= log.rows.shape[0]
            and log.fill[CARDS] + cards + 8 * game.rules.deck_size + BATTLE_CARDS <= log.card_values.shape[0]
            and log.fill[SEATS] + BATTLE_SEATS <= log.seat_values.shape[0])


# ---------------------------------------------------------------- hands

@borrowing(inline="linked")
def into_hand(s, card, arn):
    """`card` joins seat s's hand, in code order."""
    i = arn.hand_size[s]
    while i > 0 and arn.hands[s, i - 1] > card:
        arn.hands[s, i] = arn.hands[s, i - 1]
        i -= 1
    arn.hands[s, i] = card
    arn.hand_size[s] += 1


@borrowing(inline="linked")
def from_hand(s, i, arn):
    """Seat s's hand card number i, taken out of its hand."""
    card = arn.hands[s, i]
    size = arn.hand_size[s] - 1
    for j in range(i, size):
        arn.hands[s, j] = arn.hands[s, j + 1]
    arn.hand_size[s] = size
    return card


@borrowing
def draw_cards(s, count, battle, game, arn):
    """Up to `count` cards from seat s's pile into its hand, reshuffling its won pile into the
    pile when it runs out: one `draw` event for each run between reshuffles (Game.take_cards)."""
    seats, log = game.seats, game.log
    end = log.fill[CARDS]
    run = 0
    for _ in range(count):
        if seats.pile_size[s] == 0:
            if run:
                log.fill[CARDS] = end
                emit(log, battle, KIND_DRAW, s, 0, NO_NOTE)
                run = 0
            if seats.won_size[s] == 0:
                break
            reshuffle(s, battle, game)
            end = log.fill[CARDS]
        card = take_top(s, game.rules, seats, game.positions)
        log.card_values[end] = card
        end += 1
        run += 1
        into_hand(s, card, arn)
    if run:
        log.fill[CARDS] = end
        emit(log, battle, KIND_DRAW, s, 0, NO_NOTE)


@borrowing
def refill_short_hands(battle, game, arn):
    """Each seat draws back to a full hand, as far as its cards go (ArnesonGame.refill_hands):
    where a hand can be short other than after a battle's cards are played (the deal, before a
    battle, after a war), called rather than inlined."""
    for s in range(PLAYERS):
        short = HAND_SIZE - arn.hand_size[s]
        if short:
            draw_cards(s, short, battle, game, arn)


@borrowing(inline="linked")
def refill_hands(battle, game, arn):
    """Each seat draws back to a full hand, as far as its cards go (ArnesonGame.refill_hands),
    after both played a card: inlined when the pile holds them all."""
    seats, log = game.seats, game.log
    for s in range(PLAYERS):
        short = HAND_SIZE - arn.hand_size[s]
        if short == 0:
            continue
        if seats.pile_size[s] < short:
            draw_cards(s, short, battle, game, arn)
            continue
        end = log.fill[CARDS]  # the pile holds them all: one draw, inlined (a call passes the whole state)
        for i in range(short):
            card = take_top(s, game.rules, seats, game.positions)
            log.card_values[end + i] = card
            into_hand(s, card, arn)
        log.fill[CARDS] = end + short
        emit(log, battle, KIND_DRAW, s, 0, NO_NOTE)


@borrowing(inline="linked")
def choose(s, depth, game, arn):
    """The hand position of the card seat s's policy plays (policies.hand_random, hand_highest,
    hand_lowest, hand_save_high: the first of equal ranks)."""
    code = arn.policy[s]
    size = arn.hand_size[s]
    if code == HAND_RANDOM:
        return np.int64(_bounded(arn.policy_rng[s], np.uint64(size)))
    if code == HAND_SAVE_HIGH:
        code = HAND_HIGHEST if depth > 0 else HAND_LOWEST
    card_rank = game.rules.card_rank
    best = 0
    best_rank = card_rank[arn.hands[s, 0]]
    for i in range(1, size):
        r = card_rank[arn.hands[s, i]]
        if r > best_rank if code == HAND_HIGHEST else r < best_rank:
            best, best_rank = i, r
    return np.int64(best)


@borrowing(inline="linked")
def play_hands(battle, depth, game, arn):
    """Both seats choose a card (a decision each, its options the hand), then both play it face
    up (ArnesonGame.play_hands). The two cards."""
    table, log = game.table, game.log
    chosen0 = choose(0, depth, game, arn)
    chosen1 = choose(1, depth, game, arn)
    for s in range(PLAYERS):
        i = chosen0 if s == 0 else chosen1
        size = arn.hand_size[s]
        end = log.fill[CARDS]
        log.card_values[end] = arn.hands[s, i]
        for j in range(size):
            log.card_values[end + 1 + j] = arn.hands[s, j]
        log.fill[CARDS] = end + 1 + size
        emit(log, battle, KIND_DECISION, s, size, NOTE_HAND)
    table_size = arn.state[TABLE_SIZE]
    up0 = from_hand(0, chosen0, arn)
    up1 = from_hand(1, chosen1, arn)
    for s in range(PLAYERS):
        table.cards[table_size] = up0 if s == 0 else up1
        table.owners[table_size] = s
        table.marks[table_size] = 2 * depth + 1
        push_cards(log, table.cards, table_size, table_size + 1)
        emit(log, battle, KIND_PLAY, s, 0, NO_NOTE)
        table_size += 1
    arn.state[TABLE_SIZE] = table_size
    return up0, up1


# ---------------------------------------------------------------- wars

@borrowing
def forfeit(s, battle, depth, game, arn):
    """Seat s puts all it holds on the table (its pile, its won pile, both top first, then its
    hand in code order) without reshuffling, and is out (Game.forfeit, ArnesonGame.surrender)."""
    seats, table, log = game.seats, game.table, game.log
    first = arn.state[TABLE_SIZE]
    table_size = lay_holdings(s, depth, first, game)
    for i in range(arn.hand_size[s]):
        table.cards[table_size] = arn.hands[s, i]
        table.owners[table_size] = s
        table.marks[table_size] = 2 * depth
        table_size += 1
    arn.hand_size[s] = 0
    seats.alive[s] = False
    arn.state[TABLE_SIZE] = table_size
    push_cards(log, table.cards, first, table_size)
    emit(log, battle, KIND_FORFEIT, s, 0, NO_NOTE)
    emit(log, battle, KIND_OUT, s, 0, NO_NOTE)


@borrowing
def wars(battle, up0, up1, game, arn):
    """Wars while the two cards tie (ArnesonGame.wars): (the winner, NO_SEAT when neither seat
    can go on; how many wars it took; whether a seat went out of the game in them)."""
    rules, seats, log = game.rules, game.seats, game.log
    card_rank = rules.card_rank
    depth = ZERO
    while card_rank[up0] == card_rank[up1]:
        depth += 1
        end = log.fill[SEATS]
        log.seat_values[end] = 0
        log.seat_values[end + 1] = 1
        log.fill[SEATS] = end + 2
        emit(log, battle, KIND_WAR, NO_SEAT, depth, NO_NOTE)
        down = 0 if rules.single_up and depth >= 2 else WAR_DOWN
        ready = 0
        last = NO_SEAT
        for s in range(PLAYERS):  # ArnesonGame.join_war
            if rules.shortfall_loses and seats.pile_size[s] + seats.won_size[s] < down:
                forfeit(s, battle, depth, game, arn)
            elif arn.hand_size[s] == 0:
                emit(log, battle, KIND_WAR_OUT, s, 0, NO_NOTE)
                seats.alive[s] = False
                emit(log, battle, KIND_OUT, s, 0, NO_NOTE)
            else:
                ready += 1
                last = s
        if ready <= 1:
            return (last if ready == 1 else NO_SEAT), depth, True
        for s in range(PLAYERS):
            arn.state[TABLE_SIZE] = lay_down(s, down, battle, depth, arn.state[TABLE_SIZE], game)
        up0, up1 = play_hands(battle, depth, game, arn)
    return (0 if card_rank[up0] > card_rank[up1] else 1), depth, False


# ---------------------------------------------------------------- collecting

@borrowing(inline="linked")
def collect(s, first, stop, battle, game):
    """Seat s collects table cards first..stop-1 in `pickup` order (ArnesonGame.pickup_order,
    Game.collect): under its pile, or on top of its won pile under `pooled`."""
    rules, table = game.rules, game.table
    cards = table.pickup_order
    count = ZERO
    if rules.pickup_key.shape[0] > 0:  # a fixed order's key (the others take the cards as they lie)
        ordered_by_key(table, np.int64(first), np.int64(stop), np.int64(s), rules.card_rank, rules.pickup_key, cards)
        count = stop - first
    else:
        for i in range(first, stop):
            cards[count] = table.cards[i]
            count += 1
        if rules.pickup == PICKUP_SHUFFLED:
            _shuffle(game.rng, cards, count)
    take(s, cards, count, battle, game)


@borrowing
def collect_packet(s, first, stop, battle, game):
    """collect, called: a war's packets, rarer than a battle's two cards."""
    collect(s, first, stop, battle, game)


@borrowing(inline="linked")
def eliminate(battle, game, arn):
    """Seats holding no card are out (Summary.eliminate): (seats left, the last of them)."""
    seats = game.seats
    left = ZERO
    last = NO_SEAT
    for s in range(PLAYERS):
        if seats.alive[s]:
            if seats.pile_size[s] + seats.won_size[s] + arn.hand_size[s] > 0:
                left += 1
                last = s
            else:
                seats.alive[s] = False
                emit(game.log, battle, KIND_OUT, s, 0, NO_NOTE)
    return left, last
