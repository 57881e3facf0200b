-- answers: Over every deal of the deck, how many cards do the games that end lay on the table?
--   Per rule set (by name, `rule_set`) that plays every deal of its deck (`--all-deals` with no
--   --games, or counted whole: the counts view's exact, where also the deal alone decides each
--   game: a fixed pickup and no policy that draws), and per number of cards laid
--   (games.cards_laid: played face up, put down, forfeited; the literature's "cards turned"
--   counts them a player, cards_laid / players) in the games that end (a win or a draw): how many
--   deals lay that many, as a fraction of the deals that end (numerator over denominator) and a
--   decimal share, with the exact mean of the games that end (mean_numerator / denominator, and
--   as a decimal) on every row.
-- exact: every deal
WITH grouped AS (
    SELECT rule_set, variant, rules_id, cards_laid, CAST(sum(games) AS BIGINT) AS numerator
    FROM counts
    WHERE exact AND outcome IN ('win', 'draw')
    GROUP BY rule_set, variant, rules_id, cards_laid
),
totalled AS (
    SELECT *,
           CAST(sum(numerator) OVER (PARTITION BY rule_set) AS BIGINT) AS denominator,
           CAST(sum(numerator * cards_laid) OVER (PARTITION BY rule_set) AS BIGINT) AS mean_numerator
    FROM grouped
)
SELECT rule_set, variant, rules_id, rule_set_policies(rule_set) AS policies, cards_laid,
       numerator,
       denominator,
       numerator / denominator AS share,
       mean_numerator,
       mean_numerator / denominator AS mean_cards_laid
FROM totalled
ORDER BY rule_set_order(rule_set), cards_laid;
