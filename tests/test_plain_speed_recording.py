"""The plain-Python path's plumbing holds the bytes (issue 52, item 4): the generator's draws made
a block at a time (engines/chance.py, StreamChance) are Xoshiro256's, draw for draw, across
blocks and through a rejected draw; the array recorder's packed events (log/array_recorder.py)
hold what the Event recorder holds, for the events a packed code cannot say (a seat past its
byte, a count past its 16 bits, a value, seats, options) and for runs of duels unfolded among
other events; and a table game played with its duels reported at once reports what the loop
reports battle by battle."""

from __future__ import annotations

import pytest

from pipeline.engines.chance import BLOCK, FIRST_BLOCK, RandomChance, StreamChance, generator_block
from pipeline.engines.compiled.layout import (
    EVENT_BATTLE, EVENT_CARDS_END, EVENT_KIND, EVENT_SEAT, EVENT_SEATS_END, EVENT_VALUE,
)
from pipeline.engines.event import Recorder
from pipeline.engines.table.reference import TableGame
from pipeline.log.array_recorder import KIND_CODES, ArrayRecorder, Unrepresentable
from pipeline.model.deal import shuffled_deal
from pipeline.model.rng import Xoshiro256
from pipeline.model.rules import build_rules


@pytest.mark.parametrize("steps", [FIRST_BLOCK, BLOCK])
def test_a_block_is_the_generators_outputs_and_state(steps):
    for seed in (0, 1, 7, 2**63 + 5):
        rng = Xoshiro256(seed)
        outputs, state = generator_block((rng.s0, rng.s1, rng.s2, rng.s3), steps)
        assert outputs == [rng.next() for _ in range(steps)]
        assert state == (rng.s0, rng.s1, rng.s2, rng.s3)


def test_stream_chance_orders_and_deals_as_the_generator_does():
    """Shuffles of every size, a battle's two cards most of all, far past the first blocks."""
    sizes = [52, 2, 2, 10, 2, 300, 2, 3, 0, 1, 2, 600, 2, 2, 2, 5, 256, 257] * 6
    for seed in range(12):
        ours, theirs = Xoshiro256(seed), Xoshiro256(seed)
        stream = StreamChance(ours)
        for size in sizes:
            got, want = list(range(size)), list(range(size))
            if size == 52:
                stream.shuffle(got)
                theirs.shuffle(want)
            else:
                stream.order("collect", 0, got)
                RandomChance(theirs).order("collect", 0, want)
            assert got == want, (seed, size)
        assert stream.draw() == theirs.next()
        assert (ours.s0, ours.s1) == (Xoshiro256(seed).s0, Xoshiro256(seed).s1)  # its generator untouched


class Scripted(Xoshiro256):
    """The generator with outputs of our choosing: its own bounded draws and shuffle over them."""

    def __init__(self, outputs):
        self.outputs = iter(outputs)

    def next(self):
        return next(self.outputs)


def test_a_rejected_draw_is_drawn_again(monkeypatch):
    """A draw at or past Xoshiro256.bounded's limit is thrown away, as the generator's shuffle
    throws it (no seed finds one: a bound of n rejects n draws in 2^64), in blocks made to hold
    some."""
    top = (1 << 64) - 1  # past the limit of every bound that does not divide 2^64
    made = [top, top, 5, top, 4, 2**63 + 1, top - 1, 9] + list(range(100, 200))
    monkeypatch.setattr("pipeline.engines.chance.generator_block", lambda state, steps: (made, state))
    for size in (3, 5, 7):
        got, want = list(range(size)), list(range(size))
        StreamChance(Xoshiro256(1)).shuffle(got)
        Scripted(made).shuffle(want)
        assert got == want


def events_of(arrays):
    """(battle, kind, seat, value, cards, seats) of every event of an ArrayRecorder's arrays."""
    got = arrays.arrays()
    rows, cards, seats = got.events, got.card_values.tolist(), got.seat_values.tolist()
    out = []
    for i, row in enumerate(rows):
        first_card = rows[i - 1, EVENT_CARDS_END] if i else 0
        first_seat = rows[i - 1, EVENT_SEATS_END] if i else 0
        out.append((int(row[EVENT_BATTLE]), int(row[EVENT_KIND]), int(row[EVENT_SEAT]), int(row[EVENT_VALUE]),
                    cards[first_card:row[EVENT_CARDS_END]], seats[first_seat:row[EVENT_SEATS_END]]))
    return out


