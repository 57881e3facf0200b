-- answers: Over every deal of the deck, how long are the games that end? Per rule set (by name,
--   `rule_set`) that plays every deal of its deck (`--all-deals` with no --games, or counted
--   whole: the counts view's exact, where also the deal alone decides each
--   game: a fixed pickup and no policy that draws), and per number of battles of the games that end (a win
--   or a draw): how many deals end after that many battles, as a fraction of the deals that end
--   (numerator over denominator) and a decimal share, with the exact mean length of the games
--   that end (mean_numerator / denominator, and as a decimal) on every row. Cycles and capped
--   games never end: exact_outcomes counts them.
-- exact: every deal
WITH grouped AS (
    SELECT rule_set, variant, rules_id, battles, CAST(sum(games) AS BIGINT) AS numerator
    FROM counts
    WHERE exact AND outcome IN ('win', 'draw')
    GROUP BY rule_set, variant, rules_id, battles
),
totalled AS (
    SELECT *,
           CAST(sum(numerator) OVER (PARTITION BY rule_set) AS BIGINT) AS denominator,
           CAST(sum(numerator * battles) OVER (PARTITION BY rule_set) AS BIGINT) AS mean_numerator
    FROM grouped
)
SELECT rule_set, variant, rules_id, rule_set_policies(rule_set) AS policies, battles,
       numerator,
       denominator,
       numerator / denominator AS share,
       mean_numerator,
       mean_numerator / denominator AS mean_battles
FROM totalled
ORDER BY rule_set_order(rule_set), battles;
