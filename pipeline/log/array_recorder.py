"""The reference engines' events written straight into the compiled engines' arrays
(engines.compiled.layout), so that a shard the reference engine plays is encoded by the same
compiled encoder (log.compiled.ShardBuilder) as a compiled engine's: no Event object a step, no
Python pass over a game's events to spell its rows (docs/decisions.md, "The reference engines
record into arrays").

An event the arrays cannot say exactly as log.codec would spell it (a kind not in the registry,
a value or a note on a kind that carries none, options on anything but a decision) makes the
recorder `lost`: the shard is then played again through the Event path (log.shard.play_range),
which spells anything. The arrays never give other bytes than that path; they only give up.
"""

from __future__ import annotations

import numpy as np

from ..engines.compiled.layout import (
    EVENT_CARDS_END, EVENT_COLUMNS, EVENT_KIND, EVENT_SEAT, KIND_DECISION, KIND_END, KIND_WAR, MAX_CARD, NOTES, PUTS,
    SUMMARY_COLUMNS, SUMMARY_EVENTS, GameArrays,
)
from ..errors import WarError
from ..model.schema import EVENT_KINDS, OUTCOMES

KIND_CODES = {kind: code for code, kind in enumerate(EVENT_KINDS)}
# The kinds whose events carry no value: such an event with no value, note or options is
# written by the fast branch of ArrayRecorder.emit.
PLAIN_CODES = {kind: code for kind, code in KIND_CODES.items() if code not in (KIND_WAR, KIND_END, KIND_DECISION)}
NOTE_CODES = {note: code for code, note in enumerate(NOTES)}
OUTCOME_CODES = {outcome: code for code, outcome in enumerate(OUTCOMES)}
WIDTH = len(EVENT_COLUMNS)
INT32 = np.iinfo(np.int32)


class Unrepresentable(WarError):
    """An event or a game's summary that the arrays cannot hold as the Event path would write
    it: the shard goes that way instead. Never reaches a user (log.batches catches it)."""


