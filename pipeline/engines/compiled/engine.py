"""A family's compiled engine as Python sees it: one entry point for every family.

Each family's compiled module (engines/<family>/compiled.py) makes an `Engine` of what is its
own (how it reads a rule set and its seats' policies, the state it keeps besides the shared one,
about how many events a game logs, the steps a first run compiles in two processes) and
registers its family steps with the loop (loop.register). Everything else is here, the same for
every family: making the state (from a workspace, state.Workspace), playing a range of games
through loop.play_games, growing a buffer and playing again the game that found it too small,
and handing the arrays back (layout.GameArrays).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Callable

import numpy as np

from ...model.cards import Deck
from ...model.all_deals import AllDeals
from ...model.deal import Deal, deal_plan
from ...model.pickups import PICKUPS_BY_NAME, TERMS, radices
from ...model.schema import PICKUPS, RuleSet
from .deals import enumerated_deals
from .jit import HAVE_NUMBA
from .layout import MAX_CARD, MAX_PLAYERS, GameArrays
from .loop import DONE, GROW_EVENTS, GROW_STREAMS, play_games
from .state import (
    CARDS, ROWS, SEATS, Deals, Rules, Workspace, grown_event_log, new_results, with_longer_streams,
    with_more_positions,
)


def shared_rules(rules: RuleSet) -> Rules:
    """The parts of a rule set every family's engine reads alike (a family sets its own from
    them: war sizes, shortfall, pickup, cycles). Numbers the game cannot reach are clamped into
    int64: a cap or a war count beyond any game plays exactly as the clamped value does."""
    size = rules.ranks * rules.suits + rules.jokers
    big = 1 << 62
    dealt, deal_start = deal_plan(rules)
    return Rules(
        players=rules.players, deck_size=size,
        card_rank=np.array(Deck(rules.ranks, rules.suits, rules.jokers).rank, dtype=np.int64),
        rank_value=np.zeros(1, np.int64), down_by_rank=False,
        cards_down=min(int(rules.war_down), size) if isinstance(rules.war_down, int) else 0,
        single_up=rules.war_tiebreak == "single_up", shortfall_loses=rules.shortfall == "lose",
        pickup=PICKUPS.index(rules.pickup), pickup_key=pickup_key(rules.pickup, size, rules.players),
        duel_order=duel_order(rules.pickup), wars_to_win=min(int(rules.wars_to_win or 0), big),
        max_battles=min(int(rules.max_battles), big), detect_cycles=False, dealt=dealt, deal_start=deal_start,
    )


def pickup_key(pickup: str, deck_size: int, players: int) -> np.ndarray:
    """A fixed pickup order's key (model.pickups) as the compiled engines read it (moves.ordered_by_key):
    a row a term, (its TERMS code, 1 if descending, how many values it takes, its weight), the
    weights packing the terms into one int64 from the first (the heaviest) to the last. No row for
    an order that takes the cards as they lie, nor for one drawn or pooled."""
    order = PICKUPS_BY_NAME[pickup]
    if not order.fixed or order.as_laid:
        return np.zeros((0, 4), np.int64)
    sizes = radices(order.key, deck_size, players)
    rows, weight = [], 1
    for (term, sign), size in reversed(list(zip(order.key, sizes))):
        rows.append((TERMS.index(term), int(sign < 0), size, weight))
        weight *= size
    return np.array(rows[::-1], np.int64)


def duel_order(pickup: str) -> np.ndarray:
    """Whether a fixed order takes a duel's two cards in seat order, when seat 0 or seat 1 wins
    it (model.pickups.Pickup.duel_in_seat_order); zeros for an order drawn or pooled."""
    order = PICKUPS_BY_NAME[pickup]
    return np.array([int(order.fixed and order.duel_in_seat_order(w)) for w in (0, 1)], np.int64)


def deal_arrays(rules: RuleSet, deals: list[Deal] | None, seeds=None) -> Deals:
    """Explicit deals (model.deal.Deal, each a whole deck) as the engine reads them; no rows for
    None, the games then shuffling their own deals; with each game's own `seeds` when given."""
    made = _deal_arrays(rules, deals)
    if seeds is None:
        return made
    return made._replace(seeds=np.array(seeds, np.uint64))


