"""The reference engines' events written straight into the compiled engines' arrays
(engines.compiled.layout), so that a shard the reference engine plays is encoded by the same
compiled encoder (log.compiled.ShardBuilder) as a compiled engine's: no Event object a step, no
Python pass over a game's events to spell its rows (docs/decisions.md, "The reference engines
record into arrays").

An event is one Python int while the batch is played (its battle, kind, seat and number of
cards packed in bits, `CODE`; a decision's note and counts too, `DECIDED`), its cards go to one
list, and the few events that carry more (a value, a note but a decision's, a seat or a count of
cards that does not fit its bits) add a row of `extras`; `arrays()` unpacks the batch with numpy. Packing costs the engine one `|` an event
and numpy one conversion an event, where seven columns of ints cost seven.

An event the arrays cannot say exactly as log.codec would spell it (a kind not in the registry,
a value or a note on a kind that carries none, options on anything but a decision) makes the
recorder `lost`: the shard is then played again through the Event path (log.shard.play_range),
which spells anything. The arrays never give other bytes than that path; they only give up.
So does an event that no log of the family holds (a kind the family does not declare, a note
that is not one word): the recorder knows only the family's kinds, so such an event takes the
slow branch, and the Event path names it as the engine's fault (engines.game.play_game), at no
cost to the events that are right.
"""

from __future__ import annotations

from itertools import chain
from operator import itemgetter

import numpy as np

from ..engines.compiled.layout import (
    EVENT_BATTLE, EVENT_CARDS_END, EVENT_COLUMNS, EVENT_KIND, EVENT_NOTE, EVENT_SEAT, EVENT_SEATS_END, EVENT_VALUE,
    KIND_COLLECT, KIND_DECISION, KIND_DOWN, KIND_END, KIND_PLAY, KIND_WAR, MAX_CARD, NOTES,
    PUTS, SUMMARY_CARDS_SET_ASIDE, SUMMARY_COLUMNS, SUMMARY_EVENTS, SUMMARY_WARS, WAR_DEPTH_NOTES, GameArrays,
)
from ..engines.event import Recorder
from ..errors import WarError
from ..model.schema import EVENT_KINDS, OUTCOMES

KIND_CODES = {kind: code for code, kind in enumerate(EVENT_KINDS)}
# The kinds whose events carry no value: such an event with no value, note, seats or options is
# written by the fast branch of ArrayRecorder.emit.
PLAIN_CODES = {kind: code for kind, code in KIND_CODES.items() if code not in (KIND_WAR, KIND_END, KIND_DECISION)}
NOTE_CODES = {note: code for code, note in enumerate(NOTES)}
# The decisions whose value is their war's depth (Decision.war_depth), by note.
DEPTH_NOTES = frozenset(note for note, depth in zip(NOTES, WAR_DEPTH_NOTES) if depth)
# The notes a decision of no value is written with by ArrayRecorder.emit's own branch (_emit's
# checks passed): those whose value is not their war's depth.
DECISION_NOTE_CODES = {note: code for note, code in NOTE_CODES.items() if note not in DEPTH_NOTES}
OUTCOME_CODES = {outcome: code for code, outcome in enumerate(OUTCOMES)}
WIDTH = len(EVENT_COLUMNS)
ROW = np.dtype((np.void, 4 * WIDTH))  # an event's row of int32 as one item
INT32 = np.iinfo(np.int32)