class ArrayRecorder:
    """A batch of games' events as layout's arrays, in flat Python lists until `arrays()`: each
    event a row of EVENT_COLUMNS ints in `rows`, its cards (and a decision's options) in
    `cards`, its seats in `seats`. One game at a time: `begin()`, the engine's `emit`s,
    `end_game(summary, seed)`."""

    __slots__ = ("rows", "cards", "seats", "summaries", "war_wins", "final_cards", "seeds", "players",
                 "game_row", "depth", "depth_battle", "lost", "emit")

    def __init__(self, players: int) -> None:
        self.players = players
        self.lost: str | None = None  # why an event or summary could not be held, once one could not
        self.rows: list[int] = []
        self.cards: list[int] = []
        self.seats: list[int] = []
        self.emit = self._emitter(self.rows, self.cards, self.seats)
        self.clear()

    def clear(self) -> None:
        """Empty, for the next batch (the event lists emptied in place: `emit` writes into them)."""
        del self.rows[:], self.cards[:], self.seats[:]
        self.summaries: list[int] = []
        self.war_wins: list[int] = []
        self.final_cards: list[int] = []
        self.seeds: list[int] = []
        self.game_row = 0

    @property
    def events(self) -> int:
        """Events of the batch so far."""
        return len(self.rows) // WIDTH

    @property
    def position(self) -> int:
        """Events of the game being played so far (engines.event.Recorder.position)."""
        return (len(self.rows) - self.game_row) // WIDTH

    def begin(self) -> None:
        self.game_row = len(self.rows)
        self.depth, self.depth_battle = 0, None

    def _emitter(self, rows: list[int], all_cards: list[int], all_seats: list[int]):
        """The recorder's `emit(battle, kind, seat, cards, seats, options, value, note)`
        (engines.event.Recorder.emit): a function over the batch's three lists, not a method,
        for it is called for every event the engines play. An event of a kind that carries no
        value, with no value, note or options, is written here; any other by `_emit`."""
        plain, slow = PLAIN_CODES.get, self._emit

        def emit(battle: int, kind: str, seat: int | None = None, cards=(), seats=(), options=(),
                 value: int | None = None, note: str | None = None) -> None:
            code = plain(kind)
            if code is None or value is not None or note is not None or options:
                return slow(battle, kind, seat, cards, seats, options, value, note)
            all_cards.extend(cards)
            if seats:
                all_seats.extend(seats)
            rows.extend((battle, code, -1 if seat is None else seat, 0, -1, len(all_cards), len(all_seats)))

        return emit

    def _emit(self, battle, kind, seat, cards, seats, options, value, note) -> None:
        """An event of any kind: its value column as layout says (a war's depth, an end's battles,
        a decision's option count), after checking that the encoder will spell it as log.codec."""
        code = KIND_CODES.get(kind)
        if code is None:
            raise self._lose(f"an event of kind {kind!r}, which the registry does not name")
        if note is None:
            note_code = -1
        else:
            note_code = NOTE_CODES.get(note, -2)
            if note_code == -2:
                raise self._lose(f"a note {note!r}, neither an outcome nor a decision")
        if code == KIND_WAR or code == KIND_END:
            if type(value) is not int or options:
                raise self._lose(f"a {kind} event with value {value!r} and options {options!r}")
            column = value
            if code == KIND_WAR:
                self.depth, self.depth_battle = value, battle
        elif code == KIND_DECISION:
            # the encoder gives a hand decision the depth of its row's last war as its value
            depth = self.depth if self.depth_battle == battle else 0
            if value is not None if note != "hand" else value != depth:
                raise self._lose(f"a {note} decision with value {value!r}")
            column = len(options)
        elif value is not None or options:
            raise self._lose(f"a {kind} event with value {value!r} and options {options!r}")
        else:
            column = 0
        all_cards = self.cards
        all_cards += cards
        if options:
            all_cards += options
        if seats:
            self.seats += seats
        self.rows += (battle, code, -1 if seat is None else seat, column, note_code, len(all_cards), len(self.seats))

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
                           -1 if s.cycle_length is None else s.cycle_length,
                           (len(self.rows) - self.game_row) // WIDTH, 0, s.cycle_key if cycle else 0)
        self.war_wins += s.war_wins
        self.final_cards += s.final_cards
        self.seeds.append(seed)

    def arrays(self) -> GameArrays:
        """The batch as layout.GameArrays, each value checked to fit its array's type; the
        summaries' cards_laid counted from the events (cards of the kinds that put cards on the
        table, as log.tables.cards_laid). Unrepresentable when a value does not fit."""
        try:
            rows = np.array(self.rows, np.int64).reshape(-1, WIDTH)
            cards = np.array(self.cards, np.int64)
            seats = np.array(self.seats, np.int64)
            summaries = np.array(self.summaries, np.int64).reshape(-1, len(SUMMARY_COLUMNS))
            players = self.players
            war_wins = np.array(self.war_wins, np.int64).reshape(-1, players)
            final_cards = np.array(self.final_cards, np.int64).reshape(-1, players)
            seeds = np.array(self.seeds, np.uint64)
        except (TypeError, ValueError, OverflowError) as err:
            raise self._lose(f"a value that is not a 64-bit integer ({err})") from None
        if (rows.size and (rows.min() < INT32.min or rows.max() > INT32.max or rows[:, EVENT_SEAT].min() < -1)
                or cards.size and (cards.min() < 0 or cards.max() > MAX_CARD)
                or seats.size and (seats.min() < 0 or seats.max() > 127)
                or war_wins.size and (war_wins.min() < INT32.min or war_wins.max() > INT32.max)):
            raise self._lose("a value out of the range of its array's type")
        events = rows.astype(np.int32)
        if events.shape[0]:
            ends = events[:, EVENT_CARDS_END].astype(np.int64)
            laid = np.where(PUTS[events[:, EVENT_KIND]], np.diff(ends, prepend=0), 0)
            per_game = summaries[:, SUMMARY_EVENTS]
            starts = np.concatenate(([0], np.cumsum(per_game)[:-1]))
            nonempty = per_game > 0
            counted = np.zeros(per_game.shape[0], np.int64)
            counted[nonempty] = np.add.reduceat(laid, starts[nonempty])
            summaries[:, SUMMARY_COLUMNS.index("cards_laid")] = counted
        return GameArrays(events, cards.astype(np.int16), seats.astype(np.int8), summaries,
                          war_wins.astype(np.int32), final_cards.astype(np.int32), seeds)
