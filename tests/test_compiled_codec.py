"""The compiled engine's events encoder (pipeline/log/compiled_codec.py and
pipeline/log/row_encoder.py, through pipeline.log.compiled.events_from_arrays) against the
reference encoder: for the compiled engine's own games and for arbitrary event arrays (duel rows
and their near misses among them), the table must equal
pipeline.log.tables.events_table(ids, reference_logs(...)) and be written to the same Parquet
bytes, and pipeline.log.codec's decoding of its rows (log.tables.game_logs) must give back the
events."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from pipeline.engines.event import Event  # noqa: E402
from pipeline.engines.compiled.layout import KIND_COLLECT, KIND_DECISION, KIND_DOWN, KIND_END, KIND_FORFEIT, KIND_PLAY, KIND_SET_ASIDE, KIND_WAR, NOTES, SUMMARY_EVENTS  # noqa: E402
from pipeline.engines.table.compiled import play_arrays  # noqa: E402
from pipeline.log.compiled import events_from_arrays  # noqa: E402
from pipeline.log.compiled_codec import find_shape  # noqa: E402
from pipeline.log.row_encoder import forget_shape_texts  # noqa: E402
from pipeline.errors import RulesError  # noqa: E402
from pipeline.model.rules import build_rules  # noqa: E402
from pipeline.model.schema import EVENT_KINDS  # noqa: E402
from pipeline.log.tables import events_table, game_logs
from pipeline.storage.files import write_parquet  # noqa: E402

RULE_SETS = [
    ("classic", {}),
    ("classic", {"pickup": "pooled", "shortfall": "lose"}),
    ("classic", {"pickup": "winner_first", "war_down": "10"}),
    ("classic", {"pickup": "table_order", "war_tiebreak": "single_up", "shortfall": "lose"}),
    ("classic", {"max_battles": "30", "ranks": "3", "suits": "4"}),
    ("multiplayer", {"players": "3", "war_down": "by_rank", "pickup": "table_order"}),
    ("multiplayer", {"players": "6", "shortfall": "lose", "pickup": "winner_first"}),
    ("multiplayer", {"players": "4", "pickup": "pooled", "war_tiebreak": "single_up", "shortfall": "lose"}),
    ("jokers", {"players": "5", "war_down": "0", "pickup": "pooled"}),
    ("razboi", {"jokers": "2", "ace_value": "14"}),
    ("classic", {"ranks": "1", "suits": "12", "shortfall": "lose", "pickup": "pooled"}),
]


def reference_logs(evi, cv, sv, counts) -> list[list[Event]]:
    """The compiled engine's event arrays as the engine's events, game by game: the reference the
    compiled encoder is held to."""
    cards = cv.tolist()
    seats = sv.tolist()
    rows = evi.tolist()
    out = []
    i = 0
    c0 = s0 = 0
    for count in counts.tolist():
        log = []
        depth, row_battle = 0, None
        for battle, kind, seat, value, note, cend, send in rows[i:i + count]:
            if battle != row_battle:  # a new row (battle): no war yet
                depth, row_battle = 0, battle
            options = value if kind == KIND_DECISION else 0  # a decision's options end its cards
            hand = kind == KIND_DECISION and note >= 0 and NOTES[note] == "hand"  # its value: its war's depth
            if kind == KIND_WAR:
                depth = value
            log.append(Event(battle, EVENT_KINDS[kind], seat=None if seat < 0 else seat,
                             cards=tuple(cards[c0:cend - options]), seats=tuple(seats[s0:send]),
                             options=tuple(cards[cend - options:cend]),
                             value=value if kind in (KIND_WAR, KIND_END) else depth if hand else None,
                             note=NOTES[note] if note >= 0 else None))
            c0, s0 = cend, send
        out.append(log)
        i += count
    return out


def check(ids, evi, cv, sv, counts, tmp_path=None):
    """The fast table equals the reference one (and its Parquet bytes), and decodes to the events."""
    logs = reference_logs(evi, cv, sv, counts)
    fast = events_from_arrays(np.asarray(ids, np.int64), evi, cv, sv, counts)
    ref = events_table(list(ids), logs)
    assert fast.schema.equals(ref.schema, check_metadata=True)
    assert fast.equals(ref)
    if tmp_path is not None:
        key = ("game_id", "seq")
        assert write_parquet(fast, tmp_path / "fast.parquet", key) == write_parquet(ref, tmp_path / "ref.parquet", key)
    decoded = game_logs(fast)
    assert [decoded.get(g, []) for g in ids] == logs
    return fast


@pytest.mark.parametrize("name,options", RULE_SETS, ids=lambda v: v if isinstance(v, str) else
                         "-".join(f"{k}={x}" for k, x in v.items()) or "defaults")
def test_compiled_games_encode_as_the_reference(name, options, tmp_path):
    try:
        rules = build_rules(name, options)
    except RulesError as err:
        pytest.skip(f"not a playable combination: {err}")
    evi, cv, sv, summ, *_ = play_arrays(rules, 3, 10, 70)
    ids = (np.int64(2) * 1_000_000_000 + np.arange(10, 70)).tolist()
    forget_shape_texts()
    check(ids, evi, cv, sv, summ[:, SUMMARY_EVENTS], tmp_path)
    check(ids, evi, cv, sv, summ[:, SUMMARY_EVENTS])  # with every shape's text already kept


def test_the_rule_sets_reach_every_kind_of_take():
    """Between them the games above take small tables, large tables (in the table's order, in
    winner_first's and in another, listed) and forfeits."""
    small = forfeits = 0
    large = dict.fromkeys(("@t", "@w", "@*"), 0)
    for name, options in RULE_SETS:
        evi, cv, sv, summ, *_ = play_arrays(build_rules(name, options), 3, 10, 70)
        table = events_from_arrays(np.arange(60), evi, cv, sv, summ[:, SUMMARY_EVENTS])
        shapes = table.column("shape").combine_chunks().dictionary.to_pylist()
        small += sum("@" in s and not any(order in s for order in large) for s in shapes)
        for order in large:
            large[order] += sum(order in s for s in shapes)
        forfeits += sum("forfeit" in s for s in shapes)
    assert small and all(large.values()) and forfeits, large


def test_a_deck_of_large_card_codes():
    rules = build_rules("classic", {"ranks": "200", "suits": "150", "max_battles": "40"})
    evi, cv, sv, summ, *_ = play_arrays(rules, 1, 0, 3)
    assert cv.max() > 29_000
    check([7, 8, 9], evi, cv, sv, summ[:, SUMMARY_EVENTS])


def test_empty():
    evi = np.zeros((0, 7), np.int32)
    check([], evi, np.zeros(0, np.int16), np.zeros(0, np.int8), np.zeros(0, np.int64))


# ---------------------------------------------------------------- arbitrary event arrays

def engine_arrays(rows, cards, seats, counts):
    """Event rows, card and seat values and events a game as the compiled engine's arrays."""
    return (np.array(rows, np.int32).reshape(-1, 7), np.array(cards, np.int16), np.array(seats, np.int8),
            np.array(counts, np.int64))


@st.composite
def event_arrays(draw):
    """Games of any events the compiled engine's arrays can hold: takes that are, or almost are,
    the table's cards (in any order, the table's or winner_first's), repeated cards, large codes,
    many seats, battles that go back."""
    rows, cards, seats, counts = [], [], [], []
    for _ in range(draw(st.integers(0, 4))):
        count = draw(st.integers(0, 30))
        counts.append(count)
        battle = draw(st.integers(0, 3))
        table: list[int] = []
        owners: list[int] = []  # the seat that put each table card down
        for _ in range(count):
            if draw(st.integers(0, 4)) == 0:
                battle = draw(st.integers(0, 5))
                table, owners = [], []
            seat = draw(st.integers(-1, 9))
            if table and draw(st.integers(0, 2)) == 0:
                kind = draw(st.sampled_from([KIND_COLLECT, KIND_SET_ASIDE]))
                order = draw(st.sampled_from(["any", "table", "winner_first"]))
                if order == "table":
                    ev_cards = list(table)
                elif order == "winner_first":  # a seat the table holds cards of, and its cards first
                    seat = draw(st.sampled_from(owners))
                    ev_cards = [table[i] for i in sorted(range(len(table)),
                                                         key=lambda i: (owners[i] != seat, owners[i], i))]
                else:
                    ev_cards = draw(st.permutations(table))
                if draw(st.integers(0, 4)) == 0:  # not quite the table: stays raw
                    ev_cards = ev_cards[1:] if len(ev_cards) > 1 else ev_cards + ev_cards
                table, owners = [], []
            else:
                kind = draw(st.integers(0, len(EVENT_KINDS) - 1))
                ev_cards = draw(st.lists(st.one_of(st.integers(0, 9), st.integers(0, 32767)), max_size=7))
                if kind in (KIND_PLAY, KIND_DOWN, KIND_FORFEIT):
                    table = table + ev_cards
                    owners = owners + [seat] * len(ev_cards)
            ev_seats = draw(st.lists(st.integers(0, 127), max_size=19))
            cards += ev_cards
            seats += ev_seats
            value = draw(st.integers(0, len(ev_cards)) if kind == KIND_DECISION else st.integers(-3, 10**6))
            rows.append((battle, kind, seat, value,
                         draw(st.integers(-1, len(NOTES) - 1)), len(cards), len(seats)))
    return engine_arrays(rows, cards, seats, counts)


@settings(max_examples=300, deadline=None)
@given(event_arrays())
def test_any_event_arrays_encode_as_the_reference(arrays):
    check(list(range(100, 100 + len(arrays[3]))), *arrays)


def test_long_rows_and_many_shapes_grow_the_buffers():
    """A row of thousands of events (a key longer than its first buffer) and thousands of
    distinct shapes (more than the first hash table holds, their keys more words than the first
    key store)."""
    rows, cards = [], []
    for b in range(6000):  # one war value per battle: 6000 shapes
        for kind, value in ((KIND_PLAY, 0), (KIND_WAR, b), (KIND_PLAY, 0)):
            if kind == KIND_PLAY:
                cards.append(len(cards) % 50)
            rows.append((b + 1, kind, 0, value, -1, len(cards), 0))
    for j in range(2000):
        cards.append(j % 40)
        rows.append((7000, KIND_DOWN, j % 3, 0, -1, len(cards), 0))
    evi = np.array(rows, np.int32)
    table = check([1], evi, np.array(cards, np.int16), np.zeros(0, np.int8), np.array([len(rows)], np.int64))
    assert len(table.column("shape").combine_chunks().dictionary) == 6001


def test_equal_hashes_never_share_a_shape():
    """_find compares whole keys: a different key with the same hash is a new shape. find_shape
    is a step, which only compiled code can call (it has no Python wrapper): called here
    through a compiled function."""
    from pipeline.engines.compiled.jit import njit

    @njit
    def find(key, size, key_hash, keys, kstart, khash, slots):
        return find_shape(key, size, key_hash, keys, kstart, khash, slots)

    keys = np.array([5, 6, 7], np.int64)
    kstart = np.array([0, 3], np.int64)
    khash = np.array([42], np.uint64)
    slots = np.full(8, -1, np.int32)
    slots[42 & 7] = 0
    h = np.uint64(42)
    assert find(np.array([5, 6, 7]), 3, h, keys, kstart, khash, slots) == 0
    assert find(np.array([5, 6, 8]), 3, h, keys, kstart, khash, slots) < 0
    assert find(np.array([5, 6]), 2, h, keys, kstart, khash, slots) < 0



@st.composite
def duel_games(draw):
    """Games of duel rows (two plays of one card each, then a collect of exactly those two
    cards: log.compiled_codec.duel_code) and of rows one detail away from one, on two seats and
    three cards so that every kind of row comes back, and the encoder's shortcut for a duel it
    has met must give what the full encoding does, and a near miss must never take it."""
    rows, cards, seats, counts = [], [], [], []
    for _ in range(draw(st.integers(1, 3))):
        first_row = len(rows)
        for battle in range(draw(st.integers(1, 40))):
            played = [draw(st.sampled_from([0, 1])), draw(st.sampled_from([0, 1])), draw(st.sampled_from([0, 1]))]
            x, y = draw(st.integers(0, 2)), draw(st.integers(0, 2))
            taken = draw(st.sampled_from([(x, y), (y, x), (x, y), (y, x), (x, x), (x, 9), (y,), (x, y, x)]))
            miss = draw(st.sampled_from(["none"] * 6 + ["note", "seats", "extra", "two cards", "set_aside", "seat",
                                                        "two then none", "none then two", "one then two", "down"]))
            at = draw(st.integers(0, 2))  # the event a note or an odd seat goes to
            if miss == "seat":
                played[at] = draw(st.sampled_from([8, 9, -1]))
            notes = [0 if miss == "note" and k == at else -1 for k in range(3)]
            hands = {"two cards": ([x, y], [y]), "two then none": ([x, y], []), "none then two": ([], [x, y]),
                     "one then two": ([x], [y, x])}
            for k, ev_cards in enumerate(hands.get(miss, ([x], [y]))):
                cards += ev_cards
                kind = KIND_DOWN if miss == "down" and k == at % 2 else KIND_PLAY
                rows.append((battle, kind, played[k], 0, notes[k], len(cards), len(seats)))
            cards += list(taken)
            if miss == "seats":
                seats.append(played[2])
            rows.append((battle, KIND_SET_ASIDE if miss == "set_aside" else KIND_COLLECT, played[2], 0, notes[2],
                         len(cards), len(seats)))
            if miss == "extra":
                rows.append((battle, KIND_END, played[2], battle, 0, len(cards), len(seats)))
        counts.append(len(rows) - first_row)
    return engine_arrays(rows, cards, seats, counts)


@settings(max_examples=200, deadline=None)
@given(duel_games())
def test_duel_rows_encode_as_the_reference(arrays):
    check(list(range(len(arrays[3]))), *arrays)
