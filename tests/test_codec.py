"""The on-disk event log (pipeline/log/codec.py): lossless for any log, strict on rows no log
encodes to, and the SQL `events` view (pipeline/log/events.sql) decodes exactly as Python does,
refuses a corrupt shape in one clear error, agrees with the `battles` view and names only the
kinds the registry declares (pipeline/model/event_kinds.py); pipeline.log.tables reads a
dictionary column chunk by chunk."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.engines.event import Event
from pipeline.log import codec
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import connect, run
from pipeline.model.rules import build_rules
from pipeline.model.schema import EVENT_KINDS
from pipeline.model.variants import VARIANTS
from rulekit import dataset_events

small = st.integers(0, 60)
notes = st.one_of(st.none(), st.sampled_from(["win", "draw", "steal", "top", "hand", "x:y"]))


@st.composite
def logs(draw):
    """Any sequence of events, with takes that are (or almost are) the table's cards."""
    log = []
    battle = 0
    table: list[int] = []
    for _ in range(draw(st.integers(0, 40))):
        battle += draw(st.integers(0, 1))
        if draw(st.integers(0, 3)) == 0 and table:
            cards = draw(st.permutations(table))
            if draw(st.integers(0, 5)) == 0:  # not quite the table: must stay raw
                cards = cards[1:] if len(cards) > 1 else cards + [cards[0]]
            kind = draw(st.sampled_from(sorted(codec.TAKE_KINDS)))
            table = []
        else:
            kind = draw(st.sampled_from(EVENT_KINDS))
            cards = draw(st.lists(small, max_size=6))
            if kind in codec.TABLE_KINDS:
                table = table + cards
        log.append(Event(battle, kind, seat=draw(st.one_of(st.none(), st.integers(0, 7))), cards=tuple(cards),
                         seats=tuple(draw(st.lists(st.integers(0, 7), max_size=3))),
                         options=tuple(draw(st.lists(st.integers(-3, 60), max_size=3))),
                         value=draw(st.one_of(st.none(), st.integers(-5, 10_000))), note=draw(notes)))
    return log


@settings(max_examples=300, deadline=None)
@given(logs())
def test_any_log_round_trips(log):
    rows = codec.encode(log)
    assert codec.decode(rows) == log
    assert [r.battle for r in rows] == sorted(r.battle for r in rows)
    assert sum(len(r.cards) for r in rows) <= sum(len(e.cards) + len(e.options) for e in log)


def test_a_classic_battle_is_one_row():
    log = [Event(0, "deal", 0, (9, 38)), Event(0, "deal", 1, (51, 27)),
           Event(1, "play", 0, (9,)), Event(1, "play", 1, (51,)),
           Event(1, "collect", 1, (51, 9))]
    rows = codec.encode(log)
    assert rows == [codec.Row(0, 0, "deal:0#2 deal:1#2", [9, 38, 51, 27]),
                    codec.Row(2, 1, "play:0#1 play:1#1 collect:1@1,0", [9, 51])]


def test_a_big_take_keeps_its_order_after_the_rows_cards():
    log = [Event(3, "play", 0, (1,)), Event(3, "play", 1, (2,)),
           Event(3, "war", seats=(0, 1), value=1), Event(3, "down", 0, (3, 4)),
           Event(3, "collect", 0, (4, 1, 3, 2))]
    (row,) = codec.encode(log)
    assert row.shape == "play:0#1 play:1#1 war[0,1]=1 down:0#2 collect:0@*"
    assert row.cards == [1, 2, 3, 4, 3, 0, 2, 1]
    assert codec.decode([row]) == log


def war_table(*collect: int, taker=1) -> list[Event]:
    """A war among three seats (seat 0 plays 1 and 4, seat 1 plays 2 and 5, seat 2 plays 3 and 6)
    collected by `taker` in the order `collect`."""
    return [Event(3, "play", 0, (1,)), Event(3, "play", 1, (2,)), Event(3, "play", 2, (3,)),
            Event(3, "war", seats=(0, 1, 2), value=1),
            Event(3, "play", 0, (4,)), Event(3, "play", 1, (5,)), Event(3, "play", 2, (6,)),
            Event(3, "collect", taker, collect)]


