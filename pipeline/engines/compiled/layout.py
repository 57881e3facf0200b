"""What the compiled engine's arrays hold, for the engine that fills them and for whoever reads
them (pipeline.log's encoder and invariants).

Event kinds, outcomes and pickups are coded by their position in the schema's tuples
(`EVENT_KINDS`, `OUTCOMES`, `PICKUPS`), so a code read back is `EVENT_KINDS[code]`. The codes
named here are war's own (model.kind.CORE); a family's compiled module takes those of its own
kinds and decisions with `kind_code` and `note_code` (engines/steal/turns.py: KIND_STEAL), as
module globals the engine reads as constants, and whoever reads the arrays knows a kind or a
note by what its declaration says of it (PUTS, WAR_DEPTH_NOTES), never by its name.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...model.event_kinds import BY_NAME as KIND_BY_NAME
from ...model.families import registry
from ...model.pickups import TERMS
from ...model.schema import EVENT_KINDS, OUTCOMES, PICKUPS, GameRecord
from ..policies import KINDS as DECISIONS

# ---------------------------------------------------------------- codes

KIND_DEAL = EVENT_KINDS.index("deal")
KIND_SET_ASIDE = EVENT_KINDS.index("set_aside")
KIND_PLAY = EVENT_KINDS.index("play")
KIND_DOWN = EVENT_KINDS.index("down")
KIND_WAR = EVENT_KINDS.index("war")
KIND_WAR_OUT = EVENT_KINDS.index("war_out")
KIND_FORFEIT = EVENT_KINDS.index("forfeit")
KIND_COLLECT = EVENT_KINDS.index("collect")
KIND_RESHUFFLE = EVENT_KINDS.index("reshuffle")
KIND_DECISION = EVENT_KINDS.index("decision")
KIND_OUT = EVENT_KINDS.index("out")
KIND_END = EVENT_KINDS.index("end")
PUTS = np.array([KIND_BY_NAME[k].puts for k in EVENT_KINDS], np.bool_)  # by kind code: its cards go onto the table

OUTCOME_WIN = OUTCOMES.index("win")
OUTCOME_DRAW = OUTCOMES.index("draw")
OUTCOME_CAPPED = OUTCOMES.index("capped")
OUTCOME_CYCLE = OUTCOMES.index("cycle")

PICKUP_SHUFFLED = PICKUPS.index("shuffled")
PICKUP_TABLE_ORDER = PICKUPS.index("table_order")
PICKUP_WINNER_FIRST = PICKUPS.index("winner_first")
PICKUP_POOLED = PICKUPS.index("pooled")
PICKUP_NATURAL = PICKUPS.index("natural")
PICKUP_SORTED = PICKUPS.index("sorted")
# What a fixed pickup order's key reads of a card (model.pickups.TERMS), by code.
TERM_POSITION, TERM_TAKER, TERM_OWNER, TERM_STEP, TERM_FACE_UP, TERM_RANK, TERM_UP_RANK = (
    TERMS.index(t) for t in ("position", "taker", "owner", "step", "face_up", "rank", "up_rank"))

# An event's note code: an end's outcome, or a decision's kind after the outcomes.
NOTES = OUTCOMES + tuple(DECISIONS)
# By note code: a decision whose event's value is the depth of the war it is made in
# (model.family.Decision.war_depth); the engines' arrays hold its option count there instead.
WAR_DEPTH_NOTES = np.array([name in DECISIONS and registry().decisions[name].war_depth for name in NOTES], np.bool_)


def kind_code(name: str) -> int:
    """The code of the event kind `name` (a family's compiled module names its own kinds so)."""
    return EVENT_KINDS.index(name)


def note_code(name: str) -> int:
    """The note code of the decision `name` (a family's compiled module names its own so)."""
    return NOTES.index(name)


NO_SEAT = -1  # an event's seat, a game's winner: none
NO_NOTE = -1  # an event's note: none (an end event's note is its outcome code)

MAX_CARD = 32767  # card codes are int16 in the events table
MAX_PLAYERS = 8

# ---------------------------------------------------------------- the events array

# Columns of the int32 events array, one row per event. An event's cards are
# card_values[previous row's cards_end:its cards_end] and its seats (a war's seats)
# seat_values[previous row's seats_end:its seats_end]. A decision's options follow its cards in
# card_values, and its value is how many there are.
EVENT_COLUMNS = ("battle", "kind", "seat", "value", "note", "cards_end", "seats_end")
(EVENT_BATTLE, EVENT_KIND, EVENT_SEAT, EVENT_VALUE, EVENT_NOTE, EVENT_CARDS_END,
 EVENT_SEATS_END) = range(len(EVENT_COLUMNS))

# ---------------------------------------------------------------- the summaries array

# Columns of the int64 summaries array, one row per game, named after the GameRecord fields they
# fill; -1 for null (winner, cycle_length); cycle_key is null unless the game is a cycle, and
# cards_laid is counted from a game's events at its end (loop.end_game).
SUMMARY_COLUMNS = ("outcome", "winner", "battles", "wars", "war_battles", "max_war_depth",
                   "first_battle_war", "cards_set_aside", "cycle_length", "events", "cards_laid", "cycle_key")
(SUMMARY_OUTCOME, SUMMARY_WINNER, SUMMARY_BATTLES, SUMMARY_WARS, SUMMARY_WAR_BATTLES,
 SUMMARY_MAX_WAR_DEPTH, SUMMARY_FIRST_BATTLE_WAR, SUMMARY_CARDS_SET_ASIDE, SUMMARY_CYCLE_LENGTH,
 SUMMARY_EVENTS, SUMMARY_CARDS_LAID, SUMMARY_CYCLE_KEY) = range(len(SUMMARY_COLUMNS))
assert set(SUMMARY_COLUMNS) <= set(GameRecord.model_fields)


class GameArrays(NamedTuple):
    """What the engine gives for a range of games (`play_arrays`)."""

    events: np.ndarray       # int32 [events, len(EVENT_COLUMNS)], the games' events one after another
    card_values: np.ndarray  # int16, every event's cards in a row (see EVENT_CARDS_END)
    seat_values: np.ndarray  # int8, every event's seats in a row (see EVENT_SEATS_END)
    summaries: np.ndarray    # int64 [games, len(SUMMARY_COLUMNS)]
    war_wins: np.ndarray     # int32 [games, players]: battles with a war each seat won
    final_cards: np.ndarray  # int32 [games, players]: cards each seat holds at the end
    seeds: np.ndarray        # uint64 [games]: each game's seed
