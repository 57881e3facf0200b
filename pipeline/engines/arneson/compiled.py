"""The compiled engine of Arneson's War: games of a rule set and seats' hand policies played into
the same flat arrays as the table family's (layout.GameArrays), event for event the games of
`engines.arneson.ArnesonGame`, the readable reference that stays the definition of the rules.

It shares the table engine's state (state.Game: the piles as ring buffers with their hashes
and streams for cycle detection, each won pile a stack whose top is its end), its deal, its
moves (a card taken, cards put under a pile, a reshuffle, an event logged) and its end of game;
what is Arneson's War's own is here: the hands (kept sorted by card code, which is the order of
a decision's options), the choice of a hand card, the battle with its draws, the wars with the
fourth card from the hand, the two packets of a war's collect, and the position that includes
the hands.

Policies are data: each seat's built-in hand policy is a code (`compile_policies`), read by
`choose`, which draws from the seat's own generator exactly as policies.hand_random does. A
policy the codes do not name has no compiled form, and its games go through the reference
(`fits`).

A decision's options are logged after its card in card_values, and its value column holds how
many there are (log.compiled_codec reads them so). The reference's decision also has a value,
the depth of the war it is in; that depth is the value of the row's last war event before it
(0 in none), which is how log.compiled_codec spells it.

A battle logs a bounded number of events whatever the deck (a war takes a hand card from each
seat, and hands are refilled only after the whole war, so a battle has at most four wars): the
log is checked for room before each battle, and when it is short the game is played again from
its start in a larger one, as the table engine does.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...model.schema import EVENT_KINDS, RuleSet
from .reference import WAR_DOWN
from ..game import resolve_policies
from ..play import FIXED_PICKUPS
from ..compiled.loop import DONE, GROW_EVENTS, GROW_POSITIONS, GROW_STREAMS, count_war, deal, end_game
from ..compiled.layout import (
    KIND_COLLECT,
    KIND_DECISION,
    KIND_DOWN,
    KIND_FORFEIT,
    KIND_OUT,
    KIND_PLAY,
    KIND_SET_ASIDE,
    KIND_WAR,
    KIND_WAR_OUT,
    MAX_CARD,
    NO_NOTE,
    NO_SEAT,
    NOTE_HAND,
    OUTCOME_CAPPED,
    OUTCOME_CYCLE,
    OUTCOME_DRAW,
    OUTCOME_WIN,
    PICKUP_POOLED,
    PICKUP_SHUFFLED,
    PICKUP_WINNER_FIRST,
    GameArrays,
)
from ..compiled.moves import emit, push_cards, put_under, reshuffle, take_top
from ..compiled.jit import HAVE_NUMBA, borrowing, njit
from ..compiled.rng import HASH_START, _bounded, _fold, _game_seed, _mix, _seed, _shuffle
from ..compiled.state import (
    CARDS,
    ROWS,
    SEATS,
    ZERO,
    Workspace,
    grown_event_log,
    new_results,
    with_longer_streams,
    with_more_positions,
)
from ..table.compiled import compile_rules as table_rules
from ..table.compiled import deal_arrays

# Policy codes: policies.hand_random, hand_highest, hand_lowest, hand_save_high.
HAND_RANDOM, HAND_HIGHEST, HAND_LOWEST, HAND_SAVE_HIGH = range(4)
HAND_CODES = {"random": HAND_RANDOM, "highest": HAND_HIGHEST, "lowest": HAND_LOWEST, "save_high": HAND_SAVE_HIGH}
POLICY_SEED_MASK = np.uint64(0x5EA75EA75EA75EA7)  # model.rng.policy_seed
KIND_DRAW = EVENT_KINDS.index("draw")
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
    stored_hands: np.ndarray    # int32 [positions, 2 * HAND_SIZE]: the hands of each stored position, -1 past the end
    state: np.ndarray           # int64 [1]: the table's size


TABLE_SIZE = 0


# ---------------------------------------------------------------- the log's room

@borrowing(inline="always")
def room_for(rows, cards, game):
    """Whether the log holds `rows` and `cards` more, and one more battle."""
    log = game.log
    return (log.fill[ROWS] + rows + BATTLE_ROWS <= log.rows.shape[0]
            and log.fill[CARDS] + cards + 8 * game.rules.deck_size + BATTLE_CARDS <= log.card_values.shape[0]
            and log.fill[SEATS] + BATTLE_SEATS <= log.seat_values.shape[0])


# ---------------------------------------------------------------- hands

@borrowing(inline="always")
def into_hand(s, card, arn):
    """`card` joins seat s's hand, in code order."""
    i = arn.hand_size[s]
    while i > 0 and arn.hands[s, i - 1] > card:
        arn.hands[s, i] = arn.hands[s, i - 1]
        i -= 1
    arn.hands[s, i] = card
    arn.hand_size[s] += 1


