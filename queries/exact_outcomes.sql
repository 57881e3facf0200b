-- answers: Over every deal of the deck, exactly how often does each seat win, draw or cycle? Per
--   variant and rule set that plays every deal (`war generate --all-deals`): each result (`seat N wins`, `draw`, `capped`, `cycle`) as a fraction of
--   the deals (numerator over denominator, and as a decimal share), exact since every deal is
--   equally likely under a fair shuffle. With two seats, the same counted up to swapping the
--   players (class_numerator over class_denominator): a deal and the deal with the seats' piles
--   swapped are one class, counted once on its first deal (the lower deal_index). Rule sets of
--   seeded or explicit deals have no rows.
WITH enumerated AS (
    SELECT variant, rules_id, players,
           CASE WHEN outcome = 'win' THEN 'seat ' || CAST(winner AS VARCHAR) || ' wins' ELSE outcome END AS result,
           deal_index <= swapped_index AS first_of_class
    FROM games
    WHERE deal = 'all'
),
totals AS (
    SELECT variant, rules_id, count(*) AS denominator,
           CASE WHEN any_value(players) = 2 THEN count(*) FILTER (WHERE first_of_class) END AS class_denominator
    FROM enumerated
    GROUP BY variant, rules_id
)
SELECT e.variant, e.rules_id, e.result,
       count(*) AS numerator,
       t.denominator,
       count(*) / t.denominator AS share,
       CASE WHEN t.class_denominator IS NOT NULL THEN count(*) FILTER (WHERE e.first_of_class) END AS class_numerator,
       t.class_denominator
FROM enumerated e JOIN totals t USING (variant, rules_id)
GROUP BY e.variant, e.rules_id, e.result, t.denominator, t.class_denominator
ORDER BY e.variant, e.rules_id, e.result;
