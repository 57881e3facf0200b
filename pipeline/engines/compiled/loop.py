"""One compiled game loop for every family: the deal, the battles until the game ends, its summary.

The loop is the reference engines' Game.play (engines.play) over state.py's arrays: the deal,
then before each battle the room in the log, the cap and, where the rules can repeat a
position, the position; then a battle; then the end event and the summary. What a battle is, and
what a family keeps besides the shared state, is the family's own (engines/<family>/compiled.py):
each family registers its *family steps* (`register`), and the loop calls the ones of the type
of the family's state, chosen when numba compiles the loop for that type (`numba.extending.
overload`), so each family's loop compiles as if written out for it:

- `start(game_seed, game, family)`: after the deal (policies' generators seeded, hands drawn);
- `room(rows, cards, game, family)`: whether the log holds `rows` and `cards` more and one
  more battle, whatever happens in it;
- `seen_before(stored, attempt, game, family, tally)`: (DONE or the buffer to grow, the number
  of the earlier position equal to this one or -1, the cycle's key then in the tally), storing
  this one as number `stored`;
- `battle(battle, game, family, tally)`: one battle, its wars counted into the tally: (ON or how
  the game ended, the winner), or (NEEDS_ROOM, _) when the log was short;
- `plain_battles(played, most, game, family)`: while the game does not look for cycles, up to
  `most` battles after battle `played` that are plain (no war, no reshuffle, no seat out), each
  the battle `battle` would play, played one after another without the loop's checks between
  them (most battles of a two-seat game): how many (0 where the family has no such run);
- `finish(index, game, family, results)`: what the family adds to the game's results.

A run of plain battles is where a games-only dataset's time goes: it keeps the piles' heads and
sizes and the log's fill in the processor's registers, where battle after battle through the
loop and `battle` reads and writes them in memory (bench/README.md has the figures).

A game's *tally* is its row of the results' summaries (layout.SUMMARY_COLUMNS): the counts of
wars, cards set aside and the cycle's length are written there as they happen (count_war).
"""

from __future__ import annotations

import numpy as np

from .jit import HAVE_NUMBA, INLINED_CALL, borrowing, njit
from .layout import (
    KIND_DEAL, KIND_END, KIND_SET_ASIDE, NO_NOTE, NO_SEAT, OUTCOME_CAPPED, OUTCOME_CYCLE, SUMMARY_BATTLES,
    SUMMARY_CARDS_LAID, SUMMARY_CARDS_SET_ASIDE, SUMMARY_CYCLE_LENGTH, SUMMARY_EVENTS, SUMMARY_FIRST_BATTLE_WAR,
    SUMMARY_MAX_WAR_DEPTH, SUMMARY_OUTCOME, SUMMARY_WAR_BATTLES, SUMMARY_WARS, SUMMARY_WINNER,
)
from .moves import emit, push_cards, start_pile
from .rng import _game_seed, _seed, _shuffle
from .state import CARDS, LAID, ROWS, SEATS, ZERO, Game

# What play_game returns: the game is played, or a buffer must grow before it is played again,
# or (LOOK_FOR_CYCLES) a game played without looking for cycles reached its watch and must be
# played again looking for them (play_games).
DONE, GROW_EVENTS, GROW_POSITIONS, GROW_STREAMS, LOOK_FOR_CYCLES = range(5)

# What a family's battle returns besides an outcome code (layout.OUTCOMES): the game goes on,
# or the log was short (the game is played again in a larger one).
ON, NEEDS_ROOM = -1, -2


# ---------------------------------------------------------------- the family steps

_STEPS = ("start", "room", "seen_before", "battle", "plain_battles", "finish")
_REGISTERED: dict[tuple[str, type], object] = {}


def register(state: type, **steps) -> None:
    """The family steps (the module's docstring) of the family whose state is of class `state`
    (a NamedTuple), each a compiled step (jit.borrowing)."""
    if set(steps) != set(_STEPS):
        raise ValueError(f"a family registers the steps {_STEPS}, got {sorted(steps)}")
    for name, step in steps.items():
        _REGISTERED[name, state] = step


def family_steps(state: type) -> tuple:
    """The family steps registered for the family whose state is of class `state`, in the
    loop's order (what a first run compiles before the games, beside the module's STEPS)."""
    return tuple(_REGISTERED[name, state] for name in _STEPS if (name, state) in _REGISTERED)


if HAVE_NUMBA:
    import warnings

    from numba.core.errors import NumbaIRAssumptionWarning
    from numba.extending import overload

    # numba's check of the IR it inlines finds the family step's call (below) "not in scope"
    # where the loop's while loop joins its branches; the code it compiles is right (the
    # engines' tests hold every family to its reference), and a compile would print it.
    warnings.filterwarnings("ignore", message=r".*typed__locals__call.*", category=NumbaIRAssumptionWarning)


