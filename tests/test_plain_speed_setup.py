"""The plain-Python path's set-up a game holds the bytes (issue 52, item 4): a generator made at
once (engines.policies.generator) is Xoshiro256's, state for state; a chooser given what its
seats' policies work out alike every game (policies.seated) chooses as one that works it out
itself, a parameter's maker still asked each game; and a decision without a value, written by the
array recorder's own branch, holds what `_emit` holds."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.engines.policies import PolicyChooser, SeatGenerator, generator, parse_policy, seated
from pipeline.log.array_recorder import ArrayRecorder
from pipeline.model.rng import Xoshiro256, policy_seed


@pytest.mark.parametrize("seed", [0, 1, 7, 2**63 + 5, 2**64 - 1, policy_seed(12345, 1)])
def test_a_generator_made_at_once_is_xoshiro256s(seed):
    ours, theirs = generator(seed), Xoshiro256(seed)
    assert type(ours) is Xoshiro256
    assert (ours.s0, ours.s1, ours.s2, ours.s3) == (theirs.s0, theirs.s1, theirs.s2, theirs.s3)
    assert [ours.next() for _ in range(5)] == [theirs.next() for _ in range(5)]


def test_a_chooser_with_its_seating_worked_out_chooses_alike():
    kinds = ("steal", "top")
    seats = [parse_policy("random", kinds), parse_policy("steal:threshold:4,top:protect", kinds)]
    kept = seated(seats)
    assert kept[0] is None  # a parameter: its maker is asked each game
    assert kept[1] is True
    fixed = [parse_policy("greedy", kinds), parse_policy("cautious", kinds)]
    functions, randomized, drawing = seated(fixed)
    assert functions == [p.functions() for p in fixed] and randomized is False and drawing == (False, False)
    assert kept[2] == (True, False)  # the seat whose policies draw, each
    for policies in (seats, fixed):
        for game_seed in (3, 99):
            ours, theirs = PolicyChooser(policies, game_seed, seated(policies)), PolicyChooser(policies, game_seed)
            assert ours.randomized == theirs.randomized
            assert [type(r) for r in ours.rngs] == [type(r) for r in theirs.rngs]  # a generator where a policy draws
            assert [(r.s0, r.s1, r.s2, r.s3) for r in ours.rngs if isinstance(r, SeatGenerator)] == \
                [(r.s0, r.s1, r.s2, r.s3) for r in theirs.rngs if isinstance(r, SeatGenerator)]
            assert [sorted(f) for f in ours.functions] == [sorted(f) for f in theirs.functions]


def test_a_decision_is_written_as_emit_writes_it():
    """The recorder's own branch for a decision (no value, a note that is no war depth: one
    packed code) and `_emit` (a row of extras) give the same rows, among plain events, for
    seats and cards alike."""
    events = [(0, "deal", 0, [1, 2]), (3, "decision", 1, (), (1,), (1,), None, "slap"),
              (3, "decision", 0, (), (), (0,), None, "slap"), (4, "play", 1, (5,)),
              (5, "decision", None, (7,), (), (7, 8, 9), None, "steal"), (6, "collect", 0, (5, 6))]
    fast, slow = ArrayRecorder(2), ArrayRecorder(2)
    for rec in (fast, slow):
        rec.begin()
    for event in events:
        fast.emit(*event)
        if event[1] == "decision":
            slow._emit(*event)
        else:
            slow.emit(*event)
    assert len(fast.extras) < len(slow.extras)  # the fast branch packs what _emit writes as extras (not seat None)
    made, wanted = fast.arrays(), slow.arrays()
    for name in ("events", "card_values", "seat_values"):
        assert np.array_equal(getattr(made, name), getattr(wanted, name)), name
