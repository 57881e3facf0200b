-- answers: Over every deal of the deck, exactly how often does each seat win, draw or cycle? Per
--   variant and rule set that plays every deal (`war generate --all-deals`, its games stored a
--   row a deal or counted, `--log counts`): each result (`seat N wins`, `draw`, `capped`,
--   `cycle`) as a fraction of the deals (numerator over denominator, and as a decimal share),
--   exact since every deal is equally likely under a fair shuffle. With two seats, the same
--   counted up to swapping the players (class_numerator over class_denominator): a deal and the
--   deal with the seats' piles swapped are one class, counted once on its first deal (the lower
--   deal number). Rule sets of seeded or explicit deals have no rows.
-- (From the `counts` view: a rule set's games counted by kind, one pass over a games table.)
WITH grouped AS (
    SELECT variant, rules_id,
           CASE WHEN outcome = 'win' THEN 'seat ' || CAST(winner AS VARCHAR) || ' wins' ELSE outcome END AS result,
           CAST(sum(games) AS BIGINT) AS numerator,
           CAST(sum(games) FILTER (WHERE first_of_class) AS BIGINT) AS class_numerator,
           bool_or(first_of_class IS NOT NULL) AS two_seats
    FROM counts
    GROUP BY variant, rules_id, result
),
totalled AS (
    SELECT *,
           CAST(sum(numerator) OVER (PARTITION BY variant, rules_id) AS BIGINT) AS denominator,
           CAST(sum(class_numerator) OVER (PARTITION BY variant, rules_id) AS BIGINT) AS classes,
           bool_or(two_seats) OVER (PARTITION BY variant, rules_id) AS seats_two
    FROM grouped
)
SELECT variant, rules_id, result,
       numerator,
       denominator,
       numerator / denominator AS share,
       CASE WHEN seats_two THEN coalesce(class_numerator, 0) END AS class_numerator,
       CASE WHEN seats_two THEN classes END AS class_denominator
FROM totalled
ORDER BY variant, rules_id, result;