# An event's code: battle << BATTLE_SHIFT | cards << CARDS_SHIFT | (seat + 1) << SEAT_SHIFT | kind.
# Its kind takes the low byte (KIND_CODES), seat + 1 the next (0: no seat), its number of cards
# (a decision's options counted in) 16 bits; the battle the rest, sign and all, so a battle out
# of the int32 range is found after unpacking. An event whose seat is not one of the game's (or
# -1), or whose count does not fit, says so in its row of `extras` instead (its bits left 0).
SEAT_SHIFT, CARDS_SHIFT, BATTLE_SHIFT = 8, 16, 32
SEAT_LIMIT, CARDS_LIMIT = 255, 1 << 16  # seat + 1 fits its byte below SEAT_LIMIT
EXTRA = 6  # an extras row: event, seat, value column, note code, cards (and options), seats
# A decision of no value by a seat of the game (ArrayRecorder.decision) is one code, no row of
# extras, while its counts are small: its kind byte DECIDED | its note's code, its count bits its
# options (8 bits), cards (4) and seats (4); `arrays()` unpacks it. A plugin's policy may be asked
# at every tie, and six ints of extras cost more to convert than the whole of a plain event.
DECIDED, NOTE_MASK = 0x80, 0x7F
OPTIONS_SHIFT, HELD_BITS, CHOSEN_BITS = CARDS_SHIFT, 8, 12  # the three counts' places, from OPTIONS_SHIFT up
HELD_SHIFT, CHOSEN_SHIFT = OPTIONS_SHIFT + HELD_BITS, OPTIONS_SHIFT + CHOSEN_BITS
# A run of duels (engines.event.Recorder.duels) is one code of kind RUN while the batch is played,
# its battle the run's first; `runs` holds its two seats and length, `takers` each duel's taker,
# `noted` the number of the batch's duels before each run with events of its duels and that
# run's `noted` ((duel, kind): the duel's taker's card logs an event of the kind, a hook's
# `decides`, between its plays and its collect). `arrays()` unfolds a run into its three events
# a duel, four a noted one.
RUN = 0xFF
RUN_EVENTS = 3
RUN_CARDS, RUN_LAID = 4, 2  # a duel's cards: two played, two collected
DUEL_CARDS_ENDS = np.array([1, 2, 4], np.int32)  # each of its events' cards_end, from the cards before it
# a duel's three rows, less its run's battle, seats and cards before it and its taker (`_rows`);
# each duel of a run adds one to the one before's battle and RUN_CARDS to its cards_end
DUEL_ROWS = np.zeros((RUN_EVENTS, WIDTH), np.int32)
DUEL_ROWS[:, EVENT_KIND] = (KIND_PLAY, KIND_PLAY, KIND_COLLECT)
DUEL_ROWS[:, EVENT_NOTE] = -1
DUEL_ROWS[:, EVENT_CARDS_END] = DUEL_CARDS_ENDS
PUTS_BY_CODE = np.zeros(256, np.bool_)  # layout.PUTS by a code's kind byte (RUN's False: `arrays` counts a run's)
PUTS_BY_CODE[:PUTS.shape[0]] = PUTS


class Unrepresentable(WarError):
    """An event or a game's summary that the arrays cannot hold as the Event path would write
    it: the shard goes that way instead. Never reaches a user (log.batches catches it)."""


