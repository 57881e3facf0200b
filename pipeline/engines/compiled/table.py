"""The compiled engine of the table family (Classic, Multiplayer, Jokers, Război): games of a
rule set played into flat numpy arrays (layout.GameArrays), event for event the games of
`engines.table.play_table`, the readable reference that stays the definition of the rules.

The engine, by job:

- rng.py: the SplitMix64 / xoshiro256** / bounded / Fisher-Yates, in uint64 arithmetic
  only (numba turns int64 mixed with uint64 into float64);
- layout.py: what the output arrays hold (event and summary columns, the codes of event kinds,
  outcomes and pickups, taken from pipeline.model.schema);
- state.py: the game's state as named tuples of arrays, and their allocation and growth;
- moves.py: a card taken, cards put under a pile, a reshuffle, an event logged;
- cycles.py: cycle detection (fixed pickup orders), the game's positions in a hash table;
- battle.py: one battle: cards up, wars, the collect; game.py: one game;
- this module: the loop over games (growing the buffers when a game needs it) and its entry
  from Python.

The steps of a game are compiled by `state.borrowing` (no reference counting; the steps run for
every battle inlined), which is what keeps the split engine as fast as one long function: read
its docstring before moving code between steps.

numba caches each compiled function (`cache=True`, files `*.nbi`/`*.nbc` in `__pycache__`)
keyed by its own source file only, with the code of the functions it calls inside: after editing
a module here, delete the cache (`find pipeline -name '*.nb[ic]' -delete`), or its callers keep
running the old code.

`fits(rules)` says whether a rule set's deck and seats fit these arrays; log.shard chooses
between this engine and the reference (explicit deals, other families, decks too big for an
int16 card code go through the reference).
"""

from __future__ import annotations

import numpy as np

from ...model.cards import Deck
from ...model.schema import PICKUPS, RuleSet
from ..table import war_values
from .game import DONE, GROW_EVENTS, GROW_STREAMS, play_game
from .layout import MAX_CARD, MAX_PLAYERS, GameArrays
from .rng import HAVE_NUMBA, _game_seed, njit
from .state import (
    CARDS,
    ROWS,
    SEATS,
    Rules,
    grown_event_log,
    new_game,
    new_results,
    with_log,
    with_longer_streams,
    with_more_positions,
    with_positions,
)


@njit(cache=True)
def play_games(master_seed, start, stop, rules, event_capacity, card_capacity, seat_capacity, position_capacity):
    """Play games start..stop-1 of master seed `master_seed` (uint64) under `rules` (state.Rules)
    into a GameArrays. The capacities are first sizes only: a game that finds a buffer too
    small grows it and is played again from its start."""
    games = stop - start
    results = new_results(games, rules.players)
    game = new_game(rules, event_capacity, card_capacity, seat_capacity, position_capacity)
    attempt = 0  # tells the position slots filled by this attempt at a game from older ones
    index = 0
    while index < games:
        attempt += 1
        log = game.log
        rows, cards, seat_values = log.fill[ROWS], log.fill[CARDS], log.fill[SEATS]
        game_seed = _game_seed(master_seed, np.uint64(start + index))
        status = play_game(index, game_seed, attempt, game, results)
        if status == DONE:
            results.seeds[index] = game_seed
            index += 1
            continue
        log.fill[ROWS], log.fill[CARDS], log.fill[SEATS] = rows, cards, seat_values  # played again, in larger buffers
        if status == GROW_EVENTS:
            game = with_log(game, grown_event_log(log, rules.players, rules.deck_size))
        elif status == GROW_STREAMS:
            game = with_positions(game, with_longer_streams(game.positions))
        else:
            game = with_positions(game, with_more_positions(rules, game.positions))
    log = game.log
    return GameArrays(log.rows[:log.fill[ROWS]], log.card_values[:log.fill[CARDS]], log.seat_values[:log.fill[SEATS]],
                      results.summaries, results.war_wins, results.final_cards, results.seeds)


# ---------------------------------------------------------------- the Python side

def fits(rules: RuleSet) -> bool:
    """Whether this engine's arrays hold a game of the rule set: int16 card codes, int8 seats."""
    size = rules.ranks * rules.suits + rules.jokers
    return HAVE_NUMBA and size <= MAX_CARD and rules.players <= MAX_PLAYERS


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
        detect_cycles=rules.pickup in ("table_order", "winner_first"),
    )


def play_arrays(rules: RuleSet, seed: int, start: int, stop: int, capacity: int | None = None,
                positions: int = 1024) -> GameArrays:
    """The engine's arrays for games start..stop-1 of master seed `seed`. `capacity` (events)
    and `positions` (per game) are only first sizes: buffers grow as needed."""
    compiled = compile_rules(rules)
    games = max(stop - start, 0)
    if capacity is None:
        per_game = {"pooled": 1200, "shuffled": 1000}.get(rules.pickup, 700) * compiled.players * compiled.deck_size \
            // 104 + 64  # events a game, about
        capacity = games * min(per_game, 20_000)
    return play_games(np.uint64(seed), start, start + games, compiled, capacity, capacity, capacity // 10 + 16,
                      positions)
