-- answers: How long does a game last at the median, and how sure is that? Per variant and rule
--   set: games, the median of battles (quantile_cont, as game_length) and its 95% interval
--   without assuming a distribution (ci_low, ci_high: the battles of the games at ranks
--   floor(n/2 - z*sqrt(n)/2) and ceil(1 + n/2 + z*sqrt(n)/2) of the n games sorted by battles,
--   counted from 1 and kept within 1..n; z sets the level). Two rule sets whose intervals do
--   not overlap differ in median length beyond chance.
-- param: z DOUBLE = 1.96 -- normal quantile of the interval (1.96 for 95%, 2.576 for 99%)
WITH checked AS (
    SELECT CASE WHEN $z > 0 THEN $z
                ELSE error('parameter z must be positive, got ' || CAST($z AS VARCHAR))
           END AS z
),
ranked AS (
    SELECT variant, rules_id, battles,
           row_number() OVER (PARTITION BY variant, rules_id ORDER BY battles) AS r,
           count(*) OVER (PARTITION BY variant, rules_id)                     AS n
    FROM games
),
bounded AS (
    SELECT k.*,
           greatest(1, floor(k.n / 2 - c.z * sqrt(k.n) / 2))    AS low_rank,
           least(k.n, ceil(1 + k.n / 2 + c.z * sqrt(k.n) / 2))  AS high_rank
    FROM ranked k CROSS JOIN checked c
)
SELECT
    variant,
    rules_id,
    any_value(n)                                         AS games,
    quantile_cont(battles, 0.5)                          AS median_battles,
    min(battles) FILTER (WHERE r >= low_rank)            AS ci_low,
    max(battles) FILTER (WHERE r <= high_rank)           AS ci_high
FROM bounded
GROUP BY variant, rules_id
ORDER BY variant, rules_id;
