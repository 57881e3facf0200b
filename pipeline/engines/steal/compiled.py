"""The compiled engine of Steal War: games of a rule set and seats' policies played into flat
arrays (layout.GameArrays), event for event the games of engines.steal.reference, the readable
reference that stays the definition of the rules.

The family's steps for the one game loop (engines.compiled.loop): its battle (turns.py's turns,
wars and bundles; the battle's first seat moving on), the room a turn needs in the log; Steal War
looks for no cycle (its reshuffles are random). Then the Python side the loop's Engine is made
of: the seats' built-in policies as codes (`compile_policies`; a policy they do not name has no
compiled form, and its games go through the reference).
"""

from __future__ import annotations

import numpy as np

from ...model.cards import Deck
from ...model.schema import RuleSet
from ..compiled.engine import Engine, shared_rules
from ..compiled.jit import borrowing
from ..compiled.layout import NO_SEAT, OUTCOME_DRAW, OUTCOME_WIN, PICKUP_POOLED
from ..compiled.loop import (
    DONE, NEEDS_ROOM, ON, count_war, deal, end_game, no_plain_battles, register, set_table_aside,
    won_war,
)
from ..compiled.moves import reshuffle
from ..compiled.rng import _game_seed, _seed
from ..game import resolve_policies
from .turns import (
    FIRST, POLICY_SEED_MASK, POLICY_STEAL, POLICY_TOP, SHORT, STEAL_CODES, STEAL_RANDOM, TABLE_SIZE,
    TOP_CODES, TOP_RANDOM, Steal, choose_top, knock_out, lay_down, open_battle, pick_up, play_up, room_for_turn,
    settle, steal_with, take_turn, war_round,
)

# ---------------------------------------------------------------- the family's steps

@borrowing(inline="linked")
def start(game_seed, game, steal):
    """After the deal: the seats' policy generators seeded (those that draw), the log's room
    not yet found short, and seat 0 to begin the first battle."""
    players = game.rules.players
    for s in range(players):
        if steal.policy[s, POLICY_STEAL] == STEAL_RANDOM or steal.policy[s, POLICY_TOP] == TOP_RANDOM:
            _seed(steal.policy_rng[s], _game_seed(game_seed ^ POLICY_SEED_MASK, np.uint64(s)))
    steal.state[SHORT] = 0
    steal.state[FIRST] = players - 1


@borrowing(inline="linked")
def room(rows, cards, game, steal):
    """Whether the log holds `rows` and `cards` more and one more turn (room_for_turn: each turn
    checks again, so a battle never runs out of room unseen)."""
    return room_for_turn(game, rows, cards)


@borrowing(inline="linked")
def seen_before(stored, attempt, game, steal, tally):
    """Steal War looks for no repeated position: its reshuffles are random (6.7)."""
    return DONE, np.int64(-1)


@borrowing(inline="linked")
def battle(battle, game, steal, tally):
    """One battle (StealGame.battle): the battle's first seat, the next still in after the last
    battle's (ruling 11); every seat's turn and the wars; the winner's bundle (or the table set
    aside); a war won may win the game under wars:N, then the seats holding nothing are out.
    (ON, NO_SEAT) while the game goes on, its outcome and winner, or NEEDS_ROOM when a turn
    found the log short."""
    rules, seats = game.rules, game.seats
    players = rules.players
    first = steal.state[FIRST]
    for k in range(1, players + 1):
        s = first + k
        if s >= players:
            s -= players
        if seats.alive[s]:
            first = s
            break
    steal.state[FIRST] = first
    steal.state[TABLE_SIZE] = 0
    contenders = open_battle(battle, first, game, steal)
    won_by, depth = settle(battle, contenders, game, steal)
    count_war(battle, depth, tally)
    result, winner = ON, NO_SEAT
    if won_by == NO_SEAT:
        set_table_aside(battle, steal.state[TABLE_SIZE], game, tally)
    else:
        pick_up(won_by, battle, game, steal)
        if depth and won_war(won_by, game):
            result, winner = OUTCOME_WIN, won_by
    if result == ON:
        left = 0
        last = NO_SEAT
        for s in range(players):
            if seats.alive[s]:
                if seats.pile_size[s] + seats.won_size[s] > 0:
                    left += 1
                    last = s
                else:
                    knock_out(s, battle, game)
        if left <= 1:
            result, winner = (OUTCOME_WIN, last) if left == 1 else (OUTCOME_DRAW, NO_SEAT)
    if steal.state[SHORT]:
        return NEEDS_ROOM, NO_SEAT
    return result, winner


