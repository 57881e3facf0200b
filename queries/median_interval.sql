-- answers: How long does a game that ends last at the median, and how sure is that? Per rule set
--   (by name, `rule_set`: a tournament's seatings apart), over the games that end (a win or a
--   draw; cycles, which never end, and capped games, stopped at the cap, are counted beside and left out): how
--   many, the median of their battles (quantile_cont, as game_length) and its 95% interval
--   without assuming a distribution (ci_low, ci_high: the battles of the games at ranks
--   floor(n/2 - z*sqrt(n)/2) and ceil(1 + n/2 + z*sqrt(n)/2) of the n games sorted by battles,
--   counted from 1 and kept within 1..n; z sets the level). Two rule sets whose intervals do
--   not overlap differ in median length beyond chance. Null for a rule set none of whose games
--   ends; ci_low and ci_high are null where too few games end for the level: fewer than the
--   widest interval, [shortest, longest], needs to cover the median that often (1 - 2^(1-n)
--   below the level 1 - erfc(z/sqrt 2): fewer than 6 games at 95%, 8 at 99%).
-- param: z DOUBLE = 1.96 > 0 < 40 -- normal quantile of the interval (1.96 for 95%, 2.576 for 99%)
WITH checked AS (
    SELECT CASE WHEN $z > 0 THEN $z
                ELSE error('parameter z must be positive, got ' || CAST($z AS VARCHAR))
           END AS z
),
-- 1 - the level: the normal tail erfc(z / sqrt 2) (normal_tail, as rule_set_pairs' p)
level AS (
    SELECT z, normal_tail(z) AS tail FROM checked
),
sets AS (
    SELECT rule_set, variant, rules_id,
           count(*) FILTER (WHERE outcome = 'cycle')  AS cycles,
           count(*) FILTER (WHERE outcome = 'capped') AS capped
    FROM games
    GROUP BY rule_set, variant, rules_id
),
ranked AS (
    SELECT rule_set, battles,
           row_number() OVER (PARTITION BY rule_set ORDER BY battles) AS r,
           count(*) OVER (PARTITION BY rule_set)                     AS n
    FROM games
    WHERE outcome IN ('win', 'draw')
),
bounded AS (
    SELECT k.*,
           greatest(1, floor(k.n / 2 - c.z * sqrt(k.n) / 2))    AS low_rank,
           least(k.n, ceil(1 + k.n / 2 + c.z * sqrt(k.n) / 2))  AS high_rank,
           power(0.5, k.n - 1) <= c.tail                        AS enough
    FROM ranked k CROSS JOIN level c
),
medians AS (
    SELECT rule_set,
           any_value(n)                                         AS ended,
           quantile_cont(battles, 0.5)                          AS median_battles,
           min(battles) FILTER (WHERE enough AND r >= low_rank)  AS ci_low,
           max(battles) FILTER (WHERE enough AND r <= high_rank) AS ci_high
    FROM bounded
    GROUP BY rule_set
)
SELECT s.rule_set, s.variant, s.rules_id, rule_set_policies(s.rule_set) AS policies, coalesce(m.ended, 0) AS ended, s.cycles, s.capped,
       m.median_battles, m.ci_low, m.ci_high
FROM sets s LEFT JOIN medians m USING (rule_set)
ORDER BY rule_set_order(s.rule_set);
