-- answers: Over every deal, which cycle lengths do the deals that never end fall into? Over
--   every deal of the deck (`--all-deals`), per variant and rule set that plays every deal, and per cycle length
--   (the period: the battles between two equal positions by ranks, games.cycle_length): how
--   many deals fall into a cycle of that length, as a fraction of every deal (numerator over
--   denominator) and a share, and how many distinct cycles they fall into (games.cycle_key;
--   the query `cycles` lists them).
WITH grouped AS (
    SELECT variant, rules_id, outcome, cycle_length, CAST(sum(games) AS BIGINT) AS numerator,
           count(DISTINCT cycle_key) AS cycles
    FROM counts
    GROUP BY variant, rules_id, outcome, cycle_length
),
totalled AS (
    SELECT *, CAST(sum(numerator) OVER (PARTITION BY variant, rules_id) AS BIGINT) AS denominator
    FROM grouped
)
SELECT variant, rules_id, cycle_length AS period, numerator, denominator, numerator / denominator AS share, cycles
FROM totalled
WHERE outcome = 'cycle'
ORDER BY variant, rules_id, period;