def _family_step(name: str, arguments: str):
    """The loop's call of family step `name`: a function numba replaces, when it compiles the
    loop, with the step registered for the class of the `family` argument. (numba matches an
    overload's parameters by name, so each is written out with the step's own.)"""
    namespace: dict = {"_REGISTERED": _REGISTERED, "name": name}
    exec(f"def {name}({arguments}):\n    raise NotImplementedError('{name} runs compiled only')\n"
         f"def typed({arguments}):\n"
         f"    step = _REGISTERED.get((name, getattr(family, 'instance_class', None)))\n"
         f"    if step is None:\n        return None\n"
         f"    def call({arguments}):\n        return step({arguments})\n"
         f"    return call\n", namespace)
    stub = namespace[name]
    if HAVE_NUMBA:
        overload(stub, jit_options=INLINED_CALL, inline="always")(namespace["typed"])
    return stub


start = _family_step("start", "game_seed, game, family")
room = _family_step("room", "rows, cards, game, family")
seen_before = _family_step("seen_before", "stored, attempt, game, family, tally")
battle = _family_step("battle", "battle, game, family, tally")
plain_battles = _family_step("plain_battles", "played, most, game, family")
finish = _family_step("finish", "index, game, family, results")


# ---------------------------------------------------------------- steps every family shares

@borrowing(inline="linked")
def no_plain_battles(played, most, game, family):
    """The `plain_battles` of a family without a run of plain battles: each battle is played by
    its `battle`."""
    return ZERO


@borrowing
def deal(index, game_seed, deals, game):
    """The game's generator seeded; the deck shuffled and dealt one card a seat in turn (from seat
    rules.deal_start, model.deal.deal_plan), the cards left over set aside; or, when `deals` holds
    explicit deals, game `index`'s piles and cards set aside as given (the generator then only
    serves later shuffles). Returns how many cards are set aside."""
    rules, seats, positions, log = game.rules, game.seats, game.positions, game.log
    players, deck_size, shuffled_dealt, deal_start = rules.players, rules.deck_size, rules.dealt, rules.deal_start
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
        first = (s - deal_start) % players  # a shuffled deck's first card to seat s
        size = deals.sizes[index, s] if explicit else (shuffled_dealt - first + players - 1) // players
        seats.pile_head[s] = 0
        seats.pile_size[s] = size
        seats.won_size[s] = 0
        seats.alive[s] = True
        seats.war_wins[s] = 0
        for i in range(size):
            seats.pile[s, i] = deck[dealt + i] if explicit else deck[first + i * players]
        dealt += size
        start_pile(s, seats.pile[s], size, rules, positions)
        push_cards(log, seats.pile[s], 0, size)
        emit(log, 0, KIND_DEAL, s, 0, NO_NOTE)
    if dealt < deck_size:
        push_cards(log, deck, dealt, deck_size)
        emit(log, 0, KIND_SET_ASIDE, NO_SEAT, 0, NO_NOTE)
    return deck_size - dealt


@borrowing(inline="linked")
def count_war(battle, depth, tally):
    """A battle's wars (a double war counts 2) added to the game's tally (Summary.count_war)."""
    if depth:
        tally[SUMMARY_WARS] += depth
        tally[SUMMARY_WAR_BATTLES] += 1
        if depth > tally[SUMMARY_MAX_WAR_DEPTH]:
            tally[SUMMARY_MAX_WAR_DEPTH] = depth
        if battle == 1:
            tally[SUMMARY_FIRST_BATTLE_WAR] = 1


@borrowing(inline="linked")
def won_war(winner, game):
    """A war battle won by `winner` counted; whether that wins the game (win = wars:N,
    Summary.won_war)."""
    seats = game.seats
    seats.war_wins[winner] += 1
    return 0 < game.rules.wars_to_win <= seats.war_wins[winner]


@borrowing(inline="linked")
def set_table_aside(battle, table_size, game, tally):
    """No seat is left in the war: the table's cards go out of play (Game.set_aside)."""
    tally[SUMMARY_CARDS_SET_ASIDE] += table_size
    push_cards(game.log, game.table.cards, 0, table_size)
    emit(game.log, battle, KIND_SET_ASIDE, NO_SEAT, 0, NO_NOTE)


@borrowing
def end_game(index, battle, outcome, winner, first_event, game, results):
    """The end event, and the rest of the game's summary (its tally holds the counts, the log its
    cards laid; its events are those of the log from `first_event`), each seat's war wins and
    cards at the end into results[index]."""
    seats, log = game.seats, game.log
    for s in range(game.rules.players):
        results.final_cards[index, s] = seats.pile_size[s] + seats.won_size[s]
        results.war_wins[index, s] = seats.war_wins[s]
    emit(log, battle, KIND_END, winner, battle, outcome)
    summary = results.summaries[index]
    summary[SUMMARY_CARDS_LAID] = log.fill[LAID]
    summary[SUMMARY_OUTCOME] = outcome
    summary[SUMMARY_WINNER] = winner
    summary[SUMMARY_BATTLES] = battle
    summary[SUMMARY_EVENTS] = log.fill[ROWS] - first_event