@borrowing(inline="linked")
def finish(index, game, steal, results):
    """Nothing to add to the results."""


register(Steal, start=start, room=room, seen_before=seen_before, battle=battle,
         plain_battles=no_plain_battles, finish=finish)


# ---------------------------------------------------------------- the Python side

def compile_policies(seat_policies) -> np.ndarray | None:
    """The seats' policies (policies.SeatPolicy, one per seat) as Steal.policy rows; None when
    one of them has no compiled form."""
    rows = []
    for policy in seat_policies:
        names = dict(policy.choices)
        steal_name, _, threshold = names.get("steal", "").partition(":")
        top_name = names.get("top", "")
        if steal_name not in STEAL_CODES or top_name not in TOP_CODES or set(names) != {"steal", "top"}:
            return None
        rows.append((STEAL_CODES[steal_name], min(int(threshold or 0), 1 << 62), TOP_CODES[top_name]))
    return np.array(rows, dtype=np.int64).reshape(len(rows), 3)


def seat_policy_rows(rules: RuleSet, policies=()) -> np.ndarray | None:
    """compile_policies of the seats' policies as engines.game.resolve_policies reads them."""
    return compile_policies(resolve_policies(rules, policies))


def keeps_positions(rules: RuleSet) -> bool:
    """Steal War never looks for cycles: its games keep no positions."""
    return False


def compile_rules(rules: RuleSet, policy: np.ndarray | None = None):
    """The rule set as the engine reads it (the table family's), with Steal War's fixed rules:
    won piles, no cycles looked for, wars of `war_down` cards (3 under by_rank, as
    StealGame reads it)."""
    size = rules.ranks * rules.suits + rules.jokers
    down = rules.war_down if isinstance(rules.war_down, int) else 3
    return shared_rules(rules)._replace(cards_down=min(int(down), size + 1), shortfall_loses=True,
                                        pickup=PICKUP_POOLED, detect_cycles=False)


def new_state(rules: RuleSet, policy: np.ndarray | None, game) -> Steal:
    """Steal War's own state for the seats' `policy` rows (every seat always stealing when None:
    the types are those of every policy)."""
    players = rules.players
    if policy is None:
        policy = np.zeros((players, 3), np.int64)
    rank = Deck(rules.ranks, rules.suits, rules.jokers).rank
    copies = np.bincount(np.array(rank, dtype=np.int64), minlength=max(rank) + 1).astype(np.int64)
    return Steal(policy, np.zeros((players, 4), np.uint64), copies, np.zeros(copies.shape[0], np.int64),
                 np.zeros(players, np.int64), np.zeros(players, np.int64), np.zeros(players, np.int64),
                 np.zeros(3, np.int64))


def events_a_game(rules: RuleSet) -> int:
    """About how many events a game logs (250 or so for 52 cards and two seats)."""
    return 3 * (rules.ranks * rules.suits + rules.jokers) * rules.players


# The steps the loop calls, which a first run compiles before the games, shared by its two
# processes (log.warm), the battle last: it calls most of the others.
STEPS = (deal, reshuffle, lay_down, choose_top, steal_with, play_up, take_turn, war_round, settle, pick_up,
         open_battle, end_game, battle)

ENGINE = Engine(policy_codes=seat_policy_rows, compile_rules=compile_rules, new_state=new_state,
                events_a_game=events_a_game, keeps_positions=keeps_positions, steps=STEPS, state_name="steal")
fits, structures, play_arrays, play_games = ENGINE.fits, ENGINE.structures, ENGINE.play_arrays, ENGINE.play_games