class ArrayRecorder:
    """A batch of games' events as layout's arrays, in flat Python lists until `arrays()`: each
    event a packed int in `codes`, its cards (and a decision's options) in `cards`, its seats in
    `seats`, what more it carries in `extras`. One game at a time: `begin()`, the engine's
    `emit`s (and `plays`), `end_game(summary, seed)`."""

    __slots__ = ("codes", "cards", "seats", "extras", "runs", "takers", "noted", "noted_events", "duels", "game_unfolded",
                 "summaries", "war_wins", "final_cards", "seeds", "players", "game_start", "depth", "depth_battle",
                 "lost", "emit", "plays", "war_round", "decision", "kinds", "plain", "deck_size")

    def __init__(self, players: int, kinds=None, deck_size: int = MAX_CARD + 1) -> None:
        self.players = players
        self.deck_size = deck_size  # a card past the deck's is the engine's fault: the Event path says so
        # the kinds the family declares (None: every kind of the registry); the kinds of the
        # fast branches, those of them
        self.kinds = frozenset(KIND_CODES if kinds is None else kinds)
        self.plain = {kind: code for kind, code in PLAIN_CODES.items() if kind in self.kinds}
        self.lost: str | None = None  # why an event or summary could not be held, once one could not
        self.codes: list[int] = []
        self.cards: list[int] = []
        self.seats: list[int] = []
        self.extras: list[int] = []
        self.runs: list[int] = []
        self.takers: list[int] = []
        self.noted: list = []
        self.decision = self._decider(self.codes, self.cards)
        self.emit = self._emitter(self.codes, self.cards)
        self.duels = self._dueller(self.codes, self.cards, self.runs, self.takers, self.noted)
        self.plays = self._player(self.codes, self.cards)
        self.war_round = self._war_rounds(self.codes, self.cards)
        if not {"play", "down", "war", "collect"} <= self.kinds:  # a family without them: each event by `emit`
            self.duels = Recorder.duels.__get__(self)
            self.plays = Recorder.plays.__get__(self)
            self.war_round = Recorder.war_round.__get__(self)
        self.clear()

    def clear(self) -> None:
        """Empty, for the next batch (the event lists emptied in place: `emit` and `duels` write into them)."""
        del self.codes[:], self.cards[:], self.seats[:], self.extras[:], self.runs[:], self.takers[:], self.noted[:]
        self.noted_events = 0  # the batch's runs' noted events
        self.game_unfolded = 0
        self.summaries: list[int] = []
        self.war_wins: list[int] = []
        self.final_cards: list[int] = []
        self.seeds: list[int] = []
        self.game_start = 0

    @property
    def unfolded(self) -> int:
        """Events the batch's runs add to their codes when unfolded: three a duel and each noted
        event, less the run's own code (counted here, not by each run as `duels` writes it)."""
        return RUN_EVENTS * len(self.takers) + self.noted_events - len(self.runs) // 3

    @property
    def events(self) -> int:
        """Events of the batch so far."""
        return len(self.codes) + self.unfolded

    @property
    def position(self) -> int:
        """Events of the game being played so far (engines.event.Recorder.position)."""
        return len(self.codes) - self.game_start + self.unfolded - self.game_unfolded

    def begin(self) -> None:
        self.game_start = len(self.codes)
        self.game_unfolded = self.unfolded
        self.depth, self.depth_battle = 0, None

    def _dueller(self, codes: list[int], all_cards: list[int], runs: list[int], all_takers: list[int], all_noted: list):
        """The recorder's `duels(battle, seats, cards, takers, noted=())` (engines.event.Recorder.duels):
        a run kept as one code until `arrays()`, its `noted` events as they are (`arrays()`
        numbers and codes them all at once); a function over the batch's lists, as `emit` is."""
        add_cards, add_takers, add_runs, add = all_cards.extend, all_takers.extend, runs.extend, codes.append
        add_noted = all_noted.extend

        def duels(battle: int, seats, cards, takers, noted=()) -> None:
            if noted:
                add_noted((len(all_takers), noted))
                self.noted_events += len(noted)
            add_cards(cards)
            add_takers(takers)
            add_runs((seats[0], seats[1], len(takers)))
            add(battle << BATTLE_SHIFT | RUN)

        return duels

    def _emitter(self, codes: list[int], all_cards: list[int]):
        """The recorder's `emit(battle, kind, seat, cards, seats, options, value, note)`
        (engines.event.Recorder.emit): a function over the batch's lists, not a method, for it
        is called for every event a hook reports. An event of a kind that carries no value, with
        no value, note, seats or options, by a seat of the game or none, is written here as one
        code, and a decision without a value by `decision`; any other by `_emit`, which says
        what is wrong with it or writes what the code cannot hold in a row of extras."""
        slow, add_cards, add, decision = self._emit, all_cards.extend, codes.append, self.decision
        # a plain kind and a seat of the game (or none) -> the code's kind and seat bits: one
        # lookup for what would be a lookup and five tests (a seat equal to one of these, True
        # or 1.0, is written as `_emit` would write it, as that int; any other seat is `_emit`'s)
        seated = {(kind, seat): (0 if seat is None else seat + 1) << SEAT_SHIFT | code
                  for kind, code in self.plain.items() for seat in (None, *range(min(self.players, SEAT_LIMIT)))}

        def emit(battle: int, kind: str, seat: int | None = None, cards=(), seats=(), options=(),
                 value: int | None = None, note: str | None = None) -> None:
            if value is None and note is None and not seats and not options:
                try:  # the count and kind as one small int: each step on the battle's wide int makes a new one
                    low = len(cards) << CARDS_SHIFT | seated[kind, seat]
                    code = battle << BATTLE_SHIFT | low
                except (KeyError, TypeError):  # not a plain kind or seat, or a battle that is not an int
                    return slow(battle, kind, seat, cards, seats, options, value, note)
                if low >> BATTLE_SHIFT:  # a count past its bits: in a row of extras
                    return slow(battle, kind, seat, cards, seats, options, value, note)
                add_cards(cards)
                add(code)
            elif kind == "decision" and value is None:
                decision(battle, seat, note, cards, seats, options)
            else:
                slow(battle, kind, seat, cards, seats, options, value, note)

        return emit

    def _decider(self, codes: list[int], all_cards: list[int]):
        """The recorder's `decision(battle, seat, note, cards, seats, options)`
        (engines.event.Recorder.decision): a decision of a note the family declares (not a war
        depth's) by a seat of the game, packed in one code (DECIDED), any other by `_emit`,
        which says what is wrong with it. A count too large for its bits spills into the next
        field; `arrays()` finds so (the counts' sum is not the cards' or seats' number) and gives
        the shard up (the Event path then spells it)."""
        slow, add_cards, add_seats, add = self._emit, all_cards.extend, self.seats.extend, codes.append
        # (note, seat) -> the code's kind and seat bytes (1, True and 1.0 are seat 1, as `_emit` has them)
        packed = ({(note, seat): DECIDED | code | (seat + 1) << SEAT_SHIFT
                   for note, code in DECISION_NOTE_CODES.items() if code < NOTE_MASK
                   for seat in range(min(self.players, SEAT_LIMIT))}
                  if "decision" in self.kinds and len(KIND_CODES) <= DECIDED else {})

        def decision(battle: int, seat: int, note: str, cards, seats, options) -> None:
            try:  # the counts shifted as one small int: each step on the battle's wide int makes a new one
                code = battle << BATTLE_SHIFT | (packed[note, seat] | (len(seats) << CHOSEN_BITS | len(cards)
                                                                       << HELD_BITS | len(options)) << OPTIONS_SHIFT)
            except (KeyError, TypeError):
                return slow(battle, "decision", seat, cards, seats, options, None, note)
            add_cards(cards)
            add_cards(options)
            add_seats(seats)
            add(code)

        return decision

    def _player(self, codes: list[int], all_cards: list[int]):
        """The recorder's `plays(battle, seats, cards)` (engines.event.Recorder.plays): a `play`
        event of each seat with its card, in order, from the engine's own loop (seats in the game,
        cards from their piles), so nothing is checked here."""
        one = [1 << CARDS_SHIFT | (seat + 1) << SEAT_SHIFT | KIND_PLAY for seat in range(self.players)]
        add_cards, add = all_cards.extend, codes.extend

        def plays(battle: int, seats, cards) -> None:
            at = battle << BATTLE_SHIFT
            add_cards(cards)
            if len(seats) == 2:
                add((at | one[seats[0]], at | one[seats[1]]))
            else:
                add([at | one[seat] for seat in seats])

        return plays

    def _war_rounds(self, codes: list[int], all_cards: list[int]):
        """The recorder's `war_round(battle, depth, seats, first_down, first_up, second_down,
        second_up)` (engines.event.Recorder.war_round): the war's event as `_emit` writes it (its
        depth as value, its two seats), the cards laid as `emit` writes them, from the engine's
        own loop (seats in the game, cards from their piles, a war's depth)."""
        one = [1 << CARDS_SHIFT | (seat + 1) << SEAT_SHIFT | KIND_PLAY for seat in range(self.players)]
        down = [(seat + 1) << SEAT_SHIFT | KIND_DOWN for seat in range(self.players)]
        add_cards, add, add_seats, add_extras = all_cards.extend, codes.append, self.seats.extend, self.extras.extend

        def war_round(battle: int, depth: int, seats, first_down, first_up: int, second_down, second_up: int) -> None:
            if len(first_down) >= CARDS_LIMIT or len(second_down) >= CARDS_LIMIT:
                return Recorder.war_round(self, battle, depth, seats, first_down, first_up, second_down, second_up)
            at = battle << BATTLE_SHIFT
            first, second = seats
            self.depth, self.depth_battle = depth, battle
            add_seats(seats)
            add_extras((len(codes), -1, depth, -1, 0, 2))
            add(at | KIND_WAR)
            if first_down:
                add_cards(first_down)
                add(at | len(first_down) << CARDS_SHIFT | down[first])
            all_cards.append(first_up)
            add(at | one[first])
            if second_down:
                add_cards(second_down)
                add(at | len(second_down) << CARDS_SHIFT | down[second])
            all_cards.append(second_up)
            add(at | one[second])

        return war_round

    def _emit(self, battle, kind, seat, cards, seats, options, value, note) -> None:
        """An event of any kind: its value column as layout says (a war's depth, an end's battles,
        a decision's option count), after checking that the encoder will spell it as log.codec;
        what its code cannot hold in a row of `extras`."""
        code = KIND_CODES.get(kind) if type(kind) is str else None
        if code is None:
            raise self._lose(f"an event of kind {kind!r}, which the registry does not name")
        if kind not in self.kinds:
            raise self._lose(f"an event of kind {kind!r}, which the family does not declare")
        try:
            # a seat equal to one of the game's (1, True, 1.0, numpy's 1), as the Event path's
            # wrong_places asks: 0.5 lies between two seats and is none
            if seat is not None and seat not in range(self.players):
                raise self._lose(f"an event by seat {seat!r}, not a seat of the game")
        except TypeError:
            raise self._lose(f"an event by seat {seat!r}, not a number") from None
        if note is None:
            note_code = -1
        else:
            note_code = NOTE_CODES.get(note, -2) if type(note) is str else -2
            if note_code == -2:
                raise self._lose(f"a note {note!r}, neither an outcome nor a decision")
        if code == KIND_WAR or code == KIND_END:
            if type(value) is not int or options:
                raise self._lose(f"a {kind} event with value {value!r} and options {options!r}")
            column = value
            if code == KIND_WAR:
                self.depth, self.depth_battle = value, battle
        elif code == KIND_DECISION:
            # the encoder gives a war_depth decision the depth of its row's last war as its value
            depth = self.depth if self.depth_battle == battle else 0
            if value is not None if note not in DEPTH_NOTES else value != depth:
                raise self._lose(f"a {note} decision with value {value!r}")
            column = len(options)
        elif value is not None or options:
            raise self._lose(f"a {kind} event with value {value!r} and options {options!r}")
        else:
            column = 0
        try:
            at = battle << BATTLE_SHIFT
        except TypeError:
            raise self._lose(f"a battle {battle!r} that is not an integer") from None
        all_cards = self.cards
        all_cards += cards
        if options:
            all_cards += options
        if seats:
            self.seats += seats
        self.extras += (len(self.codes), -1 if seat is None else seat, column, note_code,
                        len(cards) + len(options), len(seats))
        self.codes.append(at | code)

    def _noted(self) -> np.ndarray:
        """The batch's noted events as rows (duel, kind code), the duel numbered among the
        batch's. A kind that is not plain (one carrying a value, not in the registry, or not the
        family's) is said by `_emit` in the Event path, so the batch goes there."""
        if not self.noted:
            return np.zeros((0, 2), np.int64)
        befores, noted = self.noted[0::2], self.noted[1::2]
        pairs = list(chain.from_iterable(noted))
        kinds = list(map(itemgetter(1), pairs))
        try:
            plain = {kind: self.plain.get(kind) for kind in set(kinds)}
        except TypeError:  # a kind that is not even hashable
            raise self._lose("an event of a kind that is not a name in a run of duels") from None
        for kind, code in plain.items():
            if code is None:
                raise self._lose(f"an event of kind {kind!r} in a run of duels")
        rows = np.empty((len(pairs), 2), np.int64)
        rows[:, 0] = np.fromiter(map(itemgetter(0), pairs), np.int64, len(pairs))
        rows[:, 0] += np.repeat(befores, np.fromiter(map(len, noted), np.int64, len(noted)))
        rows[:, 1] = [plain[kind] for kind in kinds] if len(plain) > 1 else plain[kinds[0]]
        return rows

    def _lose(self, why: str) -> Unrepresentable:
        self.lost = self.lost or why
        return Unrepresentable(why)

    def finish(self) -> None:
        """Called once after the end event (engines.event.Recorder.finish)."""

    def end_game(self, summary, seed: int) -> None:
        """The game just played: its summary's columns (layout.SUMMARY_COLUMNS; cards_laid is
        counted in `arrays`), war wins, final cards and seed."""
        s = summary
        outcome = OUTCOME_CODES.get(s.outcome)
        cycle = s.outcome == "cycle"
        if (outcome is None or len(s.war_wins) != self.players or len(s.final_cards) != self.players
                or cycle != (s.cycle_key is not None) or s.cycle_length is not None and s.cycle_length < 0):
            raise self._lose("a game summary the games table's arrays cannot hold")
        self.summaries += (outcome, -1 if s.winner is None else s.winner, s.battles, s.wars, s.war_battles,
                           s.max_war_depth, s.first_battle_war, s.cards_set_aside,
                           -1 if s.cycle_length is None else s.cycle_length, self.position, 0,
                           s.cycle_key if cycle else 0)
        self.war_wins += s.war_wins
        self.final_cards += s.final_cards
        self.seeds.append(seed)

    def arrays(self) -> GameArrays:
        """The batch as layout.GameArrays, each value checked to fit its array's type; the
        summaries' cards_laid counted from the events (cards of the kinds that put cards on the
        table, as log.tables.cards_laid). Unrepresentable when a value does not fit."""
        try:
            codes = np.array(self.codes, np.int64)
            cards = _small_array(self.cards)
            seats = _integers(self.seats)
            extras = np.array(self.extras, np.int64).reshape(-1, EXTRA)
            summaries = np.array(self.summaries, np.int64).reshape(-1, len(SUMMARY_COLUMNS))
            players = self.players
            war_wins = np.array(self.war_wins, np.int64).reshape(-1, players)
            final_cards = np.array(self.final_cards, np.int64).reshape(-1, players)
            seeds = np.array(self.seeds, np.uint64)
            runs = _integers(self.runs).reshape(-1, 3)
            takers = _small_array(self.takers)
        except (TypeError, ValueError, OverflowError) as err:
            raise self._lose(f"a value that is not a 64-bit integer ({err})") from None
        # each code's columns, then its rows: a run of duels three rows a duel (`_rows`); the columns
        # checked where they can go out of range: the battles (a packed code holds any int; a
        # run's last is its first plus its length), a cumulative count by its last value, and
        # what `extras` write (a seat, a value, a note); a packed kind, seat or count fits
        battle = codes >> BATTLE_SHIFT
        kind = codes & 0xFF
        seat = ((codes >> SEAT_SHIFT) & 0xFF) - 1
        counts = (codes >> CARDS_SHIFT) & (CARDS_LIMIT - 1)
        value = np.zeros(codes.shape[0], np.int64)
        note = np.full(codes.shape[0], -1, np.int64)
        taken = np.zeros(codes.shape[0], np.int64)
        decided = np.flatnonzero((kind & DECIDED != 0) & (kind != RUN))  # `decision`'s packed codes
        if decided.shape[0]:
            packed = codes[decided]
            note[decided] = kind[decided] & NOTE_MASK
            kind[decided] = KIND_DECISION
            value[decided] = offered = (packed >> OPTIONS_SHIFT) & 0xFF
            counts[decided] = offered + ((packed >> HELD_SHIFT) & 0xF)
            taken[decided] = (packed >> CHOSEN_SHIFT) & 0xF
        if extras.shape[0]:
            at = extras[:, 0]
            seat[at], value[at], note[at], counts[at], taken[at] = (extras[:, 1], extras[:, 2], extras[:, 3],
                                                                    extras[:, 4], extras[:, 5])
        marks = np.flatnonzero(kind == RUN) if runs.shape[0] else np.zeros(0, np.intp)
        lengths = runs[:, 2]
        counts[marks] = RUN_CARDS * lengths
        noted = self._noted()
        if noted.shape[0]:  # each noted duel's event: its taker's card, put between its plays and its collect
            duel = noted[:, 0]
            ends = np.cumsum(lengths)  # each run's duels end there, among the batch's
            run = np.searchsorted(ends, duel, side="right")
            within = duel - (ends - lengths)[run]
            at_card = (np.cumsum(counts)[marks] - RUN_CARDS * lengths)[run] + RUN_CARDS * within
            cards = np.insert(cards, at_card + 2, cards[at_card + (takers[duel] != runs[run, 0])])
            counts[marks] += np.bincount(run, minlength=marks.shape[0])
        cards_end, seats_end = np.cumsum(counts), np.cumsum(taken)
        if codes.shape[0] and (cards_end[-1] != cards.shape[0] or seats_end[-1] != seats.shape[0]):
            raise self._lose("an event's count of cards or seats too large for its bits")
        if (codes.shape[0] and (battle.min() < INT32.min or battle.max() > INT32.max
                                or cards_end[-1] > INT32.max or seats_end[-1] > INT32.max)
                or marks.shape[0] and (battle[marks] + lengths).max() > INT32.max
                or extras.shape[0] and (extras[:, 1].min() < -1 or extras[:, 1:4].max() > INT32.max
                                        or extras[:, 2:4].min() < INT32.min)
                or cards.size and (cards.min() < 0 or cards.max() > MAX_CARD)
                or seats.size and (seats.min() < 0 or seats.max() > 127)
                or war_wins.size and (war_wins.min() < INT32.min or war_wins.max() > INT32.max)):
            raise self._lose("a value out of the range of its array's type")
        players = self.players
        if (cards.size and cards.max() >= self.deck_size or seats.size and seats.max() >= players
                or runs.shape[0] and (runs[:, :2].min() < 0 or runs[:, :2].max() >= players)
                or takers.size and (takers.min() < 0 or takers.max() >= players)):
            raise self._lose("a card that is not the deck's, or a seat that is not the game's")
        coded = np.empty((codes.shape[0], WIDTH), np.int32)
        for column, values in ((EVENT_BATTLE, battle), (EVENT_KIND, kind), (EVENT_SEAT, seat), (EVENT_VALUE, value),
                               (EVENT_NOTE, note), (EVENT_CARDS_END, cards_end), (EVENT_SEATS_END, seats_end)):
            coded[:, column] = values
        events, at = _rows(coded, marks, runs, takers, noted)
        if codes.shape[0]:
            # cards laid a game: of its codes' counts, those of kinds that put cards on the table
            # (a run's plays: two cards a duel, and a noted event's card if its kind puts it),
            # summed between the codes where its events start
            laid = np.where(PUTS_BY_CODE[kind], counts, 0)
            laid[marks] = RUN_LAID * lengths
            if noted.shape[0]:
                laid[marks] += np.bincount(run, PUTS_BY_CODE[noted[:, 1]], marks.shape[0]).astype(np.int64)
            per_game = summaries[:, SUMMARY_EVENTS]
            starts = np.searchsorted(at, np.cumsum(per_game) - per_game)
            nonempty = per_game > 0
            counted = np.zeros(per_game.shape[0], np.int64)
            counted[nonempty] = np.add.reduceat(laid, starts[nonempty])
            summaries[:, SUMMARY_COLUMNS.index("cards_laid")] = counted
            # the summaries' wars against the war events: the Event path names a game that differs
            ended = np.searchsorted(at, per_game.sum())  # the codes of the games ended (a batch's, whole)
            if not np.array_equal(_wars_said(kind[:ended], battle, value, starts),
                                  summaries[:, SUMMARY_WARS:SUMMARY_CARDS_SET_ASIDE]):
                raise self._lose("a game summary whose wars its war events do not say")
        return GameArrays(events, cards.astype(np.int16), seats.astype(np.int8), summaries,
                          war_wins.astype(np.int32), final_cards.astype(np.int32), seeds)


