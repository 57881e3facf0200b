-- answers: Which distinct cycles do the games that never end fall into, and how many in each? Per
--   rule set (by name, `rule_set`: a tournament's seatings apart), one row a cycle
--   (games.cycle_key: the same for every game that loops through the same positions by ranks,
--   whichever position it entered by) and its period (games.cycle_length): how many games fall
--   into it, as a fraction of the rule set's games (numerator over denominator) and a share,
--   exact (every_deal true) for a rule set that plays every deal of its deck (`--all-deals` with
--   no --games, or counted whole) and whose deal alone decides each game (the counts view's
--   exact), else a share of the games played (or counted); and the first
--   of them: first_game (replay it with war replay DATASET GAME), and first_deal, its deal, for
--   a rule set of every deal (whose counts alone may be stored, `--log counts`: no game then).
--   Most first. (A dataset written before schema version 5 has no cycle keys: it lists none.)
-- exact: shares of every deal
-- param: limit INTEGER = 100 >= 0 -- how many cycles to list per rule set (the most games first)
WITH sampled AS (  -- games of seeded or explicit deals, a row each
    SELECT rule_set, variant, rules_id, cycle_key, cycle_length AS period, count(*) AS numerator,
           min(game_id) AS first_game, CAST(NULL AS BIGINT) AS first_deal
    FROM games
    WHERE outcome = 'cycle' AND cycle_key IS NOT NULL AND deal <> 'all'  -- schema version 4 has no keys
      AND game_id // 1000000000 NOT IN (SELECT ordinal FROM rules WHERE log = 'counts')  -- counted ones' kept games
    GROUP BY rule_set, variant, rules_id, cycle_key, cycle_length
),
counted AS (  -- every deal (or a part of them), counted by kind
    SELECT c.rule_set, c.variant, c.rules_id, c.cycle_key, c.cycle_length AS period,
           CAST(sum(c.games) AS BIGINT) AS numerator,
           CASE WHEN any_value(s.log) <> 'counts' THEN min(c.ordinal) * 1000000000 + min(c.first_deal) END AS first_game,
           min(c.first_deal) AS first_deal
    FROM counts c JOIN rules s ON s.ordinal = c.ordinal
    WHERE c.outcome = 'cycle' AND c.cycle_key IS NOT NULL
    GROUP BY c.rule_set, c.variant, c.rules_id, c.cycle_key, c.cycle_length
),
totals AS (
    SELECT rule_set, count(*) AS denominator, false AS every_deal
    FROM games WHERE deal <> 'all' AND game_id // 1000000000 NOT IN (SELECT ordinal FROM rules WHERE log = 'counts')
    GROUP BY rule_set
    UNION ALL
    SELECT c.rule_set, CAST(sum(c.games) AS BIGINT), bool_and(c.exact)
    FROM counts c JOIN rules s ON s.ordinal = c.ordinal
    GROUP BY c.rule_set
),
cycles AS (SELECT * FROM sampled UNION ALL SELECT * FROM counted)
SELECT c.rule_set, c.variant, c.rules_id, rule_set_policies(c.rule_set) AS policies,
       row_number() OVER (PARTITION BY c.rule_set ORDER BY c.numerator DESC, c.first_game, c.first_deal) AS rank,
       c.cycle_key, c.period, c.numerator, t.denominator, c.numerator / t.denominator AS share,
       t.every_deal, c.first_game, c.first_deal
FROM cycles c JOIN totals t USING (rule_set)
QUALIFY rank <= CASE WHEN $limit >= 0 THEN $limit
                     ELSE error('parameter limit must be at least 0, got ' || CAST($limit AS VARCHAR))
                END
ORDER BY rule_set_order(c.rule_set), rank;
