-- answers: Do the players' policies change how long games last? Per rule set (by name,
--   `rule_set`: each seating of a tournament is one) and its seats' policies (games.policies as
--   given, one canonical policy string per seat; empty for variants without decisions), over
--   the games that end (a win or a draw): how many, their mean, median and 90th percentile of
--   battles; beside them the games that never end, left out of every length: cycles, and
--   capped games (stopped at the battle cap) with their share of all the games (0..1).
--   Percentiles are quantile_cont (linear interpolation).
SELECT
    rule_set,
    variant,
    rules_id,
    policies,
    count(*)                                                             AS games,
    count(*) FILTER (WHERE outcome IN ('win', 'draw'))                   AS ended,
    avg(battles) FILTER (WHERE outcome IN ('win', 'draw'))               AS mean_battles,
    quantile_cont(battles, 0.5) FILTER (WHERE outcome IN ('win', 'draw')) AS median_battles,
    quantile_cont(battles, 0.9) FILTER (WHERE outcome IN ('win', 'draw')) AS p90_battles,
    count(*) FILTER (WHERE outcome = 'cycle')                            AS cycles,
    count(*) FILTER (WHERE outcome = 'capped')                           AS capped,
    avg(CASE WHEN outcome = 'capped' THEN 1.0 ELSE 0.0 END)              AS capped_share
FROM games
GROUP BY rule_set, variant, rules_id, policies
ORDER BY rule_set_order(rule_set), policies;