def _rows(coded: np.ndarray, marks: np.ndarray, runs: np.ndarray, takers: np.ndarray,
          noted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The event rows of the codes' rows `coded` (a run's row holding its battle, its cards_end
    after its last duel and its seats_end), each run's row (at `marks`) replaced by its duels'
    events, three a duel: a play of its first seat (one card), a play of its second, a collect
    of two cards by the duel's taker, the battles counting up from the run's; a noted duel's
    event (`noted`: duel, kind code) between its plays and its collect, the taker's, of one
    card; and the row each code's events start at. A duel's three rows are its run's first
    duel's (DUEL_ROWS with the run's battle, seats, cards and seats_end) repeated, whole rows,
    their battle and cards_end counted up for each duel before it in the run (and each noted
    event), and its taker; a noted duel's event is its second play's row, made the taker's
    event of one card more, put at its place, the duels' rows in the places left."""
    if not marks.shape[0]:
        return coded, np.arange(coded.shape[0])
    lengths = runs[:, 2]
    sizes = np.ones(coded.shape[0], np.int64)
    sizes[marks] = RUN_EVENTS * lengths
    duels = lengths.sum()
    run_of = np.repeat(np.arange(marks.shape[0]), lengths)
    noted_runs = np.bincount(run_of[noted[:, 0]], minlength=marks.shape[0]) if noted.shape[0] else 0
    sizes[marks] += noted_runs
    ends = np.cumsum(sizes)
    at = ends - sizes
    kept = np.ones(coded.shape[0], np.bool_)
    kept[marks] = False
    events = np.empty((ends[-1], WIDTH), np.int32)
    placed = np.zeros(ends[-1], np.bool_)
    placed[at[kept]] = True
    rows = events.view(ROW).reshape(-1)  # each row one item: a masked copy moves rows whole, 5x faster
    rows[placed] = coded[kept].view(ROW).reshape(-1)
    ran = coded[marks]
    first = np.empty((marks.shape[0], RUN_EVENTS, WIDTH), np.int32)  # each run's first duel
    first[:] = DUEL_ROWS
    first[:, :, EVENT_BATTLE] = ran[:, EVENT_BATTLE, None]
    first[:, 0, EVENT_SEAT] = runs[:, 0]
    first[:, 1, EVENT_SEAT] = runs[:, 1]
    # cards before the run
    first[:, :, EVENT_CARDS_END] += (ran[:, EVENT_CARDS_END] - RUN_CARDS * lengths - noted_runs)[:, None]
    first[:, :, EVENT_SEATS_END] = ran[:, EVENT_SEATS_END, None]
    starts = np.cumsum(lengths) - lengths
    within = np.arange(duels) - np.repeat(starts, lengths)
    duel = np.repeat(first, lengths, axis=0)
    duel[:, 2, EVENT_SEAT] = takers
    duel[:, :, EVENT_BATTLE] += within.astype(np.int32)[:, None]  # a battle more for each duel before it in its run
    free = ~placed  # the rows of the runs' events
    if noted.shape[0]:
        # a duel's cards past its run's first duel's: four a duel before it, and one a noted event
        # before it (its own before its collect)
        index = noted[:, 0]
        before = np.zeros(duels, np.int64)
        before[index] = 1
        before = np.cumsum(before) - before
        before -= np.repeat(before[starts], lengths)
        duel[:, :, EVENT_CARDS_END] += (RUN_CARDS * within + before).astype(np.int32)[:, None]
        duel[index, 2, EVENT_CARDS_END] += 1
        event = duel[index, 1]  # after the second play: the taker's, a card more
        event[:, EVENT_KIND] = noted[:, 1]
        event[:, EVENT_SEAT] = takers[index]
        event[:, EVENT_CARDS_END] += 1
        # each event's row: its run's first, three a duel before it, one a noted event before it
        event_at = at[marks][run_of[index]] + RUN_EVENTS * within[index] + before[index] + 2
        rows[event_at] = event.view(ROW).reshape(-1)
        free[event_at] = False
    else:
        duel[:, :, EVENT_CARDS_END] += (RUN_CARDS * within).astype(np.int32)[:, None]
    rows[free] = duel.reshape(-1, WIDTH).view(ROW).reshape(-1)
    return events, at


