-- answers: Over every deal, which cycle lengths do the deals that never end fall into? Over
--   every deal of the deck (`--all-deals`), per variant and rule set that plays every deal, and per cycle length
--   (the battles between two equal positions, games.cycle_length): how many deals fall into a
--   cycle of that length, as a fraction of every deal (numerator over denominator) and a share,
--   and how many distinct cycles they fall into (games.cycle_key; the query `cycles` lists them).
WITH enumerated AS (
    SELECT variant, rules_id, outcome, cycle_length, cycle_key
    FROM games
    WHERE deal = 'all'
),
totals AS (
    SELECT variant, rules_id, count(*) AS denominator FROM enumerated GROUP BY variant, rules_id
)
SELECT e.variant, e.rules_id, e.cycle_length AS period,
       count(*) AS numerator, t.denominator, count(*) / t.denominator AS share,
       count(DISTINCT e.cycle_key) AS cycles
FROM enumerated e JOIN totals t USING (variant, rules_id)
WHERE e.outcome = 'cycle'
GROUP BY e.variant, e.rules_id, e.cycle_length, t.denominator
ORDER BY e.variant, e.rules_id, period;
