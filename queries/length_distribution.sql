-- answers: How are the lengths of the games that end distributed, long tail included? A histogram
--   of battles per game on a logarithmic scale, per rule set (by name, `rule_set`: a
--   tournament's seatings apart), over its games that end (a win or a draw): bucket k holds the
--   games with 10^(k / bins_per_decade) <= battles < 10^((k + 1) / bins_per_decade) (bucket_low
--   and bucket_high), from the shortest game's bucket to the longest's (empty buckets included,
--   with 0 games); its games, its share of the rule set's games that end, and the cumulative
--   share of those shorter than bucket_high (the empirical distribution function at
--   bucket_high). The buckets are equally wide on a log axis, so a bucket's share is
--   proportional to the density there. max_battles is the rule set's battle cap; cycles and
--   capped count, on every row, its games that never end (a position repeats; stopped at the
--   cap), which no bucket holds.
-- param: bins_per_decade INTEGER = 20 >= 1 <= 1000 -- buckets per factor of ten in battles (1 to 1000)
WITH checked AS (
    SELECT CASE WHEN $bins_per_decade >= 1 THEN $bins_per_decade
                ELSE error('parameter bins_per_decade must be at least 1, got '
                           || CAST($bins_per_decade AS VARCHAR))
           END AS per_decade
),
caps AS (
    SELECT DISTINCT rules_id, max_battles FROM rules
),
unended AS (
    SELECT rule_set,
           count(*) FILTER (WHERE outcome = 'cycle')  AS cycles,
           count(*) FILTER (WHERE outcome = 'capped') AS capped
    FROM games
    GROUP BY rule_set
),
bucketed AS (
    -- the small epsilon keeps exact powers of ten (10, 100, ...) in the bucket they start
    SELECT g.rule_set, g.variant, g.rules_id,
           CAST(floor(log10(greatest(g.battles, 1)) * c.per_decade + 1e-9) AS BIGINT) AS bucket
    FROM games g, checked c
    WHERE g.outcome IN ('win', 'draw')
),
counts AS (
    SELECT rule_set, variant, rules_id, bucket, count(*) AS games
    FROM bucketed
    GROUP BY rule_set, variant, rules_id, bucket
),
spans AS (
    SELECT rule_set, variant, rules_id, min(bucket) AS lo, max(bucket) AS hi, sum(games) AS total
    FROM counts
    GROUP BY rule_set, variant, rules_id
),
buckets AS (
    SELECT s.rule_set, s.variant, s.rules_id, s.total, b.bucket
    FROM spans s, LATERAL (SELECT unnest(range(s.lo, s.hi + 1)) AS bucket) b
)
SELECT
    b.rule_set,
    b.variant,
    b.rules_id,
    rule_set_policies(b.rule_set) AS policies,
    k.max_battles,
    b.bucket,
    power(10, b.bucket / c.per_decade::DOUBLE)        AS bucket_low,
    power(10, (b.bucket + 1) / c.per_decade::DOUBLE)  AS bucket_high,
    coalesce(n.games, 0)                              AS games,
    coalesce(n.games, 0) / b.total::DOUBLE            AS share,
    sum(coalesce(n.games, 0)) OVER (PARTITION BY b.rule_set ORDER BY b.bucket)
        / b.total::DOUBLE                             AS cumulative_share,
    u.cycles,
    u.capped
FROM buckets b
CROSS JOIN checked c
JOIN caps k USING (rules_id)
JOIN unended u USING (rule_set)
LEFT JOIN counts n USING (rule_set, bucket)
ORDER BY rule_set_order(b.rule_set), b.bucket;
