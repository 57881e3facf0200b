-- The `events` view: one row per event, decoded from `event_rows` (the rows of the `events/`
-- files, one per battle; see pipeline/log/codec.py). Needs a view or table `event_rows`, and
-- `event_kinds`, what each kind does (pipeline/model/kind.py; `war query DATASET --sql "SELECT *
-- FROM event_kinds"` gives it): its name, whether it `lays` cards on the table, `takes` them off
-- it, `collects` them (a seat takes the table) or `sets_aside` them, `starts_war` and `ends_game`.
-- Nothing here names a kind: each is known by what it does. Then `.read events.sql` in the duckdb
-- shell, or run it as a script from any DuckDB client.
CREATE OR REPLACE TABLE event_steps AS
WITH shapes AS (SELECT DISTINCT shape FROM event_rows),
tokens AS (
    SELECT shape, unnest(string_split(shape, ' ')) AS tok,
           unnest(range(len(string_split(shape, ' ')))) AS pos
    FROM shapes
),
parsed AS (
    SELECT shape, pos, m.kind,
        TRY_CAST(nullif(m.seat, '') AS TINYINT) AS seat,
        coalesce(TRY_CAST(nullif(m.count, '') AS INTEGER), 0) AS n,
        nullif(m.take, '') AS take,
        CASE WHEN m.seats = '' THEN [] ELSE CAST(string_split(m.seats, ',') AS TINYINT[]) END AS seats,
        coalesce(TRY_CAST(nullif(m.options, '') AS INTEGER), 0) AS n_options,
        TRY_CAST(nullif(m.value, '') AS INTEGER) AS value,
        m.value = 'b' AS battle_value,   -- an end's value that is its row's battle
        nullif(m.note, '') AS note
    FROM (SELECT shape, pos, regexp_extract(tok,
            '^([a-z_]+)(?::(\d+))?(?:#(\d+))?(?:@(\*|t|w|[\d,]+))?(?:\[([\d,]*)\])?(?:\{(\d+)\})?(?:=(-?\d+|b))?(?:!(\S+))?$',
            ['kind', 'seat', 'count', 'take', 'seats', 'options', 'value', 'note']) AS m
          FROM tokens)
),
placed AS (   -- where each event's own cards start in its row (its options follow them),
              -- which table it belongs to, and where the row's cards end (the positions of its
              -- `@*` takes follow them)
    SELECT *,
        CAST(coalesce(sum(n + n_options) OVER w, 0) AS BIGINT) AS start,
        CAST(coalesce(count(take) OVER w, 0) AS BIGINT) AS tab,
        CAST(sum(n + n_options) OVER (PARTITION BY shape) AS BIGINT) AS raw
    FROM parsed
    WINDOW w AS (PARTITION BY shape ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
table_cards AS (   -- each card of each table: its position in the row, its event, its seat
    SELECT p.shape, p.tab, p.pos, p.seat, unnest(range(p.start + 1, p.start + p.n + 1)) AS rpos
    FROM placed p JOIN event_kinds k ON k.name = p.kind WHERE k.lays AND p.take IS NULL
),
tables AS (   -- the positions in the row of each table's cards, in the order they were put down
    SELECT shape, tab, list(rpos ORDER BY pos, rpos) AS tpos FROM table_cards GROUP BY shape, tab
),
winner_first AS (   -- the same for each `@w` take, in its order: the taker's, then each seat's
    SELECT c.shape, c.tab, list(c.rpos ORDER BY c.seat <> p.seat, c.seat, c.pos, c.rpos) AS wpos,
        bool_and(c.seat IS NOT NULL) AS seated
    FROM table_cards c JOIN placed p ON p.take = 'w' AND p.shape = c.shape AND p.tab = c.tab
    GROUP BY c.shape, c.tab
)
SELECT p.shape, CAST(p.pos AS INTEGER) AS pos, p.kind, p.seat, p.seats,
    CAST(range(p.start + p.n + 1, p.start + p.n + p.n_options + 1) AS INTEGER[]) AS opts, p.value, p.battle_value,
    p.note,
    CASE WHEN p.take IS NULL THEN CAST(range(p.start + 1, p.start + p.n + 1) AS INTEGER[])
         WHEN p.take = 't' THEN CAST(t.tpos AS INTEGER[])
         WHEN p.take = 'w' THEN CAST(w.wpos AS INTEGER[])
         WHEN p.take <> '*' THEN list_transform(CAST(string_split(p.take, ',') AS INTEGER[]),
                                                lambda i: CAST(t.tpos[i + 1] AS INTEGER))
    END AS idx,
    CASE WHEN p.take = '*' THEN CAST(t.tpos AS INTEGER[]) END AS tpos,
    CASE WHEN p.take = '*' THEN CAST(p.raw + 1 + coalesce(sum(len(t.tpos)) FILTER (WHERE p.take = '*') OVER (
        PARTITION BY p.shape ORDER BY p.pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS INTEGER)
    END AS ostart,
    -- what log.codec.decode_row checks of a shape: it parses, only an end's value is spelt as its
    -- battle, and a take spelt in it is an order of a table of up to three cards, or `@t`, `@w`
    -- (by a seat, of seated cards) or `@*` for a longer one (whose order is in the row; `war
    -- validate` checks it)
    p.kind <> '' AND (NOT p.battle_value OR coalesce(k.ends_game, false)) AND CASE
        WHEN p.take IS NULL THEN true
        WHEN p.take IN ('*', 't') THEN coalesce(len(t.tpos), 0) > 3
        WHEN p.take = 'w' THEN coalesce(len(t.tpos), 0) > 3 AND p.seat IS NOT NULL AND coalesce(w.seated, false)
        ELSE coalesce(len(t.tpos), 0) <= 3 AND
             list_sort(CAST(string_split(p.take, ',') AS BIGINT[])) = range(coalesce(len(t.tpos), 0))
    END AS well_formed
FROM placed p LEFT JOIN tables t ON p.take IS NOT NULL AND t.shape = p.shape AND t.tab = p.tab
    LEFT JOIN winner_first w ON p.take = 'w' AND w.shape = p.shape AND w.tab = p.tab
    LEFT JOIN event_kinds k ON k.name = p.kind;

-- Each shape's events in order, one row a shape: what a row of `event_rows` unnests into.
CREATE OR REPLACE TABLE shape_steps AS
SELECT shape, list({'pos': pos, 'kind': kind, 'seat': seat, 'seats': seats, 'opts': opts, 'value': value,
                    'battle_value': battle_value, 'note': note, 'idx': idx, 'tpos': tpos, 'ostart': ostart}
                   ORDER BY pos) AS steps
FROM event_steps GROUP BY shape;

-- Each row of `event_rows` with its shape's steps. DuckDB keeps no order through a join, so read
-- this way `events` needs ORDER BY game_id, seq for the log's order; `war query` defines this
-- view as a lookup that keeps the order of the files, which is the log's (see
-- pipeline/jobs/query/log_views.py).
CREATE OR REPLACE VIEW event_row_steps AS
SELECT r.*, s.steps FROM event_rows r JOIN shape_steps s ON r.shape = s.shape;

CREATE OR REPLACE VIEW events AS
SELECT game_id, CAST(seq + s.pos AS INTEGER) AS seq, battle, s.kind, s.seat,
    CASE WHEN s.ostart IS NULL THEN list_select(cards, s.idx)
         ELSE list_select(cards, list_select(s.tpos, list_transform(cards[s.ostart:s.ostart + len(s.tpos) - 1],
                                                                    lambda p: p + 1)))
    END AS cards,
    s.seats, list_select(cards, s.opts) AS options,
    CASE WHEN s.battle_value THEN battle ELSE s.value END AS value, s.note, variant
FROM (SELECT game_id, seq, battle, cards, variant, unnest(steps) AS s FROM event_row_steps);

-- What each shape says about its battle, for the `battles` view without decoding any card: its
-- deepest war, its winner (the seat of its first collect), the cards laid on its table, whether
-- the table was set aside, and whether it is a battle at all (cards laid, a war, a take).
CREATE OR REPLACE TABLE battle_shapes AS
SELECT s.shape,
    max(s.value) FILTER (WHERE k.starts_war) AS war_depth,
    arg_min(s.seat, s.pos) FILTER (WHERE k.collects) AS winner,
    coalesce(sum(len(s.idx)) FILTER (WHERE k.lays), 0) AS table_cards,
    coalesce(bool_or(k.sets_aside), false) AS set_aside,
    coalesce(bool_or(k.lays OR k.starts_war OR k.takes), false) AS fights
FROM event_steps s LEFT JOIN event_kinds k ON k.name = s.kind GROUP BY s.shape;
