-- answers: Over every deal of the deck, exactly how often does each seat win, draw or cycle? Per
--   rule set (by name, `rule_set`) that plays every deal of its deck (`war generate --all-deals`
--   with no --games, or counted whole with `--log counts`: the counts view's exact, where also the deal alone decides each
--   game: a fixed pickup and no policy that draws): each
--   result as a fraction of the deals (numerator over denominator, and as a decimal share),
--   exact since every deal is equally likely under a fair shuffle: `decided` (some seat wins),
--   each `seat N wins`, `draw`, `capped` and `cycle`. With two seats, the classes too: a deal and
--   the deal with the seats' piles swapped are one class, counted once, on its first deal (the
--   lower deal number: the games view's first_of_class), so classes over class_denominator says
--   how many classes are decided, drawn, capped or cycle. The two deals of a class may be won by
--   different seats, so classes count no seat's wins (null on the `seat N wins` rows). A rule set
--   that plays only some of its deals (--all-deals --games N, or a slice of its counts) or deals
--   from seeds or a file has no rows, nor has one whose games draw (pickup=shuffled, the default,
--   or a policy that draws: one game a deal is then a sample, not exact; war solve gives the exact
--   game under shuffled pickup for 2 seats): `war query` says which rule sets play every deal,
--   and how to play every deal of one.
-- exact: every deal
-- (From the `counts` view: a rule set's games counted by kind, one pass over a games table.)
WITH grouped AS (
    SELECT rule_set, variant, rules_id, outcome, winner,
           CAST(sum(games) AS BIGINT) AS numerator,
           CAST(sum(games) FILTER (WHERE first_of_class) AS BIGINT) AS classes
    FROM counts
    WHERE exact
    GROUP BY rule_set, variant, rules_id, outcome, winner
),
results AS (
    SELECT rule_set, variant, rules_id,
           CASE WHEN outcome = 'win' THEN 'decided' ELSE CAST(outcome AS VARCHAR) END AS result,
           CAST(NULL AS INTEGER) AS seat,
           CAST(sum(numerator) AS BIGINT) AS numerator, CAST(sum(classes) AS BIGINT) AS classes
    FROM grouped
    GROUP BY ALL
    UNION ALL
    SELECT rule_set, variant, rules_id, 'seat ' || CAST(winner AS VARCHAR) || ' wins', winner, numerator, NULL
    FROM grouped
    WHERE outcome = 'win'
),
totalled AS (
    SELECT r.*, s.players,
           CAST(sum(r.numerator) FILTER (WHERE r.seat IS NULL) OVER (PARTITION BY r.rule_set) AS BIGINT) AS denominator,
           CAST(sum(r.classes) FILTER (WHERE r.seat IS NULL) OVER (PARTITION BY r.rule_set) AS BIGINT) AS class_denominator
    FROM results r JOIN (SELECT rule_set, any_value(players) AS players FROM rules GROUP BY rule_set) s USING (rule_set)
)
SELECT rule_set, variant, rules_id, rule_set_policies(rule_set) AS policies, result,
       numerator,
       denominator,
       numerator / denominator AS share,
       CASE WHEN players = 2 AND seat IS NULL THEN coalesce(classes, 0) END AS classes,
       CASE WHEN players = 2 AND seat IS NULL THEN class_denominator END AS class_denominator
FROM totalled
ORDER BY rule_set_order(rule_set),
         CASE result WHEN 'decided' THEN 0 WHEN 'draw' THEN 2 WHEN 'capped' THEN 3 WHEN 'cycle' THEN 4 ELSE 1 END,
         seat;
