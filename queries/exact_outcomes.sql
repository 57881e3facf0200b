-- answers: Over every deal of the deck, exactly how often does each seat win, draw or cycle? Per
--   variant and rule set that plays every deal (`war generate --all-deals`): each result (`seat N wins`, `draw`, `capped`, `cycle`) as a fraction of
--   the deals (numerator over denominator, and as a decimal share), exact since every deal is
--   equally likely under a fair shuffle. With two seats, the same counted up to swapping the
--   players (class_numerator over class_denominator): a deal and the deal with the seats' piles
--   swapped are one class, counted once on its first deal (the lower deal_index: the games
--   view's first_of_class). Rule sets of seeded or explicit deals have no rows.
-- (One pass over the games, then sums over the few grouped rows: a CTE read twice would be held
-- whole, 479 million rows of a 12-card deck.)
WITH grouped AS (
    SELECT variant, rules_id, any_value(players) AS players,
           CASE WHEN outcome = 'win' THEN 'seat ' || CAST(winner AS VARCHAR) || ' wins' ELSE outcome END AS result,
           count(*) AS numerator,
           count(*) FILTER (WHERE first_of_class) AS class_numerator
    FROM games
    WHERE deal = 'all'
    GROUP BY variant, rules_id, result
),
totalled AS (
    SELECT *,
           CAST(sum(numerator) OVER (PARTITION BY variant, rules_id) AS BIGINT) AS denominator,
           CAST(sum(class_numerator) OVER (PARTITION BY variant, rules_id) AS BIGINT) AS classes,
           max(players) OVER (PARTITION BY variant, rules_id) AS seats
    FROM grouped
)
SELECT variant, rules_id, result,
       numerator,
       denominator,
       numerator / denominator AS share,
       CASE WHEN seats = 2 THEN class_numerator END AS class_numerator,
       CASE WHEN seats = 2 THEN classes END AS class_denominator
FROM totalled
ORDER BY variant, rules_id, result;
