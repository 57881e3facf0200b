"""One battle, compiled: the seats play a card each, wars settle the ties, the winner collects
the table (engines.table.reference's TableGame, step for step, with the same events). Every step takes
the game's state (state.Game)."""

from __future__ import annotations

import numpy as np

from ..compiled.layout import (
    KIND_COLLECT, KIND_DOWN, KIND_FORFEIT, KIND_OUT, KIND_PLAY, KIND_WAR, KIND_WAR_OUT, NO_NOTE,
    NO_SEAT, PICKUP_POOLED, PICKUP_SHUFFLED,
)
from ..compiled.moves import (
    draw, emit, lay_holdings, ordered_by_key, push_cards, push_seats, take, take_top, write_event,
)
from ..compiled.rng import _bounded, _shuffle
from ..compiled.jit import borrowing
from ..compiled.state import CARDS, LAID, ROWS, SEATS, ZERO, most_cards_per_battle, most_events_per_battle


@borrowing(inline="linked")
def lay_face_up(s, battle, depth, table_size, game):
    """Seat s plays its top card face up, in the war of this depth (0: the battle's card);
    returns the new table size."""
    table = game.table
    card = draw(s, battle, game)
    table.cards[table_size] = card
    table.owners[table_size] = s
    table.marks[table_size] = 2 * depth + 1
    table.face_up[s] = card
    push_cards(game.log, table.cards, table_size, table_size + 1)
    emit(game.log, battle, KIND_PLAY, s, 0, NO_NOTE)
    return table_size + 1


@borrowing(inline="linked")
def open_battle(battle, game):
    """Every seat still in the game plays a card: returns (contenders, table size)."""
    table = game.table
    contenders = ZERO
    for s in range(game.rules.players):
        if game.seats.alive[s]:
            table.contenders[contenders] = s
            contenders += 1
    table_size = ZERO
    for i in range(contenders):
        table_size = lay_face_up(table.contenders[i], battle, ZERO, table_size, game)
    return contenders, table_size


@borrowing(inline="linked")
def highest_ties(contenders, game):
    """The contenders whose face-up card has the highest rank, into table.tied: returns (how
    many, that rank)."""
    card_rank = game.rules.card_rank
    table = game.table
    best = np.int64(-1)
    for i in range(contenders):
        rank = card_rank[table.face_up[table.contenders[i]]]
        if rank > best:
            best = rank
    tied = ZERO
    for i in range(contenders):
        s = table.contenders[i]
        if card_rank[table.face_up[s]] == best:
            table.tied[tied] = s
            tied += 1
    return tied, best


@borrowing(inline="linked")
def cards_down(rank, depth, rules):
    """Cards each seat puts face down in a war of this depth over this rank."""
    if rules.single_up and depth >= 2:
        return 0
    if rules.down_by_rank:
        return rules.rank_value[rank] - 1
    return rules.cards_down


@borrowing
def forfeit(s, battle, depth, table_size, game):
    """Seat s cannot finish the war of this depth: its pile (top first), then its won pile (top
    first), go on the table, and it is out. Returns the new table size."""
    first = table_size
    table_size = lay_holdings(s, depth, table_size, game)
    game.seats.alive[s] = False
    push_cards(game.log, game.table.cards, first, table_size)
    emit(game.log, battle, KIND_FORFEIT, s, 0, NO_NOTE)
    emit(game.log, battle, KIND_OUT, s, 0, NO_NOTE)
    return table_size


@borrowing(inline="linked")
def put_down(s, count, battle, depth, table_size, game):
    """Seat s puts `count` cards face down in the war of this depth, logged as one down event,
    or two when its pile runs out and its won pile is reshuffled in between. Returns the new
    table size."""
    table = game.table
    first = table_size
    for _ in range(count):
        if game.seats.pile_size[s] == 0 and table_size > first:
            push_cards(game.log, table.cards, first, table_size)
            emit(game.log, battle, KIND_DOWN, s, 0, NO_NOTE)
            first = table_size
        table.cards[table_size] = draw(s, battle, game)
        table.owners[table_size] = s
        table.marks[table_size] = 2 * depth
        table_size += 1
    push_cards(game.log, table.cards, first, table_size)
    emit(game.log, battle, KIND_DOWN, s, 0, NO_NOTE)
    return table_size


