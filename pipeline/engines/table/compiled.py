"""The compiled engine of the table family (Classic, Multiplayer, Jokers, Război): games of a
rule set played into flat numpy arrays (layout.GameArrays), event for event the games of
engines.table.reference, the readable reference that stays the definition of the rules.

The family's steps for the one game loop (engines.compiled.loop): its battle (battle.py's duel,
cards up, wars and collect, then the seats left without cards), the room a battle needs in the
log, and the positions of cycle detection (engines.compiled.cycles). The table family keeps
nothing besides the shared state (state.Game): its state, `TableFamily`, is empty, there for the
loop to know whose steps to call.

numba caches each compiled function keyed by its own source file only, with the code of the
functions it calls inside: after editing a module of the engines, delete the cache
(`find pipeline -name '*.nb[ic]' -delete`), or its callers keep running the old code.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...model.schema import RuleSet
from ..compiled.cycles import earlier_position, is_current_position, room_for_position, room_in_streams
from ..compiled.engine import Engine, shared_rules
from ..compiled.jit import borrowing
from ..compiled.layout import NO_SEAT, OUTCOME_DRAW, OUTCOME_WIN
from ..compiled.loop import (
    DONE, GROW_POSITIONS, GROW_STREAMS, ON, count_war, deal, end_game, register, set_table_aside,
    won_war,
)
from ..compiled.moves import reshuffle
from ..compiled.state import CARDS, ROWS, SEATS, ZERO, Rules, most_cards_per_battle, most_events_per_battle
from ..compiled.state import most_seats_per_battle
from ..play import FIXED_PICKUPS
from .battle import collect, duel, duels, forfeit, open_battle, retire_empty, settle, war_round
from .ranks import ranks_of, war_values


class TableFamily(NamedTuple):
    """What the table family keeps besides the shared state: nothing."""


# ---------------------------------------------------------------- the family's steps

@borrowing(inline="linked")
def start(game_seed, game, family):
    """Nothing to do after the deal."""


@borrowing(inline="linked")
def room(rows, cards, game, family):
    """Whether the log holds `rows` and `cards` more and one more battle and the end event,
    whatever happens in it."""
    rules, log = game.rules, game.log
    players, deck_size = rules.players, rules.deck_size
    return (log.fill[ROWS] + rows + most_events_per_battle(players, deck_size) <= log.rows.shape[0]
            and log.fill[CARDS] + cards + most_cards_per_battle(deck_size) <= log.card_values.shape[0]
            and log.fill[SEATS] + most_seats_per_battle(players, deck_size) <= log.seat_values.shape[0])


@borrowing(inline="linked")
def seen_before(stored, attempt, game, family, tally):
    """(DONE or the buffer to grow, the earlier position equal to this one or -1): every pile
    in order, and the war wins under wars:N (ruling 7; cycles.py)."""
    positions = game.positions
    if not room_for_position(positions, stored):
        return GROW_POSITIONS, np.int64(-1)
    if not room_in_streams(game.rules, positions):
        return GROW_STREAMS, np.int64(-1)
    return DONE, earlier_position(game.rules, game.seats, positions, stored, attempt, None, tally)


@borrowing(inline="linked")
def battle(battle, game, family, tally):
    """One battle (TableGame.battles' loop body): the duel of a plain two-seat battle, or every
    seat's card and the wars; the collect (or the table set aside); a war won may win the game
    under wars:N (ruling 6), then the seats left without cards are out. (ON, NO_SEAT) while the
    game goes on, else its outcome and winner."""
    rules, seats = game.rules, game.seats
    winner = duel(battle, game)
    if winner != NO_SEAT:
        depth, table_size = ZERO, np.int64(2)
    else:
        contenders, table_size = open_battle(battle, game)
        winner, depth, table_size = settle(battle, contenders, table_size, game)
        count_war(battle, depth, tally)
    if winner == NO_SEAT:
        set_table_aside(battle, table_size, game, tally)
    else:
        collect(winner, battle, table_size, game)
        if depth and won_war(winner, game):
            return OUTCOME_WIN, winner
    if rules.players == 2 and not depth and seats.pile_size[1 - winner] + seats.won_size[1 - winner] > 0:
        return ON, NO_SEAT  # no war, two seats: only the loser could be out, and it is not
    alive, first_alive = retire_empty(battle, game)
    if alive <= 1:
        return (OUTCOME_WIN, first_alive) if alive == 1 else (OUTCOME_DRAW, NO_SEAT)
    return ON, NO_SEAT


@borrowing(inline="linked")
def plain_battles(played, most, game, family):
    """Duels one after another (battle.duels)."""
    return duels(played, most, game)


@borrowing(inline="linked")
def finish(index, game, family, results):
    """Nothing to add to the results."""


register(TableFamily, start=start, room=room, seen_before=seen_before, battle=battle, plain_battles=plain_battles,
         finish=finish)


# ---------------------------------------------------------------- the Python side

def policy_codes(rules: RuleSet, policies=()) -> np.ndarray | None:
    """The table family has no decisions: no codes, and no game with policies."""
    return None if policies else np.zeros(0, np.int64)


def compile_rules(rules: RuleSet, policy: np.ndarray | None = None) -> Rules:
    """The rule set as the engine reads it: war sizes fixed or by rank (Război), clamped into
    int64 (a war of more cards than the deck, an Ace worth more, play exactly as the clamped
    value does: a player never holds more than the deck)."""
    shared = shared_rules(rules)._replace(card_rank=np.array(ranks_of(rules), dtype=np.int64))
    values = war_values(rules)
    if values is None:
        return shared._replace(detect_cycles=looks_for_cycles(rules))
    return shared._replace(rank_value=np.array([min(v, shared.deck_size + 1) for v in values], dtype=np.int64),
                           down_by_rank=True, cards_down=0, detect_cycles=looks_for_cycles(rules))


def looks_for_cycles(rules: RuleSet) -> bool:
    """Whether games of the rule set look for cycles: only a fixed pickup order can repeat a
    position."""
    return rules.pickup in FIXED_PICKUPS


def keeps_positions(rules: RuleSet) -> bool:
    """The table family's games all have positions (state.Game), so one build of its engine
    plays every rule set: whether a game keeps them up to date is its rules' detect_cycles
    (looks_for_cycles), read as it plays. A build without their code was a second compile of
    the whole engine (about 6 s of a first run, `pickup=winner_first` after the demo) for no
    speed a games-only run could measure (docs/decisions.md, "One build a family")."""
    return True


def events_a_game(rules: RuleSet) -> int:
    """About how many events a game logs."""
    deck = rules.ranks * rules.suits + rules.jokers
    return {"pooled": 1200, "shuffled": 1000}.get(rules.pickup, 700) * rules.players * deck // 104 + 64


# The steps the loop calls or links in, which a first run compiles before the games, shared by
# its two processes (log.warm): each takes the next that neither has claimed, so the list starts
# with two that share little (the deal; the reshuffle, which every draw calls) and ends with
# the battle, which calls most of the others.
STEPS = (deal, reshuffle, war_round, duel, duels, collect, forfeit, settle, earlier_position, open_battle,
         retire_empty, is_current_position, end_game, battle)

ENGINE = Engine(policy_codes=policy_codes, compile_rules=compile_rules,
                new_state=lambda rules, policy, game: TableFamily(), events_a_game=events_a_game,
                keeps_positions=keeps_positions, steps=STEPS, watched=True)
fits, structures, play_arrays, play_games = ENGINE.fits, ENGINE.structures, ENGINE.play_arrays, ENGINE.play_games
