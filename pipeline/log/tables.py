"""The Arrow tables of a dataset's files: schemas derived from the models, tables from
games and back."""

from __future__ import annotations

import pyarrow as pa

from ..engines.event import Event
from ..model.deal import Deal
from ..model.event_kinds import BY_NAME as KINDS
from ..model.schema import (
    ENGINE_VERSION,
    GAME_COLUMNS_SINCE,
    SCHEMA_VERSION,
    GameRecord,
    LogRow,
    RuleSet,
    arrow_fields,
)
from . import codec


def _arrow_type(text: str) -> pa.DataType:
    if text.startswith("list<"):
        return pa.list_(_arrow_type(text[5:-1]))
    if text == "dictionary<string>":
        return pa.dictionary(pa.int32(), pa.string())
    return {"int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(), "int64": pa.int64(),
            "uint64": pa.uint64(), "bool": pa.bool_(), "string": pa.string()}[text]


def arrow_schema(model, version: int = SCHEMA_VERSION) -> pa.Schema:
    """The Arrow schema of a table of `model`'s rows in files of schema `version`: without the
    columns later versions added (model.schema.GAME_COLUMNS_SINCE)."""
    later = {c for v, columns in GAME_COLUMNS_SINCE.items() if v > version for c in columns}
    fields = [pa.field(name, _arrow_type(t), nullable=nullable) for name, t, nullable in arrow_fields(model)
              if name not in later]
    return pa.schema(fields, metadata={"war.schema_version": str(version),
                                       "war.engine_version": ENGINE_VERSION,
                                       "war.table": model.__name__})


EVENT_SCHEMA = arrow_schema(LogRow)
GAME_SCHEMA = arrow_schema(GameRecord)


def event_schema(version: int) -> pa.Schema:
    return EVENT_SCHEMA if version == SCHEMA_VERSION else arrow_schema(LogRow, version)


def game_schema(version: int) -> pa.Schema:
    return GAME_SCHEMA if version == SCHEMA_VERSION else arrow_schema(GameRecord, version)


def as_version(table: pa.Table, version: int) -> pa.Table:
    """A table of today's schema as the files of a dataset of schema `version` hold it: the
    columns that version has, and its version in the metadata."""
    if version == SCHEMA_VERSION:
        return table
    schema = game_schema(version) if table.schema.metadata[b"war.table"] == b"GameRecord" else event_schema(version)
    return table.select(schema.names).replace_schema_metadata(schema.metadata)


def kinds_table() -> pa.Table:
    """What each event kind does, a row a kind (model.kind): the `event_kinds` table that
    log/events.sql reads instead of naming kinds."""
    kinds = list(KINDS.values())
    return pa.table({
        "name": [k.name for k in kinds], "meaning": [k.meaning for k in kinds],
        "source": [k.source or None for k in kinds], "target": [k.target or None for k in kinds],
        "role": [k.role or None for k in kinds],
        "lays": [k.puts for k in kinds], "face": [k.face if k.puts else None for k in kinds],
        "takes": [k.takes for k in kinds], "collects": [k.collects for k in kinds],
        "sets_aside": [k.takes and k.sets_aside for k in kinds],
        "starts_war": [k.role == "starts_war" for k in kinds], "ends_game": [k.role == "ends_game" for k in kinds],
    })


def cards_laid(log) -> int:
    """The cards a game's events laid on the table (its events of a kind that puts them there)."""
    return sum(len(e.cards) for e in log if KINDS[e.kind].puts)


def _dictionary(values: list, schema_field: pa.Field) -> pa.Array:
    arr = pa.array(values, type=pa.string())
    return arr.dictionary_encode().cast(schema_field.type)


def events_table(game_ids: list[int], logs: list[list[Event]]) -> pa.Table:
    """The rows of `events/` files for these games' logs (one row per battle), ordered by (game, seq)."""
    return rows_table(game_ids, (codec.encode(log) for log in logs))


def rows_table(game_ids: list[int], games_rows) -> pa.Table:
    """The `events/` table of games already encoded (codec.encode of each game's log)."""
    gid: list[int] = []
    seq: list[int] = []
    battle: list[int] = []
    shape: list[str] = []
    cards: list[list[int]] = []
    for g, rows in zip(game_ids, games_rows):
        gid.extend([g] * len(rows))
        for r in rows:
            seq.append(r.seq)
            battle.append(r.battle)
            shape.append(r.shape)
            cards.append(r.cards)
    f = EVENT_SCHEMA
    arrays = [
        pa.array(gid, pa.int64()), pa.array(seq, pa.int32()), pa.array(battle, pa.int32()),
        _dictionary(shape, f.field("shape")),
        pa.array(cards, pa.list_(pa.int16())),
    ]
    return pa.Table.from_arrays(arrays, schema=EVENT_SCHEMA)


