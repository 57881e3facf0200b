-- answers: Which distinct cycles do the games that never end fall into, and how many in each?
--   Per variant and rule set, one row a cycle (games.cycle_key: the same for every
--   game that loops through the same positions by ranks, whichever position it entered by) and
--   length (games.cycle_length): how many games fall into it, as a fraction of the rule set's
--   games (numerator over denominator: exact over every deal with `--all-deals`) and a share,
--   and the first of them (replay it with war replay DATASET GAME). Most first. (A dataset
--   written before schema version 5 has no cycle keys: it lists none.)
-- param: limit INTEGER = 100 -- how many cycles to list per rule set (the most games first)
WITH totals AS (
    SELECT variant, rules_id, count(*) AS denominator FROM games GROUP BY variant, rules_id
),
cycles AS (
    SELECT variant, rules_id, cycle_key, cycle_length AS period, count(*) AS numerator,
           min(game_id) AS first_game
    FROM games
    WHERE outcome = 'cycle' AND cycle_key IS NOT NULL  -- datasets of schema version 4 have no keys
    GROUP BY variant, rules_id, cycle_key, cycle_length
)
SELECT c.variant, c.rules_id,
       row_number() OVER (PARTITION BY c.variant, c.rules_id ORDER BY c.numerator DESC, c.first_game) AS rank,
       c.cycle_key, c.period, c.numerator, t.denominator, c.numerator / t.denominator AS share, c.first_game
FROM cycles c JOIN totals t USING (variant, rules_id)
QUALIFY rank <= CASE WHEN $limit >= 0 THEN $limit
                     ELSE error('parameter limit must be at least 0, got ' || CAST($limit AS VARCHAR))
                END
ORDER BY c.variant, c.rules_id, rank;
