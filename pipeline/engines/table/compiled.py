"""The compiled engine of the table family (Classic, Multiplayer, Jokers, Război): games of a
rule set played into flat numpy arrays (layout.GameArrays), event for event the games of
`engines.table.play_table`, the readable reference that stays the definition of the rules.

The engine, by job:

- jit.py: numba's njit, and the LLVM optimisation level the engines compile at (-O1);
- rng.py: the SplitMix64 / xoshiro256** / bounded / Fisher-Yates, in uint64 arithmetic
  only (numba turns int64 mixed with uint64 into float64);
- layout.py: what the output arrays hold (event and summary columns, the codes of event kinds,
  outcomes and pickups, taken from pipeline.model.schema);
- state.py: the game's state as named tuples of arrays, and their allocation and growth;
- moves.py: a card taken, cards put under a pile, a reshuffle, an event logged;
- cycles.py: cycle detection (fixed pickup orders), the game's positions in a hash table;
- battle.py: one battle: cards up, wars, the collect; game.py: one game;
- this module: the compiled loop over games, and its entry from Python, which makes the state
  and grows a buffer when a game finds it too small (state.py's allocations, in Python).

The steps of a game are compiled by `jit.borrowing` (no reference counting; the steps run for
every battle inlined), which is what keeps the split engine as fast as one long function: read
its docstring before moving code between steps.

numba caches each compiled function (`cache=True`, files `*.nbi`/`*.nbc` in `__pycache__`)
keyed by its own source file only, with the code of the functions it calls inside: after editing
a module here, delete the cache (`find pipeline -name '*.nb[ic]' -delete`), or its callers keep
running the old code.

`fits(rules)` says whether a rule set's deck and seats fit these arrays; log.shard chooses
between this engine and the reference (other families, policies, decks too big for an int16
card code go through the reference). Explicit deals are played here too: `deal_arrays` hands
them over as arrays.
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from ...model.cards import Deck
from ...model.schema import PICKUPS, RuleSet
from ..play import FIXED_PICKUPS
from .reference import war_values
from .battle import collect, duel, forfeit, open_battle, retire_empty, set_aside, settle, war_round
from ..compiled.cycles import earlier_position, is_current_position, room_for_position, room_in_streams
from ..compiled.loop import (
    DONE,
    GROW_EVENTS,
    GROW_POSITIONS,
    GROW_STREAMS,
    LOOK_FOR_CYCLES,
    count_war,
    deal,
    end_game,
    room_for_battle,
)
from ..compiled.layout import (
    MAX_CARD,
    MAX_PLAYERS,
    NO_SEAT,
    OUTCOME_CAPPED,
    OUTCOME_CYCLE,
    OUTCOME_DRAW,
    OUTCOME_WIN,
    GameArrays,
)
from ..compiled.moves import reshuffle
from ..compiled.jit import HAVE_NUMBA, borrowing, njit
from ..compiled.rng import _game_seed
from ..compiled.state import (
    ZERO,
    CARDS,
    ROWS,
    SEATS,
    Deals,
    Rules,
    Workspace,
    grown_event_log,
    new_results,
    with_longer_streams,
    with_more_positions,
)


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


@njit(cache=True, quick=True, no_cfunc_wrapper=True)
def play_games(master_seed, start, index, attempt, watch, deals, game, unwatched, results):
    """Play games start+index.. of master seed `master_seed` (uint64) under game.rules into
    `results` and game.log, from the explicit deals in `deals` (state.Deals, row i for game
    start+i) when it has rows. Returns (DONE, games, attempts, replays) when every game of
    `results` is played, or (the buffer to grow, the game to play again from its start once it
    has grown, attempts, replays). `attempt` numbers the attempts at games (see cycles.py).

    When `watch` > 0 (only for rules that look for cycles), each game is first played as `unwatched`
    (game with rules that do not look for them) and played again as `game` only when it reaches
    battle `watch` without an end; `replays` counts those. That is exact: play is then
    deterministic in the position, so a game whose position repeats loops for ever and never
    ends, and a game that ends never repeated one (docs/decisions.md)."""
    games = results.seeds.shape[0]
    log = game.log
    never = np.int64(1) << 62
    replays = 0
    while index < games:
        attempt += 1
        rows, cards, seat_values = log.fill[ROWS], log.fill[CARDS], log.fill[SEATS]
        game_seed = _game_seed(master_seed, np.uint64(start + index))
        looking = watch == 0
        while True:  # one call of play_game: each call site would compile it again
            played = game
            if unwatched is not None:  # pruned before typing for a game without positions
                if not looking:
                    played = unwatched
            status = play_game(index, game_seed, attempt, never if looking else watch, deals, played, results)
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


# ---------------------------------------------------------------- the Python side

def fits(rules: RuleSet, policies=()) -> bool:
    """Whether this engine's arrays hold a game of the rule set: int16 card codes, int8 seats
    (the table family has no policies)."""
    size = rules.ranks * rules.suits + rules.jokers
    return HAVE_NUMBA and not policies and size <= MAX_CARD and rules.players <= MAX_PLAYERS


def compile_rules(rules: RuleSet) -> Rules:
    """The rule set as the engine reads it. Numbers the game cannot reach are clamped into
    int64: a war of more cards than the deck, an Ace worth more, a cap or a war count beyond
    any game, all play exactly as the clamped value does (a player never holds more than the
    deck)."""
    size = rules.ranks * rules.suits + rules.jokers
    values = war_values(rules)
    big = 1 << 62
    return Rules(
        players=rules.players, deck_size=size,
        card_rank=np.array(Deck(rules.ranks, rules.suits, rules.jokers).rank, dtype=np.int64),
        rank_value=np.array([min(v, size + 1) for v in values] if values is not None else (0,), dtype=np.int64),
        down_by_rank=values is not None,
        cards_down=0 if values is not None else min(int(rules.war_down), size),
        single_up=rules.war_tiebreak == "single_up", shortfall_loses=rules.shortfall == "lose",
        pickup=PICKUPS.index(rules.pickup), wars_to_win=min(int(rules.wars_to_win or 0), big),
        max_battles=min(int(rules.max_battles), big),
        detect_cycles=keeps_positions(rules),
    )


def keeps_positions(rules: RuleSet) -> bool:
    """Whether games of the rule set keep their positions, to look for cycles: only a fixed
    pickup order can repeat one. A game that does not has None for positions (state.Game), and
    numba compiles a second engine for it, without the code that keeps them (state.py)."""
    return rules.pickup in FIXED_PICKUPS


def deal_arrays(rules: RuleSet, deals) -> Deals:
    """Explicit deals (model.deal.Deal, each a whole deck) as the engine reads them; no rows for
    None, the games then shuffling their own deals."""
    size = rules.ranks * rules.suits + rules.jokers
    if deals is None:
        return Deals(np.empty((0, size), np.int32), np.empty((0, rules.players + 1), np.int64))
    cards = np.fromiter(chain.from_iterable(chain(*d.piles, d.set_aside) for d in deals), np.int32,
                        count=len(deals) * size).reshape(len(deals), size)
    sizes = np.fromiter(chain.from_iterable((*map(len, d.piles), len(d.set_aside)) for d in deals), np.int64,
                        count=len(deals) * (rules.players + 1)).reshape(len(deals), rules.players + 1)
    return Deals(cards, sizes)


def structures(rules: RuleSet, games: int = 1, capacity: int = 64, positions: int = 16, deals=None,
               workspace: Workspace | None = None, compiled: Rules | None = None) -> dict:
    """What play_games takes besides its numbers, by parameter name: the deals, the game's state
    (from `workspace` when given) and the results."""
    compiled = compiled or compile_rules(rules)
    game = (workspace or Workspace()).game_for(compiled, capacity, capacity, capacity // 10 + 16, positions,
                                               keep_positions=keeps_positions(rules))
    return {"deals": deal_arrays(rules, deals), "game": game, "results": new_results(games, compiled.players)}


# The steps play_game calls or links in (not inlined by numba), which numba compiles before it:
# on a first run this process compiles the first group while the helper compiles the second,
# then this one the game while the helper compiles the encoder, then the checks in whichever
# comes first (log.warm); the groups are sized so that both finish together. A step
# compiles what it calls first: a step of this process's that calls one of the helper's waits
# for the helper to put it in the cache (Helper.awaited), so this group comes in the order
# that needs the helper's latest, and the helper's starts with what this one needs (every draw
# calls reshuffle, settle calls war_round); the helper's end_game only the game calls. The
# build without positions calls no is_current_position (state.called).
STEPS = ((deal, collect, retire_empty, is_current_position, duel, open_battle, settle),
         (reshuffle, forfeit, war_round, end_game))


def events_a_game(rules: RuleSet) -> int:
    """About how many events a game logs: what the first event log is sized by, and how many
    games log.shard plays a batch."""
    deck = rules.ranks * rules.suits + rules.jokers
    return {"pooled": 1200, "shuffled": 1000}.get(rules.pickup, 700) * rules.players * deck // 104 + 64


def play_arrays(rules: RuleSet, seed: int, start: int, stop: int, policies=(), capacity: int | None = None,
                positions: int = 1024, deals=None, workspace: Workspace | None = None,
                watch: int | None = None) -> GameArrays:
    """The engine's arrays for games start..stop-1 of master seed `seed`, from `deals` (one
    model.deal.Deal a game, each checked to be a deal of the rule set's deck) when given, else
    shuffled. `capacity` (events) and `positions` (per game) are only first sizes: buffers grow
    as needed. With a `workspace`, its buffers are used and kept, and the events returned are
    views of them, valid until the workspace plays again. `watch`: how many battles a game plays
    before it is played again looking for cycles (play_games; 0 looks from the first battle);
    by default the workspace's choice (Workspace.watch). Every choice gives the same games."""
    if policies:
        raise ValueError("the table family has no decisions, so no policies")
    compiled = compile_rules(rules)
    games = max(stop - start, 0)
    if deals is not None and len(deals) != games:
        raise ValueError(f"{len(deals)} deals for {games} games")
    if capacity is None:
        capacity = games * min(events_a_game(rules), 20_000)
    if workspace is None:
        workspace = Workspace()
    dealt, game, results = structures(rules, games, capacity, positions, deals, workspace, compiled).values()
    index, attempt = 0, workspace.attempt
    if watch is None:
        watch = workspace.watch(rules, compiled)
    # no watch for rules without cycles; none beyond the cap, where a game unwatched is played again
    watch = min(watch, compiled.max_battles) if compiled.detect_cycles else 0
    replays = 0
    while True:
        unwatched = None if game.positions is None else game._replace(rules=game.rules._replace(detect_cycles=False))
        status, index, attempt, replayed = play_games(np.uint64(seed), np.int64(start), np.int64(index),
                                                      np.int64(attempt), np.int64(watch), dealt, game, unwatched,
                                                      results)
        replays += replayed
        if status == DONE:
            break
        if status == GROW_EVENTS:
            game = game._replace(log=grown_event_log(game.log, compiled.players, compiled.deck_size))
        elif status == GROW_STREAMS:
            game = game._replace(positions=with_longer_streams(game.positions))
        else:
            game = game._replace(positions=with_more_positions(compiled, game.positions))
    workspace.keep(game, attempt)
    workspace.count_unwatched(rules, games if watch > 0 else 0, replays)
    log = game.log
    return GameArrays(log.rows[:log.fill[ROWS]], log.card_values[:log.fill[CARDS]], log.seat_values[:log.fill[SEATS]],
                      results.summaries, results.war_wins, results.final_cards, results.seeds)