def _deal_arrays(rules: RuleSet, deals) -> Deals:
    size = rules.ranks * rules.suits + rules.jokers
    if isinstance(deals, AllDeals):
        return enumerated_deals(rules, deals.start, deals.stop)
    if isinstance(deals, Deals):  # made as arrays already (jobs.search)
        return deals
    if deals is None:
        return Deals(np.empty((0, size), np.int32), np.empty((0, rules.players + 1), np.int64))
    cards = np.fromiter(chain.from_iterable(chain(*d.piles, d.set_aside) for d in deals), np.int32,
                        count=len(deals) * size).reshape(len(deals), size)
    sizes = np.fromiter(chain.from_iterable((*map(len, d.piles), len(d.set_aside)) for d in deals), np.int64,
                        count=len(deals) * (rules.players + 1)).reshape(len(deals), rules.players + 1)
    return Deals(cards, sizes)


@dataclass(frozen=True)
class Engine:
    """A family's compiled engine (the module's docstring)."""

    # The seats' policies (as engines.game.resolve_policies takes them) as the codes the
    # family's state holds; None when one has no compiled form (the reference then plays).
    policy_codes: Callable[[RuleSet, object], np.ndarray | None]
    # The rule set as the engine reads it, for these policy codes.
    compile_rules: Callable[[RuleSet, np.ndarray], Rules]
    # The family's own state for a game (state.Game), for these policy codes (None: codes of
    # the types of every policy, for a first run's compile).
    new_state: Callable[[RuleSet, np.ndarray | None, object], tuple]
    # About how many events a game logs: the first event log's size, and log.batches' batch
    # until games of the rule set have been counted.
    events_a_game: Callable[[RuleSet], int]
    # Whether games of the rule set keep positions (state.Game.positions is None otherwise, and
    # numba compiles a build without the code that keeps them): one answer for every rule set
    # of the family, so that it has one build (docs/decisions.md, "One build a family").
    keeps_positions: Callable[[RuleSet], bool]
    # The steps the loop calls or links in, which a first run's two processes share before the
    # games (log.warm, jit.warm.Sharing), in the order they come to them: a step's callees before
    # it where they can be, the battle last.
    steps: tuple
    # The name of the family state's parameter in the family's steps (STEPS' step_types).
    state_name: str = "family"
    # Whether a game may first be played without looking for cycles (state.Workspace.watch).
    watched: bool = False
    # The family's state once its game's positions have grown, when it keeps something per position.
    refit: Callable[[tuple, object], tuple] | None = None
    players: tuple[int, int] = (2, MAX_PLAYERS)
    # Whether seats hold hands, which the family's state keeps (`hands`, `hand_size`,
    # `stored_hands`) and positions include (cycles.earlier_position).
    hands: bool = False

    @property
    def STEPS(self) -> tuple:  # noqa: N802 - the name every engine module gives it
        return self.steps

    @property
    def play_games(self):
        return play_games

    def fits(self, rules: RuleSet, policies=()) -> bool:
        """Whether this engine plays games of the rule set with these policies: int16 card codes,
        its numbers of seats, every seat's policy with a compiled form."""
        size = rules.ranks * rules.suits + rules.jokers
        low, high = self.players
        return (HAVE_NUMBA and size <= MAX_CARD and low <= rules.players <= high
                and self.policy_codes(rules, policies) is not None)

    def structures(self, rules: RuleSet, policies=(), games: int = 1, capacity: int = 256, positions: int = 16,
                   deals=None, workspace: Workspace | None = None, compiled: Rules | None = None,
                   policy: np.ndarray | None = None, seeds=None) -> dict:
        """What play_games takes besides its numbers, by parameter name: the deals, the game's
        state (from `workspace` when given), the family's state and the results. Without
        policies, the family's state has the types of every policy (a first run's compile)."""
        if policy is None and policies:
            policy = self.policy_codes(rules, policies)
        compiled = compiled or self.compile_rules(rules, policy)
        game = (workspace or Workspace()).game_for(compiled, capacity, 3 * capacity, capacity // 4 + 16, positions,
                                                   keep_positions=self.keeps_positions(rules))
        family = self.new_state(rules, policy, game)
        structures = {"deals": deal_arrays(rules, deals, seeds), "game": game, "family": family,
                      "results": new_results(games, compiled.players), "hands": family if self.hands else None}
        if self.state_name != "family":
            structures[self.state_name] = family
        return structures

    def play_arrays(self, rules: RuleSet, seed: int, start: int, stop: int, policies=(), capacity: int | None = None,
                    positions: int = 1024, deals=None, workspace: Workspace | None = None,
                    watch: int | None = None, seeds=None) -> GameArrays:
        """The engine's arrays for games start..stop-1 of master seed `seed` with the seats'
        policies, from `deals` (one model.deal.Deal a game, each checked to be a deal of the
        rule set's deck) when given, else shuffled. `capacity` (events) and `positions` (per
        game) are only first sizes: buffers grow as needed. With a `workspace`, its buffers are
        used and kept, and the events returned are views of them, valid until the workspace
        plays again. `watch`: how many battles a game plays before it is played again looking
        for cycles (loop.play_games; 0 looks from the first battle); by default the workspace's
        choice (Workspace.watch) where the family allows it. Every choice gives the same games.
        `seeds`: each game's own seed, where the games keep the seeds they had in another
        dataset (else game i's seed comes from `seed`)."""
        policy = self.policy_codes(rules, policies)
        if policy is None:
            raise ValueError("a policy without a compiled form: the reference engine plays it")
        compiled = self.compile_rules(rules, policy)
        games = max(stop - start, 0)
        dealt = deals.cards.shape[0] if isinstance(deals, Deals) else None if deals is None else len(deals)
        if dealt is not None and dealt != games:
            raise ValueError(f"{dealt} deals for {games} games")
        if capacity is None:
            capacity = games * min(self.events_a_game(rules), 20_000) + 1024
        if workspace is None:
            workspace = Workspace()
        if seeds is not None and len(seeds) != games:
            raise ValueError(f"{len(seeds)} seeds for {games} games")
        made = self.structures(rules, (), games, capacity, positions, deals, workspace, compiled, policy, seeds)
        dealt, game, family, results = made["deals"], made["game"], made["family"], made["results"]
        index, attempt = 0, workspace.attempt
        if watch is None:
            watch = workspace.watch(rules, compiled) if self.watched else 0
        # no watch for rules without cycles; none beyond the cap, where a game unwatched is played again
        watch = min(watch, compiled.max_battles) if compiled.detect_cycles else 0
        replays = 0
        unwatched_rules = None if game.positions is None else game.rules._replace(detect_cycles=False)
        while True:
            status, index, attempt, replayed = play_games(np.uint64(seed), np.int64(start), np.int64(index),
                                                          np.int64(attempt), np.int64(watch), dealt, game,
                                                          unwatched_rules, family, results)
            replays += replayed
            if status == DONE:
                break
            if status == GROW_EVENTS:
                game = game._replace(log=grown_event_log(game.log, compiled.players, compiled.deck_size))
            elif status == GROW_STREAMS:
                game = game._replace(positions=with_longer_streams(game.positions))
            else:
                game = game._replace(positions=with_more_positions(compiled, game.positions))
                if self.refit is not None:
                    family = self.refit(family, game)
        workspace.keep(game, attempt)
        if self.watched:
            workspace.count_unwatched(rules, games if watch > 0 else 0, replays)
        log = game.log
        return GameArrays(log.rows[:log.fill[ROWS]], log.card_values[:log.fill[CARDS]],
                          log.seat_values[:log.fill[SEATS]], results.summaries, results.war_wins,
                          results.final_cards, results.seeds)