@borrowing(inline="linked")
def war_round(battle, depth, tied, rank, table_size, game):
    """A war among the `tied` seats (table.tied): each runs out of it, forfeits (shortfall=lose)
    or is ready; when two seats or more are ready, each puts cards down and plays one up.
    Returns (seats ready, table size); the ready seats are in table.ready."""
    seats, table = game.seats, game.table
    push_seats(game.log, table.tied, tied)
    emit(game.log, battle, KIND_WAR, NO_SEAT, depth, NO_NOTE)
    down = cards_down(rank, depth, game.rules)
    ready = ZERO
    for i in range(tied):
        s = table.tied[i]
        holds = seats.pile_size[s] + seats.won_size[s]
        if holds == 0:
            emit(game.log, battle, KIND_WAR_OUT, s, 0, NO_NOTE)
        elif game.rules.shortfall_loses and holds <= down:
            table_size = forfeit(s, battle, depth, table_size, game)
        else:
            table.ready[ready] = s
            ready += 1
    if ready > 1:
        for i in range(ready):
            s = table.ready[i]
            count = min(down, seats.pile_size[s] + seats.won_size[s] - 1)
            if count > 0:
                table_size = put_down(s, count, battle, depth, table_size, game)
            table_size = lay_face_up(s, battle, depth, table_size, game)
    return ready, table_size


@borrowing(inline="linked")
def settle(battle, contenders, table_size, game):
    """Wars until one seat's card is the highest: returns (the winner, or NO_SEAT when no seat
    is left in the war; the war depth; the table size)."""
    table = game.table
    depth = ZERO
    while True:
        tied, rank = highest_ties(contenders, game)
        if tied == 1:
            return table.tied[0], depth, table_size
        depth += 1
        ready, table_size = war_round(battle, depth, tied, rank, table_size, game)
        if ready <= 1:
            return table.ready[0] if ready == 1 else NO_SEAT, depth, table_size
        for i in range(ready):
            table.contenders[i] = table.ready[i]
        contenders = ready


@borrowing(inline="linked")
def collect(winner, battle, table_size, game):
    """The winner collects the table in the rule set's pickup order."""
    table = game.table
    cards = table.cards
    rules = game.rules
    if rules.pickup == PICKUP_SHUFFLED:
        _shuffle(game.rng, cards, table_size)
    elif rules.pickup_key.shape[0] > 0:  # a fixed order's key (the others take the cards as they lie)
        cards = table.pickup_order
        ordered_by_key(table, ZERO, table_size, winner, rules.card_rank, rules.pickup_key, cards)
    take(winner, cards, table_size, battle, game)


@borrowing(inline="linked")
def retire_empty(battle, game):
    """The seats left without cards are out: returns (seats still in, the first of them)."""
    seats = game.seats
    for s in range(game.rules.players):
        if seats.alive[s] and seats.pile_size[s] + seats.won_size[s] == 0:
            seats.alive[s] = False
            emit(game.log, battle, KIND_OUT, s, 0, NO_NOTE)
    alive = ZERO
    first = NO_SEAT
    for s in range(game.rules.players):
        if seats.alive[s]:
            alive += 1
            if first < 0:
                first = s
    return alive, first


@borrowing(inline="linked")
def duel(battle, game):
    """The cards of a two-seat battle that needs no war and no reshuffle (both piles hold a card,
    the two ranks differ), most battles of a two-seat game: each seat plays its top card, with
    the moves and events of open_battle, and the higher card's seat wins, as settle would say,
    without their loops over seats. Returns the winner (the table holds the two cards), or
    NO_SEAT, having done nothing, for any other battle."""
    seats, table, log = game.seats, game.table, game.log
    if game.rules.players != 2 or seats.pile_size[0] == 0 or seats.pile_size[1] == 0:
        return NO_SEAT
    first = seats.pile[0, seats.pile_head[0]]
    second = seats.pile[1, seats.pile_head[1]]
    first_rank, second_rank = game.rules.card_rank[first], game.rules.card_rank[second]
    if first_rank == second_rank:
        return NO_SEAT
    for s in range(2):
        table.cards[s] = take_top(s, game.rules, seats, game.positions)
        table.owners[s] = s
        table.marks[s] = 1
        push_cards(log, table.cards, s, s + 1)
        emit(log, battle, KIND_PLAY, s, 0, NO_NOTE)
    return 0 if first_rank > second_rank else 1