@borrowing(inline="always")
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


@borrowing(inline="always")
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


@borrowing(inline="always")
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


@borrowing(inline="always")
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
        push_cards(log, table.cards, table_size, table_size + 1)
        emit(log, battle, KIND_PLAY, s, 0, NO_NOTE)
        table_size += 1
    arn.state[TABLE_SIZE] = table_size
    return up0, up1


# ---------------------------------------------------------------- wars

@borrowing
def lay_down(s, count, battle, game, arn):
    """A war's face-down cards: up to `count` from seat s's pile onto the table, reshuffling its
    won pile into it when it runs out; one `down` event for each run between reshuffles."""
    seats, table, log = game.seats, game.table, game.log
    run = table_size = arn.state[TABLE_SIZE]
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
        table_size += 1
    if table_size > run:
        push_cards(log, table.cards, run, table_size)
        emit(log, battle, KIND_DOWN, s, 0, NO_NOTE)
    arn.state[TABLE_SIZE] = table_size


@borrowing
def forfeit(s, battle, game, arn):
    """Seat s puts all it holds on the table (its pile, its won pile, both top first, then its
    hand in code order) without reshuffling, and is out (Game.forfeit, ArnesonGame.surrender)."""
    seats, table, log = game.seats, game.table, game.log
    table_size = first = arn.state[TABLE_SIZE]
    head = seats.pile_head[s]
    mask = seats.pile.shape[1] - 1
    for i in range(seats.pile_size[s]):
        table.cards[table_size] = seats.pile[s, (head + i) & mask]
        table.owners[table_size] = s
        table_size += 1
    for i in range(seats.won_size[s] - 1, -1, -1):
        table.cards[table_size] = seats.won[s, i]
        table.owners[table_size] = s
        table_size += 1
    for i in range(arn.hand_size[s]):
        table.cards[table_size] = arn.hands[s, i]
        table.owners[table_size] = s
        table_size += 1
    seats.pile_size[s] = 0
    seats.won_size[s] = 0
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
                forfeit(s, battle, game, arn)
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
            lay_down(s, down, battle, game, arn)
        up0, up1 = play_hands(battle, depth, game, arn)
    return (0 if card_rank[up0] > card_rank[up1] else 1), depth, False


# ---------------------------------------------------------------- collecting

@borrowing(inline="always")
def collect(s, first, stop, battle, game):
    """Seat s collects table cards first..stop-1 in `pickup` order (ArnesonGame.pickup_order,
    Game.collect): under its pile, or on top of its won pile under `pooled`."""
    rules, seats, table = game.rules, game.seats, game.table
    cards = table.pickup_order
    count = ZERO
    if rules.pickup == PICKUP_WINNER_FIRST:
        for i in range(first, stop):
            if table.owners[i] == s:
                cards[count] = table.cards[i]
                count += 1
        for i in range(first, stop):
            if table.owners[i] != s:
                cards[count] = table.cards[i]
                count += 1
    else:
        for i in range(first, stop):
            cards[count] = table.cards[i]
            count += 1
        if rules.pickup == PICKUP_SHUFFLED:
            _shuffle(game.rng, cards, count)
    if rules.pickup == PICKUP_POOLED:
        won = seats.won_size[s]
        for i in range(count - 1, -1, -1):
            seats.won[s, won] = cards[i]
            won += 1
        seats.won_size[s] = won
    else:
        put_under(s, cards, count, rules, seats, game.positions)
    push_cards(game.log, cards, 0, count)
    emit(game.log, battle, KIND_COLLECT, s, 0, NO_NOTE)


@borrowing
def collect_packet(s, first, stop, battle, game):
    """collect, called: a war's packets, rarer than a battle's two cards."""
    collect(s, first, stop, battle, game)


@borrowing(inline="always")
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


# ---------------------------------------------------------------- positions (cycle detection)

@borrowing(inline="always")
def position_hash(rules, seats, positions, arn):
    h = HASH_START
    for s in range(PLAYERS):
        h = _fold(_fold(h, seats.pile_size[s]), positions.pile_hash[s])
        h = _fold(h, arn.hand_size[s])
        for i in range(arn.hand_size[s]):
            h = _fold(h, arn.hands[s, i])
    if rules.wars_to_win > 0:
        for s in range(PLAYERS):
            h = _fold(h, seats.war_wins[s])
    return _mix(h)


