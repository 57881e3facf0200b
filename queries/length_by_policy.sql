-- answers: Do the players' policies change how long games last? Per variant, rule set and the
--   seats' policies (games.policies as given, one canonical policy string per seat; empty for
--   variants without decisions): games, mean, median and 90th percentile of battles, the
--   games that hit the battle cap (capped) and their share of the games (0..1). Percentiles
--   are quantile_cont (linear interpolation); capped games count at the cap.
SELECT
    variant,
    rules_id,
    policies,
    count(*)                                   AS games,
    avg(battles)                               AS mean_battles,
    quantile_cont(battles, 0.5)                AS median_battles,
    quantile_cont(battles, 0.9)                AS p90_battles,
    count(*) FILTER (WHERE outcome = 'capped') AS capped,
    avg(CASE WHEN outcome = 'capped' THEN 1.0 ELSE 0.0 END) AS capped_share
FROM games
GROUP BY variant, rules_id, policies
ORDER BY variant, rules_id, policies;
