"""A decision recorded in one call (Recorder.decision): the array recorder packs it in one code,
and its rows are those `emit` writes of the same event, or the shard is given up when a count
does not fit its bits (the Event path then spells it)."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.engines.event import Recorder
from pipeline.log.array_recorder import ArrayRecorder, Unrepresentable

# (seat, note, cards, seats, options): a seat's own choice of itself, a choice of none, a card
# among three, seat True (seat 1, as `emit` has it), a seat of None (`emit`'s own branch); each
# at battle 3 and at a battle past 2**16
DECISIONS = [
    (0, "steal", (), (0,), (0,)),
    (1, "steal", (), (), (1,)),
    (1, "top", (7,), (), (3, 7, 9)),
    (True, "steal", (), (1,), (1,)),
    (None, "top", (), (), ()),
]


def _arrays(record) -> tuple:
    rec = ArrayRecorder(2, None, 52)
    rec.begin()
    rec.emit(1, "play", 0, (5,))
    record(rec)
    rec.duels(2, (0, 1), [1, 2, 2, 1], [0])
    rec.emit(70_000, "collect", 1, (8, 9))
    found = rec.arrays()
    return found.events, found.card_values, found.seat_values


@pytest.mark.parametrize("decision", DECISIONS, ids=str)
def test_a_decision_in_one_call_is_the_emitted_events_rows(decision):
    seat, note, cards, seats, options = decision

    def packed(rec):
        rec.decision(3, seat, note, cards, seats, options)
        rec.decision(70_000, seat, note, cards, seats, options)

    def emitted(rec):
        rec.emit(3, "decision", seat, cards, seats, options, None, note)
        rec.emit(70_000, "decision", seat, cards, seats, options, None, note)

    def one_by_one(rec):  # the Event path's Recorder.decision, into the same arrays
        Recorder.decision(rec, 3, seat, note, cards, seats, options)
        Recorder.decision(rec, 70_000, seat, note, cards, seats, options)

    wanted = _arrays(emitted)
    for got in (_arrays(packed), _arrays(one_by_one)):
        for a, b in zip(got, wanted):
            assert a.dtype == b.dtype and np.array_equal(a, b)


@pytest.mark.parametrize("cards,seats,options", [
    ((), (), (3,) * 256),  # options past the 8 bits of their count
    ((1,) * 16, (), (1,)),  # cards past their 4 bits
    ((), (0,) * 16, (0,)),  # seats past their 4 bits (into the battle's)
])
def test_a_decision_whose_counts_do_not_fit_gives_the_shard_up(cards, seats, options):
    with pytest.raises(Unrepresentable):
        _arrays(lambda rec: rec.decision(3, 0, "top", cards, seats, options))


def test_a_decision_the_family_does_not_declare_gives_the_shard_up():
    rec = ArrayRecorder(2, ("deal", "play", "down", "war", "collect", "end"), 52)
    rec.begin()
    with pytest.raises(Unrepresentable):
        rec.decision(3, 0, "steal", (), (0,), (0,))
