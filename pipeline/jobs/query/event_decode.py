"""How an events file becomes its columnar copy (event_copies.py keeps the copies): events.sql's
`event_steps` of each shape, computed by DuckDB once per shape, expanded into one row per event
and one per battle by compiled kernels. A module of its own so that a query that reads copies
already made imports neither numba nor the kernels.
"""

from __future__ import annotations

import threading

import duckdb
import numpy as np
import pyarrow as pa

from ...engines.compiled.jit import njit
from ...errors import QueryError
from ...log.tables import kinds_table
from .log_views import BATTLE_COLUMNS, events_sql

SCHEMA = pa.schema([
    ("game_id", pa.int64()), ("seq", pa.int32()), ("battle", pa.int32()),
    ("kind", pa.dictionary(pa.int32(), pa.string())), ("seat", pa.int8()), ("cards", pa.list_(pa.int16())),
    ("seats", pa.list_(pa.int8())), ("options", pa.list_(pa.int16())),
    ("value", pa.int32()), ("note", pa.dictionary(pa.int32(), pa.string())),
])


# what a shape says of its battle (log_views.BATTLE_COLUMNS), as numpy and Arrow types; a null
# (no war, no winner) as NO_VALUE
_TYPES = {"INTEGER": (np.int32, pa.int32()), "TINYINT": (np.int8, pa.int8()), "BIGINT": (np.int64, pa.int64()),
          "BOOLEAN": (np.bool_, pa.bool_())}
BATTLE_TYPES = {name: _TYPES[kind][0] for name, kind in BATTLE_COLUMNS.items()}
BATTLE_SCHEMA = pa.schema([("game_id", pa.int64()), ("battle", pa.int32())] +
                          [(name, _TYPES[kind][1]) for name, kind in BATTLE_COLUMNS.items() if name != "fights"])
NO_VALUE = {"war_depth": 0, "winner": -1}


