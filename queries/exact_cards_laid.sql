-- answers: Over every deal of the deck, how many cards do the games that end lay on the table?
--   With `--all-deals`, per variant and rule set that plays every deal, and per number of cards
--   laid (games.cards_laid: played face up, put down, forfeited; the literature's "cards turned"
--   counts them a player, cards_laid / players) in the games that end (a win or a draw): how
--   many deals lay that many, as a fraction of the deals that end (numerator over denominator)
--   and a decimal share, with the exact mean of the games that end (mean_numerator /
--   denominator, and as a decimal) on every row.
WITH grouped AS (
    SELECT variant, rules_id, cards_laid, CAST(sum(games) AS BIGINT) AS numerator
    FROM counts
    WHERE outcome IN ('win', 'draw')
    GROUP BY variant, rules_id, cards_laid
),
totalled AS (
    SELECT *,
           CAST(sum(numerator) OVER (PARTITION BY variant, rules_id) AS BIGINT) AS denominator,
           CAST(sum(numerator * cards_laid) OVER (PARTITION BY variant, rules_id) AS BIGINT) AS mean_numerator
    FROM grouped
)
SELECT variant, rules_id, cards_laid,
       numerator,
       denominator,
       numerator / denominator AS share,
       mean_numerator,
       mean_numerator / denominator AS mean_cards_laid
FROM totalled
ORDER BY variant, rules_id, cards_laid;