@pytest.mark.parametrize("order,spelt,positions", [
    ((1, 2, 3, 4, 5, 6), "@t", []),                      # the table's order
    ((2, 5, 1, 4, 3, 6), "@w", []),                      # the taker's cards, then seat 0's, then seat 2's
    ((2, 5, 3, 6, 1, 4), "@*", [1, 4, 2, 5, 0, 3]),      # the others in another seat order
    ((5, 2, 1, 4, 3, 6), "@*", [4, 1, 0, 3, 2, 5]),      # the taker's own out of table order
])
def test_a_big_take_in_a_fixed_pickups_order_is_spelt_in_the_shape(order, spelt, positions):
    log = war_table(*order)
    (row,) = codec.encode(log)
    assert row.shape.endswith(f"collect:1{spelt}")
    assert row.cards == [1, 2, 3, 4, 5, 6] + positions
    assert codec.decode([row]) == log


def test_a_take_in_winner_first_order_needs_seats_to_be_spelt_so():
    log = war_table(2, 5, 1, 4, 3, 6, taker=None)
    (row,) = codec.encode(log)
    assert row.shape.endswith("collect@*")
    assert codec.decode([row]) == log


def test_an_end_at_its_rows_battle_is_spelt_so_games_share_their_last_shape():
    logs = [[Event(battles, "play", 0, (1,)), Event(battles, "play", 1, (2,)), Event(battles, "collect", 1, (2, 1)),
             Event(battles, "out", 0), Event(battles, "end", 1, value=battles, note="win")] for battles in (53, 678)]
    rows = [codec.encode(log)[0] for log in logs]
    assert {r.shape for r in rows} == {"play:0#1 play:1#1 collect:1@1,0 out:0 end:1=b!win"}
    assert [codec.decode([r._replace(seq=0)]) for r in rows] == logs
    odd = [Event(7, "end", None, value=6, note="draw")], [Event(7, "end", None, note="draw")]
    assert [codec.encode(log)[0].shape for log in odd] == ["end=6!draw", "end!draw"]  # any log round-trips
    assert [codec.decode(codec.encode(log)) for log in odd] == list(odd)


def test_options_ride_with_the_cards_so_decisions_share_a_shape():
    hands = [(9, 33, 38), (3, 9, 28)]
    logs = [[Event(1, "decision", 0, (hand[0],), options=hand, value=0, note="hand")] for hand in hands]
    rows = [codec.encode(log)[0] for log in logs]
    assert {r.shape for r in rows} == {"decision:0#1{3}=0!hand"}
    assert rows[0].cards == [9, 9, 33, 38]
    assert [codec.decode([r]) for r in rows] == logs


@pytest.mark.parametrize("shape,values,words", [
    ("play:0#1 play:1#1 collect:1@1,1", [1, 2], "takes positions"),
    ("play:0#1 play:1#1 collect:1@*", [1, 2, 1, 0], "takes positions"),      # small take spelt long
    ("play:0#1 play:1#1 play:0#1 play:1#1 collect:1@3,2,1,0", [1, 2, 3, 4], "takes positions"),
    ("play:0#1 play:1#1 play:0#1 play:1#1 collect:1@*", [1, 2, 3, 4, 3, 2, 1], "takes positions"),  # a position short
    ("play:0#1 play:1#1 play:0#1 play:1#1 collect:1@*", [1, 2, 3, 4, 3, 2, 1, 0, 0], "more cards"),
    ("play:0#1 play:1#1 collect:1@1,0", [1, 2, 3], "more cards"),
    ("play:0#2", [1], "fewer cards"),
    ("decision:0#1{3}", [1, 2, 3], "fewer cards"),
    ("play:0#1 ???", [1], "cannot read"),
    ("play:0#1", [1, 0], "more cards"),
    ("play:0#1 play:1#1 war[0,1]=b", [1, 2], "only an end's value"),
    ("play:0#1 play:1#1 collect:1@w", [1, 2], "takes positions"),                  # small take spelt @w
    ("play:0#1 play:1#1 collect:1@t", [1, 2], "takes positions"),                  # small take spelt @t
    ("play:0#1 play:1#1 play:0#1 play:1#1 collect@w", [1, 2, 3, 4], "without a seat"),
    ("play#1 play:1#1 play:0#1 play:1#1 collect:1@w", [1, 2, 3, 4], "without a seat"),
])
def test_rows_no_log_encodes_to_are_refused(shape, values, words):
    with pytest.raises(codec.CodecError, match=words):
        codec.decode_row(1, shape, values)


def test_rows_must_follow_on():
    rows = [(0, 0, "deal:0#1", [1]), (2, 1, "play:0#1", [1])]
    with pytest.raises(codec.CodecError, match="starts at seq 2"):
        codec.decode(rows)