@borrowing(inline="linked")
def duels(played, most, game):
    """Up to `most` duels after battle `played`, one after another, while each leaves both seats
    in the game (the loser holds another card): each is the battle `duel` and `collect` play,
    with the same moves, draws and events, its pickup one of the orders that put the two cards
    in a fixed or a shuffled order. Only while the game does not look for cycles: the piles'
    hashes do not follow. Returns how many were played (0 for the battles `duel` does not
    play, and for three seats or more, or a pooled pickup).

    The run keeps the piles' heads and sizes and the log's fill in local variables, and indexes
    its arrays with unsigned numbers: numba tests a signed index for a negative value first,
    on the chain of loads each duel waits on (a tenth of a games-only run's time)."""
    rules, seats, log = game.rules, game.seats, game.log
    shuffled = rules.pickup == PICKUP_SHUFFLED
    if rules.players != 2 or rules.detect_cycles or rules.pickup == PICKUP_POOLED:
        return ZERO
    # a fixed order's, by the duel's winner (engine.duel_order)
    seat_order_0, seat_order_1 = rules.duel_order[0] != 0, rules.duel_order[1] != 0
    rows, card_values, card_rank, pile = log.rows, log.card_values, rules.card_rank, seats.pile
    row, card, seats_end = log.fill[ROWS], log.fill[CARDS], log.fill[SEATS]
    # room for the run's events (three rows and four cards a duel), and after it a battle and the end
    most = min(most, (rows.shape[0] - row - most_events_per_battle(2, rules.deck_size)) // 3,
               (card_values.shape[0] - card - most_cards_per_battle(rules.deck_size)) // 4)
    mask = pile.shape[1] - 1
    head0, head1 = seats.pile_head[0], seats.pile_head[1]
    size0, size1 = seats.pile_size[0], seats.pile_size[1]
    ran = ZERO
    while ran < most and size0 > 0 and size1 > 0:
        first, second = pile[0, np.uint64(head0)], pile[1, np.uint64(head1)]
        first_rank, second_rank = card_rank[np.uint32(first)], card_rank[np.uint32(second)]
        if first_rank == second_rank or (size1 if first_rank > second_rank else size0) <= 1:
            break  # a war, or the loser's last card (a duel's loser holds no won pile)
        ran += 1
        battle = played + ran
        head0, head1 = (head0 + 1) & mask, (head1 + 1) & mask
        size0 -= 1
        size1 -= 1
        card_values[np.uint64(card)] = first
        write_event(rows, np.uint64(row), battle, KIND_PLAY, 0, 0, NO_NOTE, card + 1, seats_end)
        card_values[np.uint64(card + 1)] = second
        write_event(rows, np.uint64(row + 1), battle, KIND_PLAY, 1, 0, NO_NOTE, card + 2, seats_end)
        winner = np.int64(second_rank > first_rank)
        if shuffled:  # collect's shuffle of the table (first, second): one draw swaps them or not
            in_seat_order = _bounded(game.rng, np.uint64(2)) == 1
        else:
            in_seat_order = seat_order_1 if winner else seat_order_0
        under = first if in_seat_order else second
        over = second if in_seat_order else first
        end = (head1 + size1 if winner else head0 + size0)  # the winner's pile's end (selects, no branch)
        pile[np.uint64(winner), np.uint64(end & mask)] = under
        pile[np.uint64(winner), np.uint64((end + 1) & mask)] = over
        size0 += 2 - 2 * winner
        size1 += 2 * winner
        card_values[np.uint64(card + 2)] = under
        card_values[np.uint64(card + 3)] = over
        write_event(rows, np.uint64(row + 2), battle, KIND_COLLECT, winner, 0, NO_NOTE, card + 4, seats_end)
        row += 3
        card += 4
    seats.pile_head[0], seats.pile_head[1] = head0, head1
    seats.pile_size[0], seats.pile_size[1] = size0, size1
    log.fill[ROWS], log.fill[CARDS] = row, card
    log.fill[LAID] += 2 * ran
    return ran