class Steps:
    """events.sql's `event_steps` of every shape met so far, as flat arrays a shape's steps are
    a range of: computed by DuckDB for each new batch of shapes (once per shard at most)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.index: dict[str, int] = {}  # a shape's number
        self.start = [0]  # its steps: start[k] to start[k + 1] in the flat step arrays
        # each step's fields as flat arrays (its lists as offsets and values), grown as shapes
        # are met; strings (kind, note) as numbers into `words`
        self.flat = {name: np.zeros(0, dtype) for name, dtype in STEP_TYPES.items()}
        self.lists = {name: (np.zeros(1, np.int64), np.zeros(0, np.int64)) for name in STEP_LISTS}
        self.words: dict[str, list[str]] = {"kind": [], "note": []}
        # what each shape says of its battle (events.sql's battle_shapes), by shape number
        self.battle = {name: np.zeros(0, dtype) for name, dtype in BATTLE_TYPES.items()}

    def numbers(self, shapes: list[str]) -> np.ndarray:
        """Each shape's number (its steps computed here if new)."""
        with self.lock:
            new = sorted({s for s in shapes if s not in self.index})
            if new:
                self._add(new)
            return np.array([self.index[s] for s in shapes], dtype=np.int64)

    def _add(self, shapes: list[str]) -> None:
        con = duckdb.connect()
        try:
            con.execute("SET threads = 1")
            con.register("_shapes", pa.table({"shape": pa.array(shapes, pa.string())}))
            con.execute("CREATE TABLE event_rows AS SELECT CAST(NULL AS BIGINT) AS game_id, CAST(NULL AS INTEGER) AS seq, "
                        "CAST(NULL AS INTEGER) AS battle, shape, CAST(NULL AS SMALLINT[]) AS cards, "
                        "CAST(NULL AS VARCHAR) AS variant FROM _shapes")
            con.register("_kinds", kinds_table())
            con.execute("CREATE TABLE event_kinds AS SELECT * FROM _kinds")
            con.execute(events_sql())
            steps = con.sql("""
                SELECT shape, pos, kind, seat, seats, coalesce(opts, []) AS opts, value, battle_value, note,
                       coalesce(idx, []) AS idx, coalesce(tpos, []) AS tpos, ostart, well_formed
                FROM event_steps ORDER BY shape, pos""").to_arrow_table()
            said = con.sql("SELECT shape, " + ", ".join(f"coalesce({name}, {NO_VALUE.get(name, 'NULL')})"
                                                        for name in BATTLE_COLUMNS) + " FROM battle_shapes").fetchall()
        finally:
            con.close()
        bad = [s for s, ok in zip(steps.column("shape").to_pylist(), steps.column("well_formed").to_pylist()) if not ok]
        if bad:
            raise QueryError(f"the dataset's events do not decode: shape {bad[0]!r} (`war validate` says more)")
        counts = dict(zip(*np.unique(np.array(steps.column("shape").to_pylist(), dtype=object), return_counts=True)))
        for s in shapes:
            self.index[s] = len(self.start) - 1
            self.start.append(self.start[-1] + int(counts.get(s, 0)))
        self._grow(steps)
        by_shape = {row[0]: row[1:] for row in said}
        for i, (name, dtype) in enumerate(BATTLE_TYPES.items()):
            added = np.array([by_shape[s][i] for s in shapes], dtype=dtype)
            self.battle[name] = np.concatenate([self.battle[name], added])

    def _grow(self, steps: pa.Table) -> None:
        """Append the steps of new shapes (events.sql's rows, in shape order) to the flat arrays."""
        def numbers(name: str) -> np.ndarray:
            words, out = self.words[name], []
            for word in steps.column(name).to_pylist():
                if word is None:
                    out.append(-1)
                    continue
                if word not in words:
                    words.append(word)
                out.append(words.index(word))
            return np.array(out, dtype=np.int32)

        seat = steps.column("seat")
        value = steps.column("value")
        new = {"pos": steps.column("pos").to_numpy(), "kind": numbers("kind"), "note": numbers("note"),
               "seat": seat.fill_null(-1).to_numpy(), "value": value.fill_null(0).to_numpy(),
               "value_null": value.is_null().to_numpy(zero_copy_only=False),
               "battle_value": steps.column("battle_value").to_numpy(zero_copy_only=False),
               "ostart": steps.column("ostart").fill_null(0).to_numpy()}
        for name, dtype in STEP_TYPES.items():
            self.flat[name] = np.concatenate([self.flat[name], new[name].astype(dtype)])
        for name in STEP_LISTS:
            off, val = _lists(steps.column(name))
            old_off, old_val = self.lists[name]
            self.lists[name] = (np.concatenate([old_off, off[1:] + old_off[-1]]),
                                np.concatenate([old_val, val.astype(np.int64)]))


STEP_TYPES = {"pos": np.int32, "kind": np.int32, "note": np.int32, "seat": np.int8, "value": np.int32,
              "value_null": np.bool_, "battle_value": np.bool_, "ostart": np.int64}
STEP_LISTS = ("idx", "tpos", "opts", "seats")