@borrowing
def is_current_position(number, rules, seats, positions, arn):
    """Whether stored position `number` is the current one: piles card for card, hands and war
    wins (ArnesonGame.position)."""
    stream = positions.stream
    for s in range(PLAYERS):
        size = seats.pile_size[s]
        if positions.size[number * PLAYERS + s] != size:
            return False
        stored_start = positions.start[number * PLAYERS + s]
        start = positions.stream_start[s]
        for i in range(size):
            if stream[s, stored_start + i] != stream[s, start + i]:
                return False
        for i in range(HAND_SIZE):
            card = arn.hands[s, i] if i < arn.hand_size[s] else -1
            if arn.stored_hands[number, s * HAND_SIZE + i] != card:
                return False
    if rules.wars_to_win > 0:
        for s in range(PLAYERS):
            if positions.war_wins[number * PLAYERS + s] != seats.war_wins[s]:
                return False
    return True


@borrowing(inline="always")
def earlier_position(rules, seats, positions, stored, attempt, arn):
    """The number of the game's earlier position equal to the current one; else -1, the current
    position stored as number `stored` (cycles.earlier_position, with the hands)."""
    h = position_hash(rules, seats, positions, arn)
    slots = positions.slots
    slot_mask = slots.shape[0] - 1
    slot = np.int64(h & np.uint64(slot_mask))
    while positions.slot_attempt[slot] == attempt:
        number = slots[slot]
        if positions.hashes[number] == h and is_current_position(number, rules, seats, positions, arn):
            return number
        slot = (slot + 1) & slot_mask
    positions.slot_attempt[slot] = attempt
    slots[slot] = stored
    positions.hashes[stored] = h
    for s in range(PLAYERS):
        positions.start[stored * PLAYERS + s] = positions.stream_start[s]
        positions.size[stored * PLAYERS + s] = seats.pile_size[s]
        for i in range(HAND_SIZE):
            arn.stored_hands[stored, s * HAND_SIZE + i] = arn.hands[s, i] if i < arn.hand_size[s] else -1
    if rules.wars_to_win > 0:
        for s in range(PLAYERS):
            positions.war_wins[stored * PLAYERS + s] = seats.war_wins[s]
    return -1


@borrowing(inline="always")
def room_for_position(rules, positions, stored):
    """Whether the buffers hold one more position, and every stream one more battle's cards."""
    if stored + 1 >= positions.hashes.shape[0]:
        return GROW_POSITIONS
    for s in range(PLAYERS):
        if positions.stream_end[s] + rules.deck_size > positions.stream.shape[1]:
            return GROW_STREAMS
    return DONE


# ---------------------------------------------------------------- a game

