"""The compiled engine of Arneson's War: games of a rule set and seats' hand policies played into
flat arrays (layout.GameArrays), event for event the games of engines.arneson.reference, the
readable reference that stays the definition of the rules.

The family's steps for the one game loop (engines.compiled.loop): its battle (hands.py's cards,
draws and wars), the room a battle needs in the log, and the position of cycle detection,
which includes both hands (ruling 18); then the Python side the loop's Engine is made of.

Policies are data: each seat's built-in hand policy is a code (`compile_policies`), read by
hands.choose, which draws from the seat's own generator exactly as policies.hand_random does.
A policy the codes do not name has no compiled form, and its games go through the reference.
"""

from __future__ import annotations

import numpy as np

from ...model.schema import RuleSet
from ..compiled.cycles import earlier_position, is_current_position
from ..compiled.engine import Engine, shared_rules
from ..compiled.jit import borrowing
from ..compiled.layout import NO_SEAT, OUTCOME_DRAW, OUTCOME_WIN
from ..compiled.loop import (
    DONE, GROW_POSITIONS, GROW_STREAMS, ON, count_war, deal, end_game, no_plain_battles, register,
    set_table_aside, won_war,
)
from ..compiled.rng import _game_seed, _seed
from ..compiled.state import ZERO
from ..game import resolve_policies
from ..play import FIXED_PICKUPS
from .hands import (
    HAND_CODES, HAND_RANDOM, HAND_SIZE, PLAYERS, POLICY_SEED_MASK, TABLE_SIZE, Arneson, choose, collect,
    collect_packet, draw_cards, eliminate, forfeit, play_hands, refill_hands, refill_short_hands, room_for, wars,
)
from .reference import WAR_DOWN

# ---------------------------------------------------------------- positions (cycle detection)

@borrowing(inline="linked")
def room_for_position(rules, positions, stored):
    """Whether the buffers hold one more position, and every stream one more battle's cards."""
    if stored + 1 >= positions.hashes.shape[0]:
        return GROW_POSITIONS
    for s in range(PLAYERS):
        if positions.stream_end[s] + rules.deck_size > positions.stream.shape[1]:
            return GROW_STREAMS
    return DONE


# ---------------------------------------------------------------- the family's steps

@borrowing(inline="linked")
def start(game_seed, game, arn):
    """After the deal: hands empty, the seats' policy generators seeded (those that draw), then
    each seat draws its first hand (ArnesonGame.start)."""
    for s in range(PLAYERS):
        arn.hand_size[s] = 0
        if arn.policy[s] == HAND_RANDOM:
            _seed(arn.policy_rng[s], _game_seed(game_seed ^ POLICY_SEED_MASK, np.uint64(s)))
    refill_short_hands(ZERO, game, arn)


@borrowing(inline="linked")
def room(rows, cards, game, arn):
    """Whether the log holds `rows` and `cards` more and one more battle."""
    return room_for(rows, cards, game)


@borrowing(inline="linked")
def seen_before(stored, attempt, game, arn, tally):
    """(DONE or the buffer to grow, the earlier position equal to this one or -1): piles, hands
    and war wins (ruling 18)."""
    rules, positions = game.rules, game.positions
    status = room_for_position(rules, positions, stored)
    if status != DONE:
        return status, np.int64(-1)
    return DONE, earlier_position(rules, game.seats, positions, stored, attempt, arn, tally)


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


@borrowing(inline="linked")
def finish(index, game, arn, results):
    """A hand is held too (ArnesonGame.holding): its cards count among the seat's at the end."""
    for s in range(PLAYERS):
        results.final_cards[index, s] += arn.hand_size[s]


register(Arneson, start=start, room=room, seen_before=seen_before, battle=battle,
         plain_battles=no_plain_battles, finish=finish)


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


# The steps the loop calls, which a first run compiles before the games, shared by its two
# processes (log.warm), the battle last: it calls most of the others (refill_short_hands
# compiles draw_cards and reshuffle with it, wars forfeit and lay_down).
STEPS = (deal, choose, forfeit, draw_cards, refill_short_hands, earlier_position, play_hands, wars, collect_packet,
         eliminate, is_current_position, end_game, battle)

ENGINE = Engine(policy_codes=seat_policy_codes, compile_rules=compile_rules, new_state=new_state,
                events_a_game=events_a_game, keeps_positions=keeps_positions, steps=STEPS, state_name="arn",
                refit=lambda arn, game: arn._replace(stored_hands=stored_hands(game)), players=(2, 2),
                hands=True)
fits, structures, play_arrays, play_games = ENGINE.fits, ENGINE.structures, ENGINE.play_arrays, ENGINE.play_games
