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

from ...model.schema import RuleSet
from ..compiled.engine import Engine, shared_rules
from ..compiled.jit import borrowing
from ..compiled.layout import (
    KIND_COLLECT,
    KIND_DECISION,
    KIND_DOWN,
    KIND_DRAW,
    KIND_FORFEIT,
    KIND_OUT,
    KIND_PLAY,
    KIND_WAR,
    KIND_WAR_OUT,
    NO_NOTE,
    NO_SEAT,
    NOTE_HAND,
    OUTCOME_DRAW,
    OUTCOME_WIN,
    PICKUP_POOLED,
    PICKUP_SHUFFLED,
    PICKUP_WINNER_FIRST,
)
from ..compiled.loop import (
    DONE,
    GROW_POSITIONS,
    GROW_STREAMS,
    ON,
    count_war,
    deal,
    end_game,
    play_games,  # noqa: F401  (the games' entry point, as every engine module names it)
    register,
    set_table_aside,
    won_war,
)
from ..compiled.moves import emit, push_cards, put_under, reshuffle, take_top
from ..compiled.rng import HASH_START, _bounded, _fold, _game_seed, _mix, _seed, _shuffle
from ..compiled.state import CARDS, ROWS, SEATS, ZERO
from ..game import resolve_policies
from ..play import FIXED_PICKUPS
from .reference import WAR_DOWN

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


# ---------------------------------------------------------------- the family's steps

@borrowing(inline="always")
def start(game_seed, game, arn):
    """After the deal: hands empty, the seats' policy generators seeded (those that draw), then
    each seat draws its first hand (ArnesonGame.start)."""
    for s in range(PLAYERS):
        arn.hand_size[s] = 0
        if arn.policy[s] == HAND_RANDOM:
            _seed(arn.policy_rng[s], _game_seed(game_seed ^ POLICY_SEED_MASK, np.uint64(s)))
    refill_short_hands(ZERO, game, arn)


@borrowing(inline="always")
def room(rows, cards, game, arn):
    """Whether the log holds `rows` and `cards` more and one more battle."""
    return room_for(rows, cards, game)


@borrowing(inline="always")
def seen_before(stored, attempt, game, arn):
    """(DONE or the buffer to grow, the earlier position equal to this one or -1): piles, hands
    and war wins (ruling 18)."""
    rules, positions = game.rules, game.positions
    status = room_for_position(rules, positions, stored)
    if status != DONE:
        return status, np.int64(-1)
    return DONE, earlier_position(rules, game.seats, positions, stored, attempt, arn)


@borrowing(inline="linked")
def battle(battle, game, arn, tally):
    """One battle (ArnesonGame.battles' loop body): short hands refilled (ruling 17), both seats
    choose and play, both draw back up, the higher card takes both (ruling 15); a tie is fought
    out in wars and its two packets collected (ruling 16); then seats holding nothing are out.
    (ON, NO_SEAT) while the game goes on, else its outcome and winner."""
    seats = game.seats
    card_rank = game.rules.card_rank
    arn.state[TABLE_SIZE] = 0
    if arn.hand_size[0] < HAND_SIZE or arn.hand_size[1] < HAND_SIZE:  # ruling 17
        refill_short_hands(battle, game, arn)
    up0, up1 = play_hands(battle, ZERO, game, arn)
    refill_hands(battle, game, arn)
    if card_rank[up0] != card_rank[up1]:
        collect(0 if card_rank[up0] > card_rank[up1] else 1, 0, 2, battle, game)
    else:  # ArnesonGame.tied_battle
        won_by, depth, seat_out = wars(battle, np.int64(up0), np.int64(up1), game, arn)
        count_war(battle, depth, tally)
        table_size = arn.state[TABLE_SIZE]
        if won_by == NO_SEAT:
            set_table_aside(battle, table_size, game, tally)
        elif seat_out:  # the game is over anyway: the war won counts, but cannot win by wars:N
            collect_packet(won_by, ZERO, table_size, battle, game)
            seats.war_wins[won_by] += 1
        else:
            collect_packet(won_by, np.int64(2), table_size, battle, game)
            collect_packet(1 - won_by, ZERO, np.int64(2), battle, game)
            if won_war(won_by, game):
                return OUTCOME_WIN, won_by
            refill_short_hands(battle, game, arn)
    left, last = eliminate(battle, game, arn)
    if left <= 1:
        return (OUTCOME_WIN, last) if left == 1 else (OUTCOME_DRAW, NO_SEAT)
    return ON, NO_SEAT


@borrowing(inline="always")
def finish(index, game, arn, results):
    """A hand is held too (ArnesonGame.holding): its cards count among the seat's at the end."""
    for s in range(PLAYERS):
        results.final_cards[index, s] += arn.hand_size[s]


register(Arneson, start=start, room=room, seen_before=seen_before, battle=battle, finish=finish)


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
    """compile_policies of the seats' policies as engines.game.resolve_policies reads them; None
    too for hands of another size than 3."""
    if (rules.hand_size or HAND_SIZE) != HAND_SIZE:
        return None
    return compile_policies(resolve_policies(rules, policies))


def keeps_positions(rules: RuleSet) -> bool:
    """Arneson's War's games always keep positions: whether they look for cycles depends on the
    seats' policies too, and one build serves them all."""
    return True


def compile_rules(rules: RuleSet, policy: np.ndarray | None = None):
    """The rule set as the engine reads it, with Arneson's War's own: wars of WAR_DOWN cards,
    and cycles looked for only under a fixed pickup order when no seat chooses at random
    (ArnesonGame.__init__)."""
    random = policy is None or bool((policy == HAND_RANDOM).any())
    return shared_rules(rules)._replace(cards_down=WAR_DOWN,
                                        detect_cycles=rules.pickup in FIXED_PICKUPS and not random)


def new_state(rules: RuleSet, policy: np.ndarray | None, game) -> Arneson:
    """Arneson's War's own state for the seats' `policy` codes (every seat choosing at random
    when None: the types are those of every policy)."""
    if policy is None:
        policy = np.zeros(PLAYERS, np.int64)
    return Arneson(policy, np.zeros((PLAYERS, 4), np.uint64), np.zeros((PLAYERS, HAND_SIZE), np.int32),
                   np.zeros(PLAYERS, np.int64), stored_hands(game), np.zeros(1, np.int64))


def stored_hands(game) -> np.ndarray:
    """Room for the hands of as many positions as game.positions stores."""
    count = game.positions.hashes.shape[0] if game.rules.detect_cycles else 1
    return np.zeros((count, PLAYERS * HAND_SIZE), np.int32)


def events_a_game(rules: RuleSet) -> int:
    """About how many events a game logs (3,800 or so for 52 cards)."""
    return 8 * 9 * (rules.ranks * rules.suits + rules.jokers)


# The steps the loop calls (not inlined), which numba compiles before the games, in two groups
# for two processes (log.warm): refill_short_hands compiles draw_cards and reshuffle with it,
# wars forfeit and lay_down.
STEPS = ((deal, refill_short_hands, collect_packet, end_game, battle), (wars, is_current_position))

ENGINE = Engine(policy_codes=seat_policy_codes, compile_rules=compile_rules, new_state=new_state,
                events_a_game=events_a_game, keeps_positions=keeps_positions, steps=STEPS, state_name="arn",
                refit=lambda arn, game: arn._replace(stored_hands=stored_hands(game)), players=(2, 2))
fits, structures, play_arrays = ENGINE.fits, ENGINE.structures, ENGINE.play_arrays
