-- answers: Over every deal of the deck, how long are the games that end? With `--all-deals`, per
--   variant and rule set that plays every deal, and per number of battles of the games that end
--   (a win or a draw): how many deals end after that many battles, as a fraction of the deals
--   that end (numerator over denominator) and a decimal share, with the exact mean length of the
--   games that end (mean_numerator / denominator, and as a decimal) on every row.
WITH grouped AS (
    SELECT variant, rules_id, battles, CAST(sum(games) AS BIGINT) AS numerator
    FROM counts
    WHERE outcome IN ('win', 'draw')
    GROUP BY variant, rules_id, battles
),
totalled AS (
    SELECT *,
           CAST(sum(numerator) OVER (PARTITION BY variant, rules_id) AS BIGINT) AS denominator,
           CAST(sum(numerator * battles) OVER (PARTITION BY variant, rules_id) AS BIGINT) AS mean_numerator
    FROM grouped
)
SELECT variant, rules_id, battles,
       numerator,
       denominator,
       numerator / denominator AS share,
       mean_numerator,
       mean_numerator / denominator AS mean_battles
FROM totalled
ORDER BY variant, rules_id, battles;