def _wars_said(kind: np.ndarray, battle: np.ndarray, depth: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Each game's wars as its `war` codes say them (engines.event.wars_said, for a batch): the
    summary's wars, war_battles, max_war_depth and first_battle_war columns, a row a game;
    `kind`: the ended games' codes' kinds, `starts`: the code each game's events start at."""
    at = np.flatnonzero(kind == KIND_WAR)
    game = np.searchsorted(starts, at, side="right") - 1  # a game of no events starts where the next does
    games = starts.shape[0]
    battles, depths = battle[at], depth[at]
    new = np.ones(at.shape[0], np.bool_)  # a battle's first war: the codes of a game come in its battles' order
    new[1:] = (battles[1:] != battles[:-1]) | (game[1:] != game[:-1])
    said = np.zeros((games, 4), np.int64)
    said[:, 0] = np.bincount(game, minlength=games)
    said[:, 1] = np.bincount(game[new], minlength=games)
    deepest = np.full(games, np.iinfo(np.int64).min)
    np.maximum.at(deepest, game, depths)
    said[:, 2] = np.where(said[:, 0] > 0, deepest, 0)
    said[:, 3] = np.bincount(game[battles == 1], minlength=games) > 0
    return said


def _integers(values: list) -> np.ndarray:
    """Values an engine gives as ints, as int64: each must equal an integer (3, True, 3.0,
    numpy's 3), as the Event path's checks ask (3.0 is in range(52), 3.7 is not), where a plain
    conversion would truncate 3.7 to 3 and write a card the engine never named. ValueError,
    TypeError or OverflowError for any other value."""
    given = np.array(values)
    if given.dtype.kind in "iub":
        if given.dtype.kind == "u" and given.size and given.max() > np.iinfo(np.int64).max:
            raise OverflowError("a value above the 64-bit integers")
        return given.astype(np.int64, copy=False)
    out = np.array(values, np.int64)
    if not np.array_equal(out, given):
        raise ValueError("a value that is not an integer")
    return out


def _small_array(values: list) -> np.ndarray:
    """Values an engine gives as ints (cards, a duel's takers) as an array: through bytes (a C
    loop) when each fits a byte, as a seat does and a card of a deck of up to 256; else value by
    value, each checked to be an integer (_integers)."""
    try:
        return np.frombuffer(bytearray(values), np.uint8)
    except (TypeError, ValueError):
        return _integers(values)
