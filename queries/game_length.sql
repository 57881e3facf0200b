-- answers: How long do games last, in battles, per variant and rule set? Games, mean,
--   median, 90th and 99th percentile, min and max. Percentiles are quantile_cont (linear
--   interpolation between the two nearest games, as numpy's default), so they can be fractional.
--   Capped games count at the cap, so a low max_battles pulls every statistic down.
SELECT
    variant,
    rules_id,
    count(*)                        AS games,
    avg(battles)                    AS mean_battles,
    quantile_cont(battles, 0.5)     AS median_battles,
    quantile_cont(battles, 0.9)     AS p90_battles,
    quantile_cont(battles, 0.99)    AS p99_battles,
    min(battles)                    AS min_battles,
    max(battles)                    AS max_battles
FROM games
GROUP BY variant, rules_id
ORDER BY variant, rules_id;
