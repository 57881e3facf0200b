-- answers: Over every deal of the deck, how many cards do the games that end lay on the table?
--   With `--all-deals`, per variant and rule set that plays every deal, and per number of cards
--   laid (games.cards_laid: played face up, put down, forfeited) in the games that end (a win
--   or a draw): how many deals lay that many, as a fraction of the deals that end (numerator
--   over denominator) and a decimal share, with the exact mean of the games that end
--   (mean_numerator / denominator, and as a decimal) on every row.
WITH ended AS (
    SELECT variant, rules_id, cards_laid
    FROM games
    WHERE deal = 'all' AND outcome IN ('win', 'draw')
),
totals AS (
    SELECT variant, rules_id, count(*) AS denominator, CAST(sum(cards_laid) AS BIGINT) AS mean_numerator
    FROM ended
    GROUP BY variant, rules_id
)
SELECT e.variant, e.rules_id, e.cards_laid,
       count(*) AS numerator,
       t.denominator,
       count(*) / t.denominator AS share,
       t.mean_numerator,
       t.mean_numerator / t.denominator AS mean_cards_laid
FROM ended e JOIN totals t USING (variant, rules_id)
GROUP BY e.variant, e.rules_id, e.cards_laid, t.denominator, t.mean_numerator
ORDER BY e.variant, e.rules_id, e.cards_laid;
