-- answers: How long do the games that end last, in battles, per rule set (by name, `rule_set`: a
--   tournament's seatings apart)? Over the games that end (a win or a draw): how many, their
--   mean, median, 90th and 99th percentile, shortest and longest; beside them the games that
--   do not end, counted and left out of every length: cycles (a position repeats: the game would
--   go on for ever, its battles are only where the loop was found) and capped games (stopped at
--   max_battles). Percentiles are quantile_cont (linear interpolation between the two nearest
--   games, as numpy's default), so they can be fractional. Lengths are null for a rule set
--   none of whose games ends.
-- summary: How long do the games that end last, per rule set?
SELECT
    rule_set,
    variant,
    rules_id,
    rule_set_policies(rule_set) AS policies,
    count(*)                                                          AS games,
    count(*) FILTER (WHERE outcome IN ('win', 'draw'))                AS ended,
    count(*) FILTER (WHERE outcome = 'cycle')                         AS cycles,
    count(*) FILTER (WHERE outcome = 'capped')                        AS capped,
    avg(battles) FILTER (WHERE outcome IN ('win', 'draw'))            AS mean_battles,
    quantile_cont(battles, 0.5) FILTER (WHERE outcome IN ('win', 'draw'))  AS median_battles,
    quantile_cont(battles, 0.9) FILTER (WHERE outcome IN ('win', 'draw'))  AS p90_battles,
    quantile_cont(battles, 0.99) FILTER (WHERE outcome IN ('win', 'draw')) AS p99_battles,
    min(battles) FILTER (WHERE outcome IN ('win', 'draw'))            AS min_battles,
    max(battles) FILTER (WHERE outcome IN ('win', 'draw'))            AS max_battles
FROM games
GROUP BY rule_set, variant, rules_id
ORDER BY rule_set_order(rule_set);
