-- answers: Over every deal of the deck, exactly how often does each seat win, draw or cycle? Per
--   rule set (by name, `rule_set`) that plays every deal of its deck (`war generate --all-deals`
--   with no --games: the rules view's every_deal): each result as a fraction of the deals
--   (numerator over denominator, and as a decimal share), exact since every deal is equally
--   likely under a fair shuffle: `decided` (some seat wins), each `seat N wins`, `draw`,
--   `capped` and `cycle`. With two seats, the classes too: a deal and the deal with the seats'
--   piles swapped are one class, counted once, on its first deal (the lower deal_index: the
--   games view's first_of_class), so classes over class_denominator says how many classes are
--   decided, drawn, capped or cycle. The two deals of a class may be won by different seats, so
--   classes count no seat's wins (null on the `seat N wins` rows). A rule set that plays only
--   some of its deals (--all-deals --games N) or deals from seeds or a file has no rows: `war
--   query` says which rule sets play every deal, and how to play every deal of one.
-- exact: every deal
-- (One pass over the games, then sums over the few grouped rows: a CTE of games read twice would
-- be held whole, 479 million rows of a 12-card deck.)
WITH grouped AS (
    SELECT rule_set, variant, rules_id, any_value(players) AS players, outcome, winner,
           count(*) AS numerator,
           count(*) FILTER (WHERE first_of_class) AS classes
    FROM games
    WHERE deal = 'all' AND game_id // 1000000000 IN (SELECT ordinal FROM rules WHERE every_deal)
    GROUP BY rule_set, variant, rules_id, outcome, winner
),
results AS (
    SELECT rule_set, variant, rules_id, any_value(players) AS players,
           CASE WHEN outcome = 'win' THEN 'decided' ELSE CAST(outcome AS VARCHAR) END AS result,
           CAST(NULL AS INTEGER) AS seat,
           CAST(sum(numerator) AS BIGINT) AS numerator, CAST(sum(classes) AS BIGINT) AS classes
    FROM grouped
    GROUP BY ALL
    UNION ALL
    SELECT rule_set, variant, rules_id, players, 'seat ' || CAST(winner AS VARCHAR) || ' wins', winner,
           numerator, NULL
    FROM grouped
    WHERE outcome = 'win'
),
totalled AS (
    SELECT *,
           CAST(sum(numerator) FILTER (WHERE seat IS NULL) OVER (PARTITION BY rule_set) AS BIGINT) AS denominator,
           CAST(sum(classes) FILTER (WHERE seat IS NULL) OVER (PARTITION BY rule_set) AS BIGINT) AS class_denominator
    FROM results
)
SELECT rule_set, variant, rules_id, result,
       numerator,
       denominator,
       numerator / denominator AS share,
       CASE WHEN players = 2 THEN classes END AS classes,
       CASE WHEN players = 2 AND seat IS NULL THEN class_denominator END AS class_denominator
FROM totalled
ORDER BY rule_set,
         CASE result WHEN 'decided' THEN 0 WHEN 'draw' THEN 2 WHEN 'capped' THEN 3 WHEN 'cycle' THEN 4 ELSE 1 END,
         seat;
