-- answers: How are the lengths of the games that end distributed? A histogram of battles per game
--   that ends (a win or a draw), per rule set (by name, `rule_set`: a tournament's seatings
--   apart): each bucket [bucket_start, bucket_end] of `width` battles from the shortest game's
--   bucket to the longest's (empty buckets included, with 0 games), its games and its share of
--   the rule set's games that end; cycles and capped count, on every row, the rule set's games
--   that never end, which no bucket holds.
-- param: width INTEGER = 50 >= 1 -- bucket width in battles (at least 1)
WITH checked AS (
    SELECT CASE WHEN $width >= 1 THEN $width
                ELSE error('parameter width must be at least 1, got ' || CAST($width AS VARCHAR))
           END AS width
),
bucketed AS (
    SELECT g.rule_set, g.variant, g.rules_id, g.outcome, (g.battles // c.width) * c.width AS bucket_start
    FROM games g, checked c
),
counts AS (   -- per bucket: the games that end, and the cycles and capped games of its battles
    SELECT rule_set, variant, rules_id, bucket_start,
           count(*) FILTER (WHERE outcome IN ('win', 'draw')) AS games,
           count(*) FILTER (WHERE outcome = 'cycle')          AS cycles,
           count(*) FILTER (WHERE outcome = 'capped')         AS capped
    FROM bucketed
    GROUP BY rule_set, variant, rules_id, bucket_start
),
spans AS (
    SELECT rule_set, variant, rules_id,
           min(bucket_start) FILTER (WHERE games > 0) AS lo, max(bucket_start) FILTER (WHERE games > 0) AS hi,
           sum(games) AS total, sum(cycles) AS cycles, sum(capped) AS capped
    FROM counts
    GROUP BY rule_set, variant, rules_id
    HAVING sum(games) > 0
),
buckets AS (
    SELECT s.rule_set, s.variant, s.rules_id, s.total, s.cycles, s.capped, b.bucket_start
    FROM spans s, checked c,
         LATERAL (SELECT unnest(range(s.lo, s.hi + c.width, c.width)) AS bucket_start) b
)
SELECT
    b.rule_set,
    b.variant,
    b.rules_id,
    rule_set_policies(b.rule_set) AS policies,
    b.bucket_start,
    b.bucket_start + c.width - 1            AS bucket_end,
    coalesce(n.games, 0)                    AS games,
    coalesce(n.games, 0) / b.total::DOUBLE  AS share,
    CAST(b.cycles AS BIGINT)                AS cycles,
    CAST(b.capped AS BIGINT)                AS capped
FROM buckets b
CROSS JOIN checked c
LEFT JOIN counts n USING (rule_set, bucket_start)
ORDER BY rule_set_order(b.rule_set), b.bucket_start;
