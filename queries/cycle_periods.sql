-- answers: Over every deal, which cycle lengths do the deals that never end fall into? Per rule
--   set (by name, `rule_set`) that plays every deal of its deck (`--all-deals` with no --games,
--   or counted whole: the counts view's exact, where also the deal alone decides each
--   game: a fixed pickup and no policy that draws), and per cycle length (the period: the
--   battles between two equal positions by ranks, games.cycle_length): how many deals fall into
--   a cycle of that length, as a fraction of every deal (numerator over denominator) and a share,
--   and how many distinct cycles they fall into (games.cycle_key; the query `cycles` lists them).
-- exact: every deal
WITH grouped AS (
    SELECT rule_set, variant, rules_id, outcome, cycle_length, CAST(sum(games) AS BIGINT) AS numerator,
           count(DISTINCT cycle_key) AS cycles
    FROM counts
    WHERE exact
    GROUP BY rule_set, variant, rules_id, outcome, cycle_length
),
totalled AS (
    SELECT *, CAST(sum(numerator) OVER (PARTITION BY rule_set) AS BIGINT) AS denominator
    FROM grouped
)
SELECT rule_set, variant, rules_id, rule_set_policies(rule_set) AS policies, cycle_length AS period, numerator, denominator, numerator / denominator AS share,
       cycles
FROM totalled
WHERE outcome = 'cycle'
ORDER BY rule_set_order(rule_set), period;