def test_packed_events_hold_what_their_codes_cannot_say():
    rec = ArrayRecorder(301)
    rec.begin()
    rec.emit(0, "deal", 0, (1, 2))
    rec.duels(1, (0, 1), [5, 6, 6, 5, 7, 8, 7, 8], [0, 1])
    rec.emit(3, "play", 300, (3,))  # a seat of the game past the code's byte
    rec.emit(3, "war", None, (), (0, 1), (), 2)  # a value and seats
    rec.plays(4, [0, 1], [9, 10])
    rec.emit(4, "collect", 1, [1] * 70000)  # a count past the code's 16 bits
    rec.duels(5, (1, 0), [11, 12, 12, 11], [1])
    rec.emit(2**31 - 1, "out", None, ())  # the largest battle the arrays hold
    assert rec.position == rec.events == 16
    play, collect, war = KIND_CODES["play"], KIND_CODES["collect"], KIND_CODES["war"]
    assert events_of(rec) == [
        (0, KIND_CODES["deal"], 0, 0, [1, 2], []),
        (1, play, 0, 0, [5], []), (1, play, 1, 0, [6], []), (1, collect, 0, 0, [6, 5], []),
        (2, play, 0, 0, [7], []), (2, play, 1, 0, [8], []), (2, collect, 1, 0, [7, 8], []),
        (3, play, 300, 0, [3], []),
        (3, war, -1, 2, [], [0, 1]),
        (4, play, 0, 0, [9], []), (4, play, 1, 0, [10], []),
        (4, collect, 1, 0, [1] * 70000, []),
        (5, play, 1, 0, [11], []), (5, play, 0, 0, [12], []), (5, collect, 1, 0, [12, 11], []),
        (2**31 - 1, KIND_CODES["out"], -1, 0, [], []),
    ]


def test_a_battle_past_the_int32_range_is_lost():
    rec = ArrayRecorder(2)
    rec.begin()
    rec.emit(2**31, "out", 0, ())
    with pytest.raises(Unrepresentable):
        rec.arrays()
    assert rec.lost


RULES = [("classic", {}), ("classic", {"pickup": "winner_first"}), ("classic", {"pickup": "table_order"}),
         ("multiplayer", {"players": "3"}), ("classic", {"pickup": "winner_first", "ranks": "4", "suits": "2"})]


class Watched(TableGame):
    """A game whose class overrides a step (with TableGame's own): its loop plays no runs of duels."""

    __slots__ = ()

    def game_over(self, battle):
        return super().game_over(battle)


@pytest.mark.parametrize("variant,options", RULES, ids=[f"{v}-{'-'.join(o.values())}" for v, o in RULES])
def test_duels_reported_at_once_are_the_loops_battles(variant, options):
    """TableGame plays its duels in runs (TableGame.duels); a class that overrides a step plays
    every battle in the loop: the same events, the same summary, from the Event recorder and from
    the arrays."""
    rules = build_rules(variant, options)
    for seed in range(8):
        games = []
        for game in (TableGame, Watched):
            rng = Xoshiro256(seed)
            deal = shuffled_deal(rules, rng)
            rec = Recorder()
            summary = game(rules, deal, RandomChance(rng), rec).play()
            arrays = ArrayRecorder(rules.players)
            arrays.begin()
            rng = Xoshiro256(seed)
            deal = shuffled_deal(rules, rng)
            arrays.end_game(game(rules, deal, StreamChance(rng), arrays).play(), seed)
            games.append((rec.events, summary, events_of(arrays)))
        (events, summary, arrayed), (other_events, other_summary, other_arrayed) = games
        assert other_events == events and other_summary == summary and other_arrayed == arrayed
        assert [(e[0], e[1], e[2], e[4]) for e in arrayed] == [
            (ev.battle, KIND_CODES[ev.kind], -1 if ev.seat is None else ev.seat, [*ev.cards, *ev.options])
            for ev in events]


class Counting(RandomChance):
    """The generator's orders, counted: a chance of a class of its own."""

    __slots__ = ("asked",)

    def __init__(self, rng) -> None:
        super().__init__(rng)
        self.asked = 0

    def order(self, kind, seat, cards):
        self.asked += 1
        return super().order(kind, seat, cards)


def test_a_chance_of_its_own_is_asked_for_every_order():
    """Runs of duels draw a battle's order straight from the generator only for war's own chances:
    any other chance is asked for every order, as the engine promises (docs/plugins.md)."""
    rules = build_rules("classic")
    for seed in range(4):
        rng = Xoshiro256(seed)
        deal = shuffled_deal(rules, rng)
        rec = Recorder()
        chance = Counting(rng)
        TableGame(rules, deal, chance, rec).play()
        assert chance.asked == sum(e.kind == "collect" for e in rec.events) > 0