def _lists(array) -> tuple[np.ndarray, np.ndarray]:
    """A list array's offsets (int64, from 0) and values as numpy (nulls as empty lists)."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    array = array.fill_null([]) if array.null_count else array
    offsets = array.offsets.to_numpy().astype(np.int64)
    values = array.values.to_numpy(zero_copy_only=False)
    values, offsets = values[offsets[0]:offsets[-1]], offsets - offsets[0]
    return offsets, values


@njit(cache=True)
def _expand(codes, card_off, card_val, start, idx_off, idx_val, tpos_off, tpos_val, ostart, opt_off, opt_val):
    """Each battle row's events (its shape's steps): the row and step of each event, its cards
    and its options (offsets and values), and 0, or 1 where a step reads past its row's cards,
    2 where a take's order names no card of its table. An ordinary step reads the row's cards
    at its positions (idx, from 1); a take ordered in the row (`@*`, ostart >= 1) reads the
    positions tpos[order], the orders being the row's values from ostart on."""
    n_rows = codes.shape[0]
    n_ev = 0
    n_cards = 0
    n_opts = 0
    for r in range(n_rows):
        k = codes[r]
        for s in range(start[k], start[k + 1]):
            n_ev += 1
            n_cards += (tpos_off[s + 1] - tpos_off[s]) if ostart[s] > 0 else (idx_off[s + 1] - idx_off[s])
            n_opts += opt_off[s + 1] - opt_off[s]
    ev_row = np.empty(n_ev, np.int64)
    ev_step = np.empty(n_ev, np.int64)
    c_off = np.empty(n_ev + 1, np.int32)
    c_val = np.empty(n_cards, np.int16)
    o_off = np.empty(n_ev + 1, np.int32)
    o_val = np.empty(n_opts, np.int16)
    e = 0
    c = 0
    o = 0
    c_off[0] = 0
    o_off[0] = 0
    for r in range(n_rows):
        k = codes[r]
        base = card_off[r]
        size = card_off[r + 1] - base
        for s in range(start[k], start[k + 1]):
            ev_row[e] = r
            ev_step[e] = s
            if ostart[s] > 0:
                length = tpos_off[s + 1] - tpos_off[s]
                for j in range(length):
                    at = ostart[s] - 1 + j
                    if at >= size:
                        return ev_row, ev_step, c_off, c_val, o_off, o_val, 1
                    order = card_val[base + at]
                    if order < 0 or order >= length:
                        return ev_row, ev_step, c_off, c_val, o_off, o_val, 2
                    at = tpos_val[tpos_off[s] + order] - 1
                    if at < 0 or at >= size:
                        return ev_row, ev_step, c_off, c_val, o_off, o_val, 1
                    c_val[c] = card_val[base + at]
                    c += 1
            else:
                for i in range(idx_off[s], idx_off[s + 1]):
                    at = idx_val[i] - 1
                    if at < 0 or at >= size:
                        return ev_row, ev_step, c_off, c_val, o_off, o_val, 1
                    c_val[c] = card_val[base + at]
                    c += 1
            for i in range(opt_off[s], opt_off[s + 1]):
                at = opt_val[i] - 1
                if at < 0 or at >= size:
                    return ev_row, ev_step, c_off, c_val, o_off, o_val, 1
                o_val[o] = card_val[base + at]
                o += 1
            e += 1
            c_off[e] = c
            o_off[e] = o
    return ev_row, ev_step, c_off, c_val, o_off, o_val, 0


@njit(cache=True)
def _take_lists(off, val, which):
    """The lists `which` of a list array (offsets `off`, values `val`): new offsets and values."""
    out_off = np.empty(which.shape[0] + 1, np.int32)
    out_off[0] = 0
    n = 0
    for i in range(which.shape[0]):
        n += off[which[i] + 1] - off[which[i]]
        out_off[i + 1] = n
    out_val = np.empty(n, val.dtype)
    n = 0
    for i in range(which.shape[0]):
        for j in range(off[which[i]], off[which[i] + 1]):
            out_val[n] = val[j]
            n += 1
    return out_off, out_val


def _words(numbers: np.ndarray, words: list[str]) -> pa.DictionaryArray:
    """Strings by their numbers (-1: null) as a dictionary array of the words used, sorted: the
    same bytes whatever order the steps met their shapes in (copies are made on threads)."""
    nulls = numbers < 0
    used = np.bincount(numbers[~nulls], minlength=len(words)) > 0 if len(words) else np.zeros(0, bool)
    kept = sorted(w for w, u in zip(words, used) if u)
    renumber = np.array([kept.index(w) if u else 0 for w, u in zip(words, used)] or [0], dtype=np.int32)
    indices = renumber[np.where(nulls, 0, numbers)]
    return pa.DictionaryArray.from_arrays(pa.array(indices, mask=nulls if nulls.any() else None),
                                          pa.array(kept, pa.string()))