def games_table(records: list[dict]) -> pa.Table:
    columns = {name: [r[name] for r in records] for name in GAME_SCHEMA.names}
    arrays = []
    for field in GAME_SCHEMA:
        if pa.types.is_dictionary(field.type):
            arrays.append(_dictionary(columns[field.name], field))
        else:
            arrays.append(pa.array(columns[field.name], field.type))
    return pa.Table.from_arrays(arrays, schema=GAME_SCHEMA)


def _lists(column) -> list[tuple]:
    """A list<int> column as tuples, through flat values and offsets (far faster than to_pylist)."""
    arr = column.combine_chunks() if hasattr(column, "combine_chunks") else column
    values = arr.values.to_numpy(zero_copy_only=False).tolist()
    offsets = arr.offsets.to_numpy().tolist()
    return [tuple(values[a:b]) for a, b in zip(offsets, offsets[1:])]


def _plain(column) -> list:
    """A column's values as Python objects. A dictionary column is decoded by indexing its
    dictionary with numpy: 25 times faster than Arrow's cast, which also imports
    pyarrow.compute (60 ms of a replay)."""
    if not pa.types.is_dictionary(column.type):
        return column.to_pylist()
    values = []
    for chunk in getattr(column, "chunks", [column]):
        if chunk.null_count:
            values += chunk.to_pylist()
        else:
            words = chunk.dictionary.to_numpy(zero_copy_only=False)
            values += words[chunk.indices.to_numpy()].tolist()
    return values


def log_rows(table: pa.Table):
    return zip(_plain(table.column("game_id")), _plain(table.column("seq")), _plain(table.column("battle")),
               _plain(table.column("shape")), _lists(table.column("cards")))


def rows_by_game(table: pa.Table) -> dict[int, list[tuple]]:
    """Each game's rows (seq, battle, shape, cards), still encoded. CodecError when a
    game's rows are not together, as the writer sorts them."""
    rows: dict[int, list] = {}
    last = None
    for gid, *row in log_rows(table):
        if gid != last:
            if gid in rows:
                raise codec.CodecError(f"rows not sorted by game: game {gid} appears again after game {last}",
                                          row[0], gid)
            rows[gid] = []
            last = gid
        rows[gid].append(row)
    return rows


def game_logs(table: pa.Table) -> dict[int, list[Event]]:
    """Every game's events from rows of `events/` files (each game's rows in seq order).
    Raises codec.CodecError for a row that no log encodes to."""
    return {gid: codec.decode(r) for gid, r in rows_by_game(table).items()}


def game_log(table: pa.Table) -> list[Event]:
    """One game's events from its rows of `events/` files (in seq order)."""
    return codec.decode(row for _, *row in log_rows(table))


def differing_columns(expected: dict, row: dict) -> list[str]:
    """The columns of a games `row` whose value is not the `expected` record's (game_record); a
    row of an older schema is held to the columns it has (validation checks a file's columns)."""
    return [name for name, value in expected.items() if name in row and row[name] != value]


def game_record(game_id: int, index: int, seed: int, rules: RuleSet, policies, deal: Deal,
                summary, log, rules_id: str | None = None) -> dict:
    """A game's row of the games table, from its summary and its events `log` (generation,
    validation and replay build it the same way); `rules_id` is the id its dataset gives the
    rule set (by default, of today's version)."""
    return {
        "game_id": game_id, "game_index": index, "game_seed": seed, "variant": rules.variant,
        "rules_id": rules_id or rules.rules_id, "players": rules.players, "policies": list(policies),
        "deal": deal.kind, "outcome": summary.outcome,
        "winner": summary.winner, "battles": summary.battles, "cards_laid": cards_laid(log), "wars": summary.wars,
        "war_battles": summary.war_battles, "max_war_depth": summary.max_war_depth,
        "first_battle_war": summary.first_battle_war, "war_wins": summary.war_wins,
        "final_cards": summary.final_cards, "cards_set_aside": summary.cards_set_aside,
        "cycle_length": summary.cycle_length, "cycle_key": summary.cycle_key, "events": len(log),
    }
