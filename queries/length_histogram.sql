-- answers: How are game lengths distributed? A histogram of battles per game, per variant and
--   rule set: each bucket [bucket_start, bucket_end] of `width` battles from the shortest game's
--   bucket to the longest's (empty buckets included, with 0 games), its games and its share
--   of the rule set's games.
-- param: width INTEGER = 50 -- bucket width in battles (at least 1)
WITH checked AS (
    SELECT CASE WHEN $width >= 1 THEN $width
                ELSE error('parameter width must be at least 1, got ' || CAST($width AS VARCHAR))
           END AS width
),
bucketed AS (
    SELECT g.variant, g.rules_id, (g.battles // c.width) * c.width AS bucket_start
    FROM games g, checked c
),
counts AS (
    SELECT variant, rules_id, bucket_start, count(*) AS games
    FROM bucketed
    GROUP BY variant, rules_id, bucket_start
),
spans AS (
    SELECT variant, rules_id, min(bucket_start) AS lo, max(bucket_start) AS hi, sum(games) AS total
    FROM counts
    GROUP BY variant, rules_id
),
buckets AS (
    SELECT s.variant, s.rules_id, s.total, b.bucket_start
    FROM spans s, checked c,
         LATERAL (SELECT unnest(range(s.lo, s.hi + c.width, c.width)) AS bucket_start) b
)
SELECT
    b.variant,
    b.rules_id,
    b.bucket_start,
    b.bucket_start + c.width - 1            AS bucket_end,
    coalesce(n.games, 0)                    AS games,
    coalesce(n.games, 0) / b.total::DOUBLE  AS share
FROM buckets b
CROSS JOIN checked c
LEFT JOIN counts n USING (variant, rules_id, bucket_start)
ORDER BY b.variant, b.rules_id, b.bucket_start;