# ---------------------------------------------------------------- the loop

@borrowing
def play_game(index, game_seed, attempt, watch, deals, game, family, results):
    """Play one game, number `index` of `results`, appending its events to the log and writing its
    summary (layout.SUMMARY_COLUMNS), war wins and final cards; its deal is deals' row `index`
    when `deals` has rows (state.Deals), else shuffled from its seed. Returns DONE, or the buffer to
    grow before the game is played again from its start (its events are then dropped by the
    caller), or LOOK_FOR_CYCLES when `watch` battles were played and the game has not ended
    (a game played without looking for cycles, see play_games). `attempt` numbers the calls
    with these positions (see cycles.py)."""
    rules, log = game.rules, game.log
    if not room(rules.players + 8, rules.deck_size + 8, game, family):
        return GROW_EVENTS
    first_event = log.fill[ROWS]
    log.fill[LAID] = 0
    tally = results.summaries[index]
    for column in range(tally.shape[0]):
        tally[column] = 0
    tally[SUMMARY_CYCLE_LENGTH] = -1
    tally[SUMMARY_CARDS_SET_ASIDE] = deal(index, game_seed, deals, game)
    start(game_seed, game, family)
    outcome, winner = OUTCOME_CAPPED, NO_SEAT
    stored = ZERO
    played = ZERO
    while True:
        if not room(ZERO, ZERO, game, family):
            return GROW_EVENTS
        if played >= watch:
            return LOOK_FOR_CYCLES
        if played >= rules.max_battles:
            break
        if rules.detect_cycles:
            status, earlier = seen_before(stored, attempt, game, family, tally)
            if status != DONE:
                return status
            if earlier >= 0:
                outcome = OUTCOME_CYCLE
                tally[SUMMARY_CYCLE_LENGTH] = played - earlier
                break
            stored += 1
        else:
            ran = plain_battles(played, min(watch, rules.max_battles) - played, game, family)
            if ran > 0:
                played += ran
                continue
        played += 1
        result, won_by = battle(played, game, family, tally)
        if result == NEEDS_ROOM:
            return GROW_EVENTS
        if result != ON:
            outcome, winner = result, won_by
            break
    end_game(index, played, outcome, winner, first_event, game, results)
    finish(index, game, family, results)
    return DONE


@njit(cache=True, quick=True, no_cfunc_wrapper=True, _nrt=False)
def play_games(master_seed, start, index, attempt, watch, deals, game, unwatched_rules, family, results):
    """Play games start+index.. of master seed `master_seed` (uint64) under game.rules into
    `results` and game.log, from the explicit deals in `deals` (state.Deals, row i for game
    start+i) when it has rows. Returns (DONE, games, attempts, replays) when every game of
    `results` is played, or (the buffer to grow, the game to play again from its start once it
    has grown, attempts, replays). `attempt` numbers the attempts at games (see cycles.py).

    When `watch` > 0 (only for rules that look for cycles), each game is first played under
    `unwatched_rules` (game.rules that do not look for them: the same arrays, its positions not
    kept up to date; None for a game without positions) and played again as `game` only when it
    reaches battle `watch` without an end; `replays` counts those. That is exact: play is then
    deterministic in the position, so a game whose position repeats loops for ever and never
    ends, and a game that ends never repeated one (docs/decisions.md).

    Compiled without reference counting (jit.borrowing says why): choosing `game` or the
    unwatched game for each game counted a reference to each of their arrays, 4 % of a
    games-only run."""
    games = results.seeds.shape[0]
    log = game.log
    never = np.int64(1) << 62
    replays = 0
    while index < games:
        attempt += 1
        rows, cards, seat_values = log.fill[ROWS], log.fill[CARDS], log.fill[SEATS]
        if deals.seeds.shape[0] > 0:
            game_seed = deals.seeds[index]
        else:
            game_seed = _game_seed(master_seed, np.uint64(start + index))
        looking = watch == 0
        while True:  # one call of play_game: each call site would compile it again
            played = game
            if unwatched_rules is not None:  # pruned before typing for a game without positions
                if not looking:
                    played = Game(unwatched_rules, game.rng, game.seats, game.table, game.positions, game.log)
            status = play_game(index, game_seed, attempt, never if looking else watch, deals, played, family, results)
            if status == DONE:
                break
            log.fill[ROWS], log.fill[CARDS], log.fill[SEATS] = rows, cards, seat_values  # its events dropped
            if status != LOOK_FOR_CYCLES:
                return status, index, attempt, replays
            replays += 1
            attempt += 1
            looking = True
        results.seeds[index] = game_seed
        index += 1
    return DONE, index, attempt, replays