def test_a_runs_noted_events_are_those_emitted_one_by_one():
    """A run of duels with events of its duels' takers' cards (`noted`, a hook's `decides`) holds
    the rows, cards and cards laid of the same battles reported one event at a time, runs
    between other events and a kind that puts its card on the table (`forfeit`) among them; the
    Event recorder unfolds it alike."""
    played = [  # (battle, taker, the two cards played, the two collected, the event's kind or None)
        (1, 0, (5, 6), (6, 5), None), (2, 1, (7, 8), (7, 8), "war_out"), (3, 1, (9, 10), (10, 9), None),
        (4, 0, (11, 12), (11, 12), "forfeit"), (5, 0, (13, 14), (13, 14), "war_out")]
    runs = ArrayRecorder(2)
    one_by_one = ArrayRecorder(2)
    events = Recorder()
    for rec in (runs, one_by_one, events):
        if rec is not events:
            rec.begin()
        rec.emit(0, "deal", 0, (1, 2))
    for rec in (runs, events):
        for begin, end in ((0, 3), (3, 5)):  # two runs
            part = played[begin:end]
            rec.duels(part[0][0], (0, 1), [c for _, _, up, taken, _ in part for c in (*up, *taken)],
                      [taker for _, taker, *_ in part],
                      [(i, kind) for i, (*_, kind) in enumerate(part) if kind is not None])
            rec.emit(part[-1][0], "reshuffle", 1, (3,))
    for battle, taker, up, taken, kind in played:
        one_by_one.plays(battle, (0, 1), up)
        if kind is not None:
            one_by_one.emit(battle, kind, taker, (up[taker],))
        one_by_one.emit(battle, "collect", taker, taken)
        if battle in (3, 5):
            one_by_one.emit(battle, "reshuffle", 1, (3,))
    summary = TableGame(build_rules("classic"), shuffled_deal(build_rules("classic"), Xoshiro256(1)),
                        RandomChance(Xoshiro256(1)), Recorder()).summary
    summary.outcome, summary.winner, summary.final_cards = "win", 0, [52, 0]
    for rec in (runs, one_by_one):
        assert rec.position == rec.events == 21
        rec.end_game(summary, 1)
    got, want = runs.arrays(), one_by_one.arrays()
    assert events_of(runs) == events_of(one_by_one)
    for name in ("events", "card_values", "seat_values", "summaries"):
        assert getattr(got, name).tolist() == getattr(want, name).tolist(), name
    assert [(e[0], e[1], e[2], e[4]) for e in events_of(runs)] == [
        (ev.battle, KIND_CODES[ev.kind], -1 if ev.seat is None else ev.seat, [*ev.cards]) for ev in events.events]


def test_a_noted_kind_that_is_not_plain_is_lost():
    rec = ArrayRecorder(2)
    rec.begin()
    rec.duels(1, (0, 1), [5, 6, 6, 5], [0], [(0, "war")])  # a war carries its depth
    with pytest.raises(Unrepresentable):
        rec.arrays()
    assert rec.lost


class Trumps(TableGame):
    """Trump War's comparison (examples/war-trump) on Classic War: spades above the other suits, a
    `war_out` event (a kind of war's own) where a spade beats a card of as high a rank."""

    __slots__ = ()

    def strength(self, card):
        return self.rank[card] + (self.deck.ranks if self.suit(card) == 3 else 0)

    def decides(self, card, other):
        return "war_out" if self.suit(card) == 3 != self.suit(other) and self.rank[other] >= self.rank[card] else None


class WatchedTrumps(Trumps):
    """Trumps whose class overrides a step: every battle in the loop, battle by battle."""

    __slots__ = ()

    def game_over(self, battle):
        return super().game_over(battle)


def test_duels_with_events_of_decides_reported_at_once_are_the_loops_battles():
    """A duel whose best card logs an event of `decides` stays in its run (TableGame.two_seat_battles,
    the event noted with it): the events, summary and arrays of the loop that plays battle by
    battle."""
    rules = build_rules("classic")
    noted = 0
    for seed in range(8):
        games = []
        for game in (Trumps, WatchedTrumps):
            rng = Xoshiro256(seed)
            rec = Recorder()
            summary = game(rules, shuffled_deal(rules, rng), RandomChance(rng), rec).play()
            arrays = ArrayRecorder(rules.players)
            arrays.begin()
            rng = Xoshiro256(seed)
            arrays.end_game(game(rules, shuffled_deal(rules, rng), StreamChance(rng), arrays).play(), seed)
            if game is Trumps:
                noted += len(arrays.noted)
            games.append((rec.events, summary, events_of(arrays), arrays.arrays().summaries.tolist()))
        assert games[0] == games[1]
    assert noted  # runs with noted events were played