def test_a_note_with_a_space_is_refused():
    with pytest.raises(codec.CodecError, match="one word"):
        codec.encode([Event(0, "end", 0, value=1, note="a b")])


@pytest.fixture(scope="module")
def every_variant(tmp_path_factory):
    """Every registered variant, plus options that make forfeits, reshuffles and big takes."""
    root = tmp_path_factory.mktemp("codec") / "d"
    plans = [Plan(build_rules(name), 6) for name in VARIANTS]
    plans += [Plan(build_rules("classic", {"pickup": "pooled"}), 6),
              Plan(build_rules("classic", {"pickup": "winner_first", "players": "3"}), 6),
              Plan(build_rules("classic", {"shortfall": "lose", "players": "3"}), 6),
              Plan(build_rules("classic", {"pickup": "table_order", "war_tiebreak": "single_up"}), 6)]
    generate(root, plans, seed=11, shard_size=4)
    return root


def test_sql_events_view_equals_the_python_decoding(every_variant):
    con = connect(every_variant).con
    names = ["game_id", "seq", *Event._fields]
    got = con.execute(f"SELECT {', '.join(names)} FROM events ORDER BY game_id, seq").fetchall()
    want = [tuple(tuple(e[k]) if isinstance(e[k], list) else e[k] for k in names)
            for e in dataset_events(every_variant)]
    assert [tuple(tuple(v) if isinstance(v, list) else v for v in row) for row in got] == want
    kinds = {row[names.index("kind")] for row in got}
    assert {"forfeit", "reshuffle", "steal", "decision", "draw", "set_aside"} <= kinds
    for order in ("@*", "@t", "@w"):
        assert con.execute(f"SELECT count(*) FROM event_rows WHERE shape LIKE '%{order}%'").fetchone()[0] > 0


@pytest.mark.parametrize("corrupt", [
    lambda shape: shape + " ???",                                         # does not parse
    lambda shape: shape.replace("@1,0", "@1,1").replace("@0,1", "@1,1"),  # takes a card twice
    lambda shape: shape.replace("@1,0", "@*").replace("@0,1", "@*"),      # small take spelt long
    lambda shape: shape.replace("play:0#1", "play:0#1=b", 1),              # a play's value as its battle
    lambda shape: shape.replace("@1,0", "@w").replace("@0,1", "@w"),      # small take spelt @w
], ids=["unparsable", "not-a-permutation", "not-canonical", "battle-value-not-an-end", "not-canonical-w"])
def test_a_corrupt_shape_is_one_clear_query_error(every_variant, tmp_path, corrupt, monkeypatch):
    """Decoding is set up only for SQL that reads events, so the games stay queryable. Read
    through events.sql (`WAR_EVENT_COPIES=0`), the shape does not decode; through the columnar
    copies (the default), the file is not the one its manifest names and is refused first."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    from pipeline.storage.dataset import Dataset
    from pipeline.errors import QueryError

    root = tmp_path / "d"
    shutil.copytree(every_variant, root)
    path = root / Dataset.open(root).files("events")[0].path
    table = pq.read_table(path)
    rows = table.to_pylist()
    i = next(i for i, r in enumerate(rows) if "@1,0" in r["shape"] or "@0,1" in r["shape"])
    rows[i]["shape"] = corrupt(rows[i]["shape"])
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
    with pytest.raises(QueryError, match="does not match the checksum its manifest records"):
        run(root, sql="SELECT count(*) FROM events")
    monkeypatch.setenv("WAR_EVENT_COPIES", "0")
    with pytest.raises(QueryError, match="do not decode"):
        run(root, sql="SELECT count(*) FROM events")
    games = sum(e.games for e in Dataset.open(root).manifest.rule_sets)
    assert run(root, sql="SELECT count(*) AS n FROM games").column("n").to_pylist() == [games]


def test_every_battle_is_one_row_and_the_battles_view_agrees_with_the_events(every_variant):
    """The `battles` view reads each battle's facts from its shape alone, which holds because
    every engine numbers battles in order, so a battle's events are one row."""
    con = connect(every_variant).con
    assert con.execute("SELECT count(*) FROM event_rows").fetchone() == \
        con.execute("SELECT count(*) FROM (SELECT DISTINCT game_id, battle FROM event_rows)").fetchone()
    from pipeline.model.event_kinds import KINDS

    def names(test) -> str:  # the registry's kinds that pass `test`, as an SQL list
        return ", ".join(f"'{k.name}'" for k in KINDS if test(k)) or "NULL"

    lays, collects = names(lambda k: k.puts), names(lambda k: k.takes and k.target != "aside")
    aside, wars = names(lambda k: k.takes and k.target == "aside"), names(lambda k: k.role == "starts_war")
    from_events = f"""
        SELECT game_id, battle, any_value(variant),
            coalesce(max(value) FILTER (WHERE kind IN ({wars})), 0),
            arg_min(seat, seq) FILTER (WHERE kind IN ({collects})),
            coalesce(sum(len(cards)) FILTER (WHERE kind IN ({lays})), 0),
            bool_or(kind IN ({aside}))
        FROM events
        WHERE battle > 0 AND kind IN ({lays}, {wars}, {collects}, {aside})
        GROUP BY game_id, battle ORDER BY game_id, battle"""
    view = """SELECT game_id, battle, variant, war_depth, winner, table_cards, set_aside FROM battles
              ORDER BY game_id, battle"""
    assert con.execute(view).fetchall() == con.execute(from_events).fetchall()