@borrowing
def play_game(index, game_seed, attempt, deals, game, arn, results):
    """Play one game, number `index` of `results`, appending its events to the log and writing
    its summary, war wins and final cards (ArnesonGame.play). Returns DONE, or the buffer to grow
    before the game is played again from its start (the caller drops its events)."""
    rules, seats, positions, log, table = game.rules, game.seats, game.positions, game.log, game.table
    card_rank = rules.card_rank
    if not room_for(PLAYERS + 2 + 2 * HAND_SIZE, rules.deck_size + 2 * HAND_SIZE, game):
        return GROW_EVENTS
    first_event = log.fill[ROWS]
    cards_set_aside = deal(index, game_seed, deals, game)
    for s in range(PLAYERS):
        arn.hand_size[s] = 0
        if arn.policy[s] == HAND_RANDOM:
            _seed(arn.policy_rng[s], _game_seed(game_seed ^ POLICY_SEED_MASK, np.uint64(s)))
    refill_short_hands(ZERO, game, arn)
    wars_ = war_battles = max_war_depth = first_battle_war = ZERO
    cycle_length = np.int64(-1)
    outcome, winner = OUTCOME_CAPPED, NO_SEAT
    stored = ZERO
    battle = ZERO
    while True:
        if not room_for(0, 0, game):
            return GROW_EVENTS
        if battle >= rules.max_battles:
            break
        if rules.detect_cycles:
            room = room_for_position(rules, positions, stored)
            if room != DONE:
                return room
            earlier = earlier_position(rules, seats, positions, stored, attempt, arn)
            if earlier >= 0:
                outcome = OUTCOME_CYCLE
                cycle_length = battle - earlier
                break
            stored += 1
        battle += 1
        arn.state[TABLE_SIZE] = 0
        if arn.hand_size[0] < HAND_SIZE or arn.hand_size[1] < HAND_SIZE:  # ruling 17
            refill_short_hands(battle, game, arn)
        up0, up1 = play_hands(battle, ZERO, game, arn)
        refill_hands(battle, game, arn)
        if card_rank[up0] != card_rank[up1]:
            collect(0 if card_rank[up0] > card_rank[up1] else 1, 0, 2, battle, game)
        else:  # ArnesonGame.tied_battle
            won_by, depth, seat_out = wars(battle, np.int64(up0), np.int64(up1), game, arn)
            wars_, war_battles, max_war_depth, first_battle_war = count_war(battle, depth, wars_, war_battles,
                                                                            max_war_depth, first_battle_war)
            table_size = arn.state[TABLE_SIZE]
            if won_by == NO_SEAT:
                cards_set_aside += table_size
                push_cards(log, table.cards, 0, table_size)
                emit(log, battle, KIND_SET_ASIDE, NO_SEAT, 0, NO_NOTE)
            elif seat_out:
                collect_packet(won_by, ZERO, table_size, battle, game)
                seats.war_wins[won_by] += 1
            else:
                collect_packet(won_by, np.int64(2), table_size, battle, game)
                collect_packet(1 - won_by, ZERO, np.int64(2), battle, game)
                seats.war_wins[won_by] += 1
                if 0 < rules.wars_to_win <= seats.war_wins[won_by]:
                    outcome, winner = OUTCOME_WIN, won_by
                    break
                refill_short_hands(battle, game, arn)
        left, last = eliminate(battle, game, arn)
        if left <= 1:
            outcome, winner = (OUTCOME_WIN, last) if left == 1 else (OUTCOME_DRAW, NO_SEAT)
            break
    end_game(index, battle, outcome, winner, wars_, war_battles, max_war_depth, first_battle_war, cards_set_aside,
             cycle_length, first_event, game, results)
    for s in range(PLAYERS):  # a hand is held too (ArnesonGame.holding)
        results.final_cards[index, s] += arn.hand_size[s]
    return DONE


@njit(cache=True, quick=True, no_cfunc_wrapper=True)
def play_games(master_seed, start, index, attempt, deals, game, arn, results):
    """Play games start+index.. of master seed `master_seed` (uint64) under game.rules and the
    seats' policies (Arneson.policy) into `results` and game.log. Returns (DONE, games, attempts)
    when every game of `results` is played, or (the buffer to grow, the game to play again from
    its start once it has grown, attempts). `attempt` numbers the attempts at games (cycles.py)."""
    games = results.seeds.shape[0]
    log = game.log
    while index < games:
        attempt += 1
        rows, cards, seat_values = log.fill[ROWS], log.fill[CARDS], log.fill[SEATS]
        game_seed = _game_seed(master_seed, np.uint64(start + index))
        status = play_game(index, game_seed, attempt, deals, game, arn, results)
        if status != DONE:
            log.fill[ROWS], log.fill[CARDS], log.fill[SEATS] = rows, cards, seat_values  # its events dropped
            return status, index, attempt
        results.seeds[index] = game_seed
        index += 1
    return DONE, index, attempt


# ---------------------------------------------------------------- the Python side

def compile_policies(seat_policies) -> np.ndarray | None:
    """The seats' policies (policies.SeatPolicy, one per seat) as Arneson.policy codes; None
    when one of them has no compiled form."""
    codes = []
    for policy in seat_policies:
        names = dict(policy.choices)
        if set(names) != {"hand"} or names["hand"] not in HAND_CODES:
            return None
        codes.append(HAND_CODES[names["hand"]])
    return np.array(codes, dtype=np.int64)


def seat_policy_codes(rules: RuleSet, policies=()) -> np.ndarray | None:
    """compile_policies of the seats' policies as engines.game.resolve_policies reads them."""
    return compile_policies(resolve_policies(rules, policies))


def fits(rules: RuleSet, policies=()) -> bool:
    """Whether this engine plays games of the rule set with these policies: int16 card codes, two
    seats, hands of 3, and every seat's policy a built-in one."""
    size = rules.ranks * rules.suits + rules.jokers
    return (HAVE_NUMBA and size <= MAX_CARD and rules.players == PLAYERS and (rules.hand_size or HAND_SIZE) == HAND_SIZE
            and seat_policy_codes(rules, policies) is not None)


def keeps_positions(rules: RuleSet) -> bool:
    """Arneson's War's games always keep positions (table.keeps_positions): whether they look
    for cycles depends on the seats' policies too, and one engine serves them all."""
    return True


