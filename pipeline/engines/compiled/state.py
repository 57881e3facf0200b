"""The compiled engine's state as named tuples of numpy arrays, and the functions that make and
grow them. numba passes a named tuple to a compiled function as its fields and reads a field
at no cost; a game's steps take the whole state, `Game`, and read what they need.

The state is allocated once for a range of games and reused from game to game: a game only
writes, never allocates. The event log and the position buffers grow between games (the game
that found them too small is played again from its start, see loop.play_games).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .layout import EVENT_COLUMNS, SUMMARY_COLUMNS
from .jit import njit

# A pile's hash (Positions.pile_hash) is sum((rank + 1) * PILE_BASE**i) mod 2**64 over its cards top
# first (a position is its ranks: suits never decide a game), PILE_BASE odd so that taking the top card is a subtraction and a multiplication by its inverse.
PILE_BASE = np.uint64(0x9E3779B97F4A7C15)
PILE_BASE_INVERSE = np.uint64(pow(0x9E3779B97F4A7C15, -1, 1 << 64))


class Rules(NamedTuple):
    """A rule set as the engine reads it (each family's compiled.compile_rules, from engine.shared_rules)."""

    players: int
    deck_size: int
    card_rank: np.ndarray       # int64 [deck_size]: each card code's rank, higher wins
    rank_value: np.ndarray      # int64 [ranks + 1]: Război's value of each rank (cards down in its wars, plus one)
    down_by_rank: bool          # war size by rank (Război): rank_value; else cards_down
    cards_down: int             # cards each seat puts face down in a war
    single_up: bool             # war_tiebreak=single_up: a war of depth 2+ puts no card down
    shortfall_loses: bool       # shortfall=lose: a seat that cannot finish a war forfeits
    pickup: int                 # a PICKUPS code
    pickup_key: np.ndarray      # int64 [terms, 4]: a fixed order's key (model.pickups), none for one taken as it lies (engine.pickup_key)
    duel_order: np.ndarray      # int64 [2]: 1 where a fixed order takes a duel's two cards in seat order, by its winner
    wars_to_win: int            # 0: play for all the cards
    max_battles: int
    detect_cycles: bool         # fixed pickup orders can repeat a position: look for it
    dealt: int = 0              # cards a shuffled deck deals (model.deal.deal_plan), the rest set aside
    deal_start: int = 0         # the seat a shuffled deck's deal begins at: card i to seat (i + deal_start) mod n


class Seats(NamedTuple):
    """Each seat's cards. A pile is a ring buffer (its top at pile_head); a won pile (pooled
    pickup) a stack whose top is its end."""

    pile: np.ndarray            # int32 [players, power of two >= deck_size]
    pile_head: np.ndarray       # int64 [players]
    pile_size: np.ndarray       # int64 [players]
    won: np.ndarray             # int32 [players, deck_size]
    won_size: np.ndarray        # int64 [players]
    alive: np.ndarray           # bool [players]: still in the game
    war_wins: np.ndarray        # int64 [players]: battles with a war the seat won


class Table(NamedTuple):
    """The cards between the piles: the deck before the deal, the table of a battle and who
    put each card there, and the seats in the battle."""

    deck: np.ndarray            # int32 [deck_size]: shuffled, then dealt
    cards: np.ndarray           # int32 [deck_size]: the table, in the order the cards were put
    owners: np.ndarray          # int64 [deck_size]: the seat that put each card
    pickup_order: np.ndarray    # int32 [deck_size]: the table as the winner picks it up
    marks: np.ndarray           # int64 [deck_size]: how each card was laid: 2 x its step (0, then each war's depth), + 1 face up
    keys: np.ndarray            # int64 [deck_size]: the table's sort keys, for a fixed pickup order (moves.ordered_by_key)
    scratch: np.ndarray         # int32 [deck_size]: a won pile being reshuffled
    face_up: np.ndarray         # int64 [players]: each seat's face-up card
    contenders: np.ndarray      # int64 [players]: the seats still in the battle
    tied: np.ndarray            # int64 [players]: the seats tied for the highest rank
    ready: np.ndarray           # int64 [players]: the tied seats that go on with the war


class EventLog(NamedTuple):
    """The events of the games played so far (see layout.EVENT_COLUMNS), filled up to
    fill[ROWS], fill[CARDS] and fill[SEATS]; fill[LAID] counts the cards laid of the game being
    played (moves.emit)."""

    rows: np.ndarray            # int32 [capacity, len(EVENT_COLUMNS)]
    card_values: np.ndarray     # int16
    seat_values: np.ndarray     # int8
    fill: np.ndarray            # int64 [4]


ROWS, CARDS, SEATS, LAID = range(4)  # positions in EventLog.fill

# A counter's first value. A plain 0 is typed as the literal 0 until numba sees the counter grow,
# and a step called with it (one not inlined) would be compiled twice, for the literal and for
# int64: counters handed to steps start from this instead.
ZERO = np.int64(0)


class Positions(NamedTuple):
    """Every position of the game so far, for cycle detection (see cycles.py).

    The rank of every card ever put in a seat's pile is kept in order in the seat's stream, of
    which the pile is stream[s, stream_start[s]:stream_end[s]]: a position is then stored as each
    seat's (stream_start, pile size), and compared rank for rank (docs/rules.md 2.6: suits never
    decide a game). pile_hash[s] is seat s's pile's hash, kept up to date move by move."""

    pile_hash: np.ndarray       # uint64 [players]
    hash_powers: np.ndarray     # uint64 [deck_size + 1]: PILE_BASE**i
    stream: np.ndarray          # int16 [players, length]
    stream_start: np.ndarray    # int64 [players]
    stream_end: np.ndarray      # int64 [players]
    start: np.ndarray           # int64 [capacity * players]: stored positions' stream_start
    size: np.ndarray            # int64 [capacity * players]: stored positions' pile sizes
    war_wins: np.ndarray        # int64 [capacity * players]: their war wins (wars_to_win > 0)
    hashes: np.ndarray          # uint64 [capacity]
    slots: np.ndarray           # int64 [power of two]: open addressing, position numbers
    slot_attempt: np.ndarray    # int64: the attempt at a game a slot was filled in (see cycles.py)


class Game(NamedTuple):
    """Everything the steps of a game read and write. `positions` is None for a game that keeps
    none (see Workspace.game_for): numba then compiles a build of the engine without the code
    that keeps them (moves.py)."""

    rules: Rules
    rng: np.ndarray             # uint64 [4]: the game's generator (xoshiro256** state, see rng.py)
    seats: Seats
    table: Table
    positions: Positions | None
    log: EventLog


NO_SEEDS = np.empty(0, np.uint64)  # Deals.seeds of games whose seeds come from the master seed


class Deals(NamedTuple):
    """Explicit deals, one row per game; no rows when the games shuffle their own deal. `seeds`,
    when it has rows, is each game's seed (a game taken from another dataset keeps its own);
    else game i's seed comes from the master seed."""

    cards: np.ndarray           # int32 [games, deck_size]: the seats' piles top first, one after another, then the cards set aside
    sizes: np.ndarray           # int64 [games, players + 1]: each seat's pile size, then the cards set aside
    seeds: np.ndarray = NO_SEEDS  # uint64 [games] or [0]


class Results(NamedTuple):
    """Per game played: what layout.GameArrays gives besides the events."""

    summaries: np.ndarray       # int64 [games, len(SUMMARY_COLUMNS)]
    war_wins: np.ndarray        # int32 [games, players]
    final_cards: np.ndarray     # int32 [games, players]
    seeds: np.ndarray           # uint64 [games]


# ---------------------------------------------------------------- sizes

@njit(cache=True, inline="always")
def most_events_per_battle(players, deck_size):
    """The most event rows one battle and the end event can take. A battle has at most
    deck_size/2 + 1 war rounds (each takes a card from two seats or more); a round logs a war
    and, per seat, at most a down split in two by a reshuffle and a play; once per seat and
    battle come a reshuffle (a won pile is refilled only by the collect), a war_out or a
    forfeit and out, and an out."""
    return (deck_size + 2) * (2 * players + 2) + 8 * players + 16


@njit(cache=True, inline="always")
def most_cards_per_battle(deck_size):
    """Each table card is played, put down or forfeited once, reshuffled at most once and
    collected (or set aside) once."""
    return 3 * deck_size + 16


@njit(cache=True, inline="always")
def most_seats_per_battle(players, deck_size):
    return (deck_size + 2) * players + 8


# ---------------------------------------------------------------- allocation, in Python

# The state is made and grown by numpy in Python, not in compiled code: each allocation compiled
# would add to the first run's compile time, and they run once a range of games (or when a
# buffer grows), where Python costs nothing that counts.

def _python(function):
    """A compiled function's Python original (itself without numba)."""
    return getattr(function, "py_func", function)


def power_of_two(x: int) -> int:
    """The least power of two >= x."""
    p = 1
    while p < x:
        p *= 2
    return p


def new_results(games: int, players: int) -> Results:
    return Results(np.zeros((games, len(SUMMARY_COLUMNS)), np.int64), np.zeros((games, players), np.int32),
                   np.zeros((games, players), np.int32), np.zeros(games, np.uint64))


def new_game(rules: Rules, events: int, cards: int, seats: int, positions: int, keep_positions: bool) -> Game:
    """A game's state for `rules`, room for `events` events (and `cards`, `seats` values of them)
    and `positions` positions a game to begin with; None for positions unless `keep_positions`."""
    return Game(rules, np.zeros(4, np.uint64), new_seats(rules.players, rules.deck_size),
                new_table(rules.players, rules.deck_size), new_positions(rules, positions) if keep_positions else None,
                new_event_log(events, cards, seats))


# Workspace.watch: battles a card of the deck before a game looks for cycles, and how rare
# replays must stay for games to be played without looking first.
WATCH_PER_CARD = 20
REPLAYS_AT_MOST = 32


class Workspace:
    """A game's state kept from one range of games to the next, so that a process playing shard
    after shard (generation, validation) allocates and grows its buffers once, not once a shard:
    fresh buffers cost a page fault for every 4 KiB the games write (about a sixth of
    `war generate`'s time went to the kernel) and the games replayed each time a buffer grew.

    What play_arrays returns from a workspace are views of its buffers, valid until the
    workspace plays again. `attempt` carries the attempt numbers on, so that the position
    slots of earlier ranges count as empty (see cycles.py). It also counts, per rule set, the
    games played without looking for cycles and those played again (see watch), and the games
    played and the events they logged (see events_a_game)."""

    def __init__(self) -> None:
        self.game: Game | None = None
        self.attempt = 0
        self.unwatched: dict[str, list[int]] = {}
        self.logged: dict[str, list[int]] = {}

    def events_a_game(self, rules) -> int:
        """The events a game of these rules has logged here on average (rounded up), or 0 before
        a game has been counted (count_events): what log.batches sizes its batches by once known."""
        games, events = self.logged.get(rules.rules_id, (0, 0))
        return -(-events // games) if games else 0

    def count_events(self, rules, games: int, events: int) -> None:
        """Count `games` games of these rules played, which logged `events` events."""
        counts = self.logged.setdefault(rules.rules_id, [0, 0])
        counts[0] += games
        counts[1] += events

    def game_for(self, rules: Rules, events: int, cards: int, seats: int, positions: int,
                 keep_positions: bool | None = None) -> Game:
        """The kept state when it fits `rules` (same seats, deck and kind of positions), with an
        empty log at least as large as asked; else a new one. It keeps positions when
        `keep_positions` (each engine module's keeps_positions, which also names the build warm
        compiles), by default when the rules look for cycles: a game without them has None,
        and numba compiles its engine without the code that keeps them."""
        keep = rules.detect_cycles if keep_positions is None else keep_positions
        game = self.game
        if game is not None and _same_shapes(game.rules, rules) and (game.positions is not None) == keep \
                and game.log.rows.shape[0] >= events \
                and game.log.card_values.shape[0] >= cards and game.log.seat_values.shape[0] >= seats:
            game.log.fill[:] = 0
            return game._replace(rules=rules)
        self.game = None
        return new_game(rules, events, cards, seats, positions, keep)

    def watch(self, rules, compiled: Rules) -> int:
        """How many battles a game of these rules plays before it is played again looking for
        cycles (table.play_arrays keeps it within the cap), or 0 to look from the first
        battle: WATCH_PER_CARD battles a card of the deck, while at most one game in
        REPLAYS_AT_MOST has been played again (cycles are rare under winner_first and common
        under table_order with three seats, where each replay costs the battles played before it)."""
        if not compiled.detect_cycles:
            return 0
        played, replays = self.unwatched.get(rules.rules_id, (0, 0))
        if replays * REPLAYS_AT_MOST > played + 2 * REPLAYS_AT_MOST:
            return 0
        return WATCH_PER_CARD * compiled.deck_size

    def count_unwatched(self, rules, played: int, replays: int) -> None:
        """Count `played` games played without looking for cycles, `replays` of them again."""
        counts = self.unwatched.setdefault(rules.rules_id, [0, 0])
        counts[0] += played
        counts[1] += replays

    def keep(self, game: Game, attempt: int | None = None) -> None:
        """Keep the state a range of games ended with, and the last attempt number when the
        engine numbers them (engines that look for cycles)."""
        self.game = game
        if attempt is not None:
            self.attempt = attempt


def _same_shapes(a: Rules, b: Rules) -> bool:
    return (a.players, a.deck_size, a.detect_cycles, a.wars_to_win > 0) == \
        (b.players, b.deck_size, b.detect_cycles, b.wars_to_win > 0)


def new_seats(players: int, deck_size: int) -> Seats:
    return Seats(np.zeros((players, power_of_two(deck_size)), np.int32), np.zeros(players, np.int64),
                 np.zeros(players, np.int64), np.zeros((players, deck_size), np.int32),
                 np.zeros(players, np.int64), np.zeros(players, np.bool_), np.zeros(players, np.int64))


def new_table(players: int, deck_size: int) -> Table:
    return Table(deck=np.zeros(deck_size, np.int32), cards=np.zeros(deck_size, np.int32),
                 owners=np.zeros(deck_size, np.int64), pickup_order=np.zeros(deck_size, np.int32),
                 marks=np.zeros(deck_size, np.int64), keys=np.zeros(deck_size, np.int64), scratch=np.zeros(deck_size, np.int32),
                 face_up=np.zeros(players, np.int64), contenders=np.zeros(players, np.int64),
                 tied=np.zeros(players, np.int64), ready=np.zeros(players, np.int64))


def new_event_log(events: int, cards: int, seats: int) -> EventLog:
    return EventLog(np.empty((max(events, 16), len(EVENT_COLUMNS)), np.int32), np.empty(max(cards, 16), np.int16),
                    np.empty(max(seats, 16), np.int8), np.zeros(4, np.int64))


def grown_event_log(log: EventLog, players: int, deck_size: int) -> EventLog:
    """A larger log holding log's events up to its fill (the games played so far)."""
    rows = np.empty((2 * log.rows.shape[0] + _python(most_events_per_battle)(players, deck_size), log.rows.shape[1]),
                    np.int32)
    rows[:log.fill[ROWS]] = log.rows[:log.fill[ROWS]]
    card_values = np.empty(2 * log.card_values.shape[0] + _python(most_cards_per_battle)(deck_size), np.int16)
    card_values[:log.fill[CARDS]] = log.card_values[:log.fill[CARDS]]
    seat_values = np.empty(2 * log.seat_values.shape[0] + _python(most_seats_per_battle)(players, deck_size), np.int8)
    seat_values[:log.fill[SEATS]] = log.seat_values[:log.fill[SEATS]]
    return EventLog(rows, card_values, seat_values, log.fill)


def position_buffers(rules: Rules, capacity: int, pile_hash, hash_powers, stream, stream_start,
                     stream_end) -> Positions:
    """Positions with room for `capacity` positions a game (the stored ones empty)."""
    per_seat = capacity * rules.players if rules.detect_cycles else 1
    slots = power_of_two(2 * capacity)
    return Positions(pile_hash, hash_powers, stream, stream_start, stream_end, np.zeros(per_seat, np.int64),
                     np.zeros(per_seat, np.int64),
                     np.zeros(per_seat if rules.wars_to_win > 0 else 1, np.int64),
                     np.zeros(capacity, np.uint64), np.zeros(slots, np.int64), np.zeros(slots, np.int64))


def new_positions(rules: Rules, capacity: int) -> Positions:
    """Positions for games of `rules`, room for `capacity` positions a game (fewer when the game
    cannot have as many battles; 1 when positions are not kept)."""
    players, deck_size = rules.players, rules.deck_size
    if not rules.detect_cycles:
        capacity = 1
    else:
        capacity = min(max(capacity, 2), rules.max_battles + 2)
    hash_powers = np.empty(deck_size + 1, np.uint64)
    power = 1
    for i in range(deck_size + 1):
        hash_powers[i] = power
        power = power * int(PILE_BASE) % (1 << 64)
    stream = np.zeros((players, 2 * deck_size + 4 * capacity if rules.detect_cycles else 1), np.int16)
    return position_buffers(rules, capacity, np.zeros(players, np.uint64), hash_powers, stream,
                            np.zeros(players, np.int64), np.zeros(players, np.int64))


def with_more_positions(rules: Rules, positions: Positions) -> Positions:
    """Room for twice as many positions a game (what they hold belongs to the game being
    replayed)."""
    return position_buffers(rules, 2 * positions.hashes.shape[0], positions.pile_hash, positions.hash_powers,
                            positions.stream, positions.stream_start, positions.stream_end)


def with_longer_streams(positions: Positions) -> Positions:
    """Streams twice as long (likewise)."""
    stream = np.zeros((positions.stream.shape[0], 2 * positions.stream.shape[1]), np.int16)
    return positions._replace(stream=stream)