@njit(cache=True)
def _gather(row, step, game_id, seq, battle, pos, value, value_null, battle_value, seat, kind, note):
    """Each event's own fields from its row and its step: game_id, seq (the row's plus the
    step's place), battle, value (the row's battle for an end spelt `=b`) and whether it is
    null, seat (-1: none), kind and note (numbers; -1: none)."""
    n = row.shape[0]
    out_game = np.empty(n, np.int64)
    out_seq = np.empty(n, np.int32)
    out_battle = np.empty(n, np.int32)
    out_value = np.empty(n, np.int32)
    out_null = np.empty(n, np.bool_)
    out_seat = np.empty(n, np.int8)
    out_kind = np.empty(n, np.int32)
    out_note = np.empty(n, np.int32)
    for e in range(n):
        r = row[e]
        s = step[e]
        out_game[e] = game_id[r]
        out_seq[e] = seq[r] + pos[s]
        out_battle[e] = battle[r]
        if battle_value[s]:
            out_value[e] = battle[r]
            out_null[e] = False
        else:
            out_value[e] = value[s]
            out_null[e] = value_null[s]
        out_seat[e] = seat[s]
        out_kind[e] = kind[s]
        out_note[e] = note[s]
    return out_game, out_seq, out_battle, out_value, out_null, out_seat, out_kind, out_note


WHY = {1: "a step reads a card past its row's cards", 2: "a take's order names no card of its table"}


def shape_numbers(rows: pa.Table, steps: Steps) -> np.ndarray:
    """Each battle row's shape number in `steps`."""
    shape = rows.column("shape").combine_chunks()
    if isinstance(shape, pa.DictionaryArray):
        return steps.numbers(shape.dictionary.to_pylist())[shape.indices.to_numpy(zero_copy_only=False)]
    return steps.numbers(shape.to_pylist())


def battles(rows: pa.Table, steps: Steps, codes: np.ndarray | None = None) -> pa.Table:
    """The battles of a table of battle rows, one row each, as the `battles` view of events.sql's
    battle_shapes gives them (a row of battle 0 or of no fight is none), in the same order."""
    codes = shape_numbers(rows, steps) if codes is None else codes
    with steps.lock:
        said = {name: values[codes] for name, values in steps.battle.items()}
    battle = rows.column("battle").to_numpy()
    keep = (battle > 0) & said["fights"]
    winner = said["winner"][keep]
    return pa.table([
        pa.array(rows.column("game_id").to_numpy()[keep]), pa.array(battle[keep]),
        pa.array(said["war_depth"][keep]), pa.array(winner, mask=winner < 0),
        pa.array(said["table_cards"][keep]), pa.array(said["set_aside"][keep]),
    ], schema=BATTLE_SCHEMA)


def decode(rows: pa.Table, steps: Steps, codes: np.ndarray | None = None) -> pa.Table:
    """The events of a table of battle rows (game_id, seq, battle, shape, cards), one row each,
    as the `events` view of events.sql gives them, in the same order."""
    codes = shape_numbers(rows, steps) if codes is None else codes
    with steps.lock:
        start = np.array(steps.start, dtype=np.int64)
        flat, lists, words = dict(steps.flat), dict(steps.lists), {k: list(v) for k, v in steps.words.items()}
    card_off, card_val = _lists(rows.column("cards"))
    (idx_off, idx_val), (tpos_off, tpos_val), (opt_off, opt_val) = lists["idx"], lists["tpos"], lists["opts"]
    row, step, c_off, c_val, o_off, o_val, err = _expand(
        codes, card_off, card_val.astype(np.int16), start, idx_off, idx_val, tpos_off, tpos_val, flat["ostart"],
        opt_off, opt_val)
    if err:
        raise QueryError(f"the dataset's events do not decode: {WHY[err]} (`war validate` says more)")
    game, seq, battle, value, no_value, seat, kind, note = _gather(
        row, step, rows.column("game_id").to_numpy(), rows.column("seq").to_numpy(), rows.column("battle").to_numpy(),
        flat["pos"], flat["value"], flat["value_null"], flat["battle_value"], flat["seat"], flat["kind"], flat["note"])
    seats_off, seats_val = lists["seats"]
    s_off, s_val = _take_lists(seats_off, seats_val.astype(np.int8), step)
    return pa.table([
        pa.array(game), pa.array(seq), pa.array(battle), _words(kind, words["kind"]),
        pa.array(seat, mask=seat < 0),
        pa.ListArray.from_arrays(pa.array(c_off), pa.array(c_val)),
        pa.ListArray.from_arrays(pa.array(s_off), pa.array(s_val)),
        pa.ListArray.from_arrays(pa.array(o_off), pa.array(o_val)),
        pa.array(value, mask=no_value), _words(note, words["note"]),
    ], schema=SCHEMA)
