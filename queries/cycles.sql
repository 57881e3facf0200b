-- answers: Which distinct cycles do the games that never end fall into, and how many in each? Per
--   rule set (by name, `rule_set`: a tournament's seatings apart), one row a cycle
--   (games.cycle_key: the same for every game that loops through the same positions by ranks,
--   whichever position it entered by) and length (games.cycle_length): how many games fall into
--   it, as a fraction of the rule set's games (numerator over denominator) and a share, exact
--   (every_deal true) for a rule set that plays every deal of its deck (`--all-deals` with no
--   --games), else a share of the games played; and the first of them (replay it with war
--   replay DATASET GAME). Most first. (A dataset written before schema version 5 has no cycle
--   keys: it lists none.)
-- exact: shares of every deal
-- param: limit INTEGER = 100 -- how many cycles to list per rule set (the most games first)
WITH totals AS (
    SELECT rule_set, count(*) AS denominator,
           bool_and(game_id // 1000000000 IN (SELECT ordinal FROM rules WHERE every_deal)) AS every_deal
    FROM games GROUP BY rule_set
),
cycles AS (
    SELECT rule_set, variant, rules_id, cycle_key, cycle_length AS period, count(*) AS numerator,
           min(game_id) AS first_game
    FROM games
    WHERE outcome = 'cycle' AND cycle_key IS NOT NULL  -- datasets of schema version 4 have no keys
    GROUP BY rule_set, variant, rules_id, cycle_key, cycle_length
)
SELECT c.rule_set, c.variant, c.rules_id,
       row_number() OVER (PARTITION BY c.rule_set ORDER BY c.numerator DESC, c.first_game) AS rank,
       c.cycle_key, c.period, c.numerator, t.denominator, c.numerator / t.denominator AS share,
       t.every_deal, c.first_game
FROM cycles c JOIN totals t USING (rule_set)
QUALIFY rank <= CASE WHEN $limit >= 0 THEN $limit
                     ELSE error('parameter limit must be at least 0, got ' || CAST($limit AS VARCHAR))
                END
ORDER BY c.rule_set, rank;
