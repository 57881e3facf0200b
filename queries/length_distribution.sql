-- answers: How are game lengths distributed, long tail included? A histogram of battles per game
--   on a logarithmic scale, per variant and rule set: bucket k holds the games with
--   10^(k / bins_per_decade) <= battles < 10^((k + 1) / bins_per_decade) (bucket_low and
--   bucket_high), from the shortest game's bucket to the longest's (empty buckets included,
--   with 0 games); its games, its share of the rule set's games, and the cumulative share of the
--   games shorter than bucket_high (the empirical distribution function at bucket_high). The
--   buckets are equally wide on a log axis, so a bucket's share is proportional to the density
--   there. max_battles is the rule set's battle cap (capped games end at it).
-- param: bins_per_decade INTEGER = 20 -- buckets per factor of ten in battles (at least 1)
WITH checked AS (
    SELECT CASE WHEN $bins_per_decade >= 1 THEN $bins_per_decade
                ELSE error('parameter bins_per_decade must be at least 1, got '
                           || CAST($bins_per_decade AS VARCHAR))
           END AS per_decade
),
caps AS (
    SELECT DISTINCT rules_id, max_battles FROM rules
),
bucketed AS (
    -- the small epsilon keeps exact powers of ten (10, 100, ...) in the bucket they start
    SELECT g.variant, g.rules_id,
           CAST(floor(log10(greatest(g.battles, 1)) * c.per_decade + 1e-9) AS BIGINT) AS bucket
    FROM games g, checked c
),
counts AS (
    SELECT variant, rules_id, bucket, count(*) AS games
    FROM bucketed
    GROUP BY variant, rules_id, bucket
),
spans AS (
    SELECT variant, rules_id, min(bucket) AS lo, max(bucket) AS hi, sum(games) AS total
    FROM counts
    GROUP BY variant, rules_id
),
buckets AS (
    SELECT s.variant, s.rules_id, s.total, b.bucket
    FROM spans s, LATERAL (SELECT unnest(range(s.lo, s.hi + 1)) AS bucket) b
)
SELECT
    b.variant,
    b.rules_id,
    k.max_battles,
    b.bucket,
    power(10, b.bucket / c.per_decade::DOUBLE)        AS bucket_low,
    power(10, (b.bucket + 1) / c.per_decade::DOUBLE)  AS bucket_high,
    coalesce(n.games, 0)                              AS games,
    coalesce(n.games, 0) / b.total::DOUBLE            AS share,
    sum(coalesce(n.games, 0)) OVER (PARTITION BY b.variant, b.rules_id ORDER BY b.bucket)
        / b.total::DOUBLE                             AS cumulative_share
FROM buckets b
CROSS JOIN checked c
JOIN caps k USING (rules_id)
LEFT JOIN counts n USING (variant, rules_id, bucket)
ORDER BY b.variant, b.rules_id, b.bucket;