def test_a_dictionary_column_reads_as_its_words_chunk_by_chunk_nulls_too():
    """log.tables decodes the shape column by indexing its dictionary (not Arrow's cast); each
    chunk has its own dictionary, and a chunk with a null (a file another tool wrote) keeps it."""
    import pyarrow as pa

    from pipeline.log.tables import _plain

    chunks = [pa.array(["play:0#1", "deal", "play:0#1"]).dictionary_encode(),
              pa.array(["end", None, "deal"]).dictionary_encode(),
              pa.array(["war", "war"]).dictionary_encode()]
    column = pa.chunked_array(chunks)
    assert _plain(column) == column.to_pylist() == ["play:0#1", "deal", "play:0#1", "end", None, "deal",
                                                   "war", "war"]
    assert _plain(chunks[0]) == ["play:0#1", "deal", "play:0#1"]
    assert _plain(pa.chunked_array([pa.array([1, 2])])) == [1, 2]


def test_events_sql_knows_each_kind_by_what_it_does():
    """events.sql names no kind: it reads what each does from `event_kinds`, the registry's
    kinds (pipeline.log.tables.kinds_table): those that lay cards on the table, take them, collect
    them, set them aside, start a war and end the game."""
    import re

    from pipeline.jobs.query import events_sql
    from pipeline.log.tables import kinds_table
    from pipeline.model.event_kinds import KINDS, NAMES

    sql = "\n".join(line.split("--")[0] for line in events_sql().splitlines())
    assert not set(re.findall(r"'([a-z_]+)'", sql)) & set(NAMES)
    for column in ("lays", "takes", "collects", "sets_aside", "starts_war", "ends_game"):
        assert f"k.{column}" in sql, column
    table = kinds_table().to_pylist()
    assert [r["name"] for r in table] == list(NAMES)
    by_name = {k.name: k for k in KINDS}
    for row in table:
        k = by_name[row["name"]]
        assert (row["lays"], row["takes"], row["collects"]) == (k.puts, k.takes, k.takes and k.target != "aside")
        assert row["face"] == (k.face if k.puts else None)
        assert row["starts_war"] == (k.role == "starts_war") and row["ends_game"] == (k.role == "ends_game")


def test_plain_duckdb_decodes_the_events_with_the_exported_kinds(every_variant, tmp_path):
    """README's recipe: events.sql run in DuckDB itself, over the files and the `event_kinds`
    table `war query` exports, gives the events `war query` gives."""
    import duckdb

    from pipeline.jobs.query import events_sql
    from pipeline.storage.dataset import Dataset

    kinds = run(every_variant, sql="SELECT * FROM event_kinds")
    files = [str(every_variant / f.path) for f in Dataset.open(every_variant).files("events")]
    con = duckdb.connect()
    con.register("_kinds", kinds)
    con.execute("CREATE TABLE event_kinds AS SELECT * FROM _kinds")
    con.execute(f"CREATE VIEW event_rows AS SELECT *, 'x' AS variant FROM read_parquet({files!r})")
    con.execute(events_sql())
    columns = "game_id, seq, battle, kind, seat, cards, seats, options, value, note"
    plain = con.execute(f"SELECT {columns} FROM events ORDER BY game_id, seq").fetchall()
    served = run(every_variant, sql=f"SELECT {columns} FROM events ORDER BY game_id, seq").to_pylist()
    assert plain and [tuple(r.values()) for r in served] == plain
