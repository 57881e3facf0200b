-- answers: Does a strong hand win? Win rate by hand strength, per variant, rule set and number of
--   players. A seat's hand strength is the sum over the cards it was dealt of (rank index -
--   (ranks - 1) / 2): rank indices count from 0 (the 2 of a standard deck) up, a Joker is one
--   above the top rank, so a rank in the middle (the 8) scores 0, an Ace +6 and a 2 -6. Seats
--   are grouped in buckets [bucket_start, bucket_start + width) of strength; per bucket: the
--   seats (seat-games), those in decided games (outcome win), their wins, the share of decided
--   seat-games won, its 95% Wilson score interval (ci_low, ci_high; z sets the level), the mean
--   strength in the bucket, and the fair share 1 / players. The deal is read as in
--   deal_top_cards.
-- param: width INTEGER = 4 -- bucket width in strength points (at least 1)
-- param: z DOUBLE = 1.96 -- normal quantile of the interval (1.96 for 95%, 2.576 for 99%)
WITH checked AS (
    SELECT CASE WHEN $width >= 1 THEN $width
                ELSE error('parameter width must be at least 1, got ' || CAST($width AS VARCHAR))
           END AS width,
           CASE WHEN $z > 0 THEN $z
                ELSE error('parameter z must be positive, got ' || CAST($z AS VARCHAR))
           END AS z
),
decks AS (
    SELECT DISTINCT rules_id, ranks, suits FROM rules
),
deal_rows AS (
    SELECT game_id, shape, cards FROM event_rows WHERE battle = 0
),
deal_parts AS (   -- the parts of each distinct deal shape, `deal:S#N` for seat S's N cards
    SELECT shape, pos, tok, coalesce(TRY_CAST(regexp_extract(tok, '#(\d+)', 1) AS INTEGER), 0) AS n
    FROM (SELECT shape, unnest(string_split(shape, ' ')) AS tok,
                 unnest(range(len(string_split(shape, ' ')))) AS pos
          FROM (SELECT DISTINCT shape FROM deal_rows))
),
deal_slices AS (  -- where each seat's dealt cards lie in the row's cards
    SELECT shape, CAST(regexp_extract(tok, '^deal:(\d+)', 1) AS INTEGER) AS seat, n,
           coalesce(sum(n) OVER (PARTITION BY shape ORDER BY pos
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS start
    FROM deal_parts
    QUALIFY tok LIKE 'deal:%'
),
dealt AS (
    SELECT r.game_id, s.seat, r.cards[s.start + 1 : s.start + s.n] AS cards
    FROM deal_rows r JOIN deal_slices s USING (shape)
),
hands AS (
    SELECT g.variant, g.rules_id, g.players, g.outcome = 'win' AS decided,
           g.outcome = 'win' AND g.winner = h.seat AS won,
           coalesce(list_sum(list_transform(h.cards, lambda c:
               CASE WHEN c >= d.ranks * d.suits THEN d.ranks ELSE c // d.suits END
               - (d.ranks - 1) / 2.0)), 0) AS strength
    FROM dealt h
    JOIN games g USING (game_id)
    JOIN decks d USING (rules_id)
),
counts AS (
    SELECT h.variant, h.rules_id, h.players,
           CAST(floor(h.strength / k.width) * k.width AS BIGINT) AS bucket_start,
           count(*)                          AS seats,
           count(*) FILTER (WHERE h.decided) AS n,
           count(*) FILTER (WHERE h.won)     AS wins,
           avg(h.strength)                   AS mean_strength
    FROM hands h, checked k
    GROUP BY h.variant, h.rules_id, h.players, bucket_start
),
shares AS (
    SELECT *, wins / nullif(n, 0)::DOUBLE AS p FROM counts
)
SELECT
    s.variant,
    s.rules_id,
    s.players,
    s.bucket_start,
    s.bucket_start + c.width                                       AS bucket_end,
    s.seats,
    s.n                                                            AS decided_seats,
    s.wins,
    s.p                                                            AS share,
    greatest(0.0, (s.p + c.z * c.z / (2 * s.n) - c.z * sqrt(s.p * (1 - s.p) / s.n + c.z * c.z / (4 * s.n * s.n)))
        / (1 + c.z * c.z / s.n))                                    AS ci_low,
    least(1.0, (s.p + c.z * c.z / (2 * s.n) + c.z * sqrt(s.p * (1 - s.p) / s.n + c.z * c.z / (4 * s.n * s.n)))
        / (1 + c.z * c.z / s.n))                                    AS ci_high,
    s.mean_strength,
    1.0 / s.players                                                AS fair_share
FROM shares s
CROSS JOIN checked c
ORDER BY s.variant, s.rules_id, s.players, s.bucket_start;