def compile_rules(rules: RuleSet, policy: np.ndarray):
    """The rule set as the engine reads it (table.compile_rules), with Arneson's War's own: wars
    of WAR_DOWN cards, and cycles looked for only under a fixed pickup order when no seat
    chooses at random (ArnesonGame.__init__)."""
    return table_rules(rules)._replace(
        rank_value=np.zeros(1, np.int64), down_by_rank=False, cards_down=WAR_DOWN,
        detect_cycles=rules.pickup in FIXED_PICKUPS and not bool((policy == HAND_RANDOM).any()))


def structures(rules: RuleSet, policy: np.ndarray | None = None, games: int = 1, capacity: int = 1024,
               positions: int = 16, deals=None, workspace: Workspace | None = None, compiled=None) -> dict:
    """What play_games takes besides its numbers, by parameter name (table.structures), with
    Arneson's War's own state for the seats' `policy` codes (every seat choosing at random when
    None: the types are those of every policy)."""
    if policy is None:
        policy = np.zeros(PLAYERS, np.int64)
    compiled = compiled or compile_rules(rules, policy)
    game = (workspace or Workspace()).game_for(compiled, capacity, 3 * capacity, capacity // 8 + 16, positions,
                                               keep_positions=keeps_positions(rules))
    arn = Arneson(policy, np.zeros((PLAYERS, 4), np.uint64), np.zeros((PLAYERS, HAND_SIZE), np.int32),
                  np.zeros(PLAYERS, np.int64), stored_hands(game), np.zeros(1, np.int64))
    return {"deals": deal_arrays(rules, deals), "game": game, "arn": arn, "results": new_results(games, PLAYERS)}


# The steps play_game calls (not inlined), which numba compiles before it, in two groups for two
# processes (table.STEPS): about 4.6 and 4.1 s of CPU on the development machine
# (refill_short_hands compiles draw_cards and reshuffle with it, wars forfeit and lay_down).
STEPS = ((deal, refill_short_hands, collect_packet, end_game), (wars, is_current_position))


def events_a_game(rules: RuleSet) -> int:
    """About how many events a game logs (3,800 or so for 52 cards): what the first event log is
    sized by, and how many games log.batches plays a batch."""
    return 8 * 9 * (rules.ranks * rules.suits + rules.jokers)


def play_arrays(rules: RuleSet, seed: int, start: int, stop: int, policies=(), capacity: int | None = None,
                positions: int = 1024, deals=None, workspace: Workspace | None = None) -> GameArrays:
    """The engine's arrays for games start..stop-1 of master seed `seed` with the seats'
    policies (as engines.game.resolve_policies takes them), from `deals` (one model.deal.Deal a
    game, each checked to be a deal of the rule set's deck) when given, else shuffled.
    `capacity` (events) and `positions` (per game) are only first sizes: buffers grow as needed.
    With a `workspace`, its buffers are used and kept (table.play_arrays)."""
    policy = seat_policy_codes(rules, policies)
    if policy is None:
        raise ValueError("a policy without a compiled form: the reference engine plays it")
    compiled = compile_rules(rules, policy)
    games = max(stop - start, 0)
    if deals is not None and len(deals) != games:
        raise ValueError(f"{len(deals)} deals for {games} games")
    if capacity is None:
        capacity = games * min(events_a_game(rules), 20_000) + 1024
    if workspace is None:
        workspace = Workspace()
    dealt, game, arn, results = structures(rules, policy, games, capacity, positions, deals, workspace,
                                           compiled).values()
    index, attempt = 0, workspace.attempt
    while True:
        status, index, attempt = play_games(np.uint64(seed), np.int64(start), np.int64(index), np.int64(attempt),
                                            dealt, game, arn, results)
        if status == DONE:
            break
        if status == GROW_EVENTS:
            game = game._replace(log=grown_event_log(game.log, PLAYERS, compiled.deck_size))
        elif status == GROW_STREAMS:
            game = game._replace(positions=with_longer_streams(game.positions))
        else:
            game = game._replace(positions=with_more_positions(compiled, game.positions))
            arn = arn._replace(stored_hands=stored_hands(game))
    workspace.keep(game, attempt)
    log = game.log
    return GameArrays(log.rows[:log.fill[ROWS]], log.card_values[:log.fill[CARDS]], log.seat_values[:log.fill[SEATS]],
                      results.summaries, results.war_wins, results.final_cards, results.seeds)


def stored_hands(game) -> np.ndarray:
    """Room for the hands of as many positions as game.positions stores."""
    count = game.positions.hashes.shape[0] if game.rules.detect_cycles else 1
    return np.zeros((count, PLAYERS * HAND_SIZE), np.int32)
