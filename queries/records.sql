-- answers: Which deals give the longest games that end (the records)? Per variant and rule set
--   that plays every deal (`--all-deals`), the `limit` longest games that end in a win or a
--   draw (ties broken by deal_index), with their deal: deal_index and each seat's pile, card
--   codes top first (card_label turns a code into a label).
-- param: limit INTEGER = 10 -- how many records to list per rule set
WITH ranked AS (
    SELECT
        row_number() OVER (PARTITION BY variant, rules_id ORDER BY battles DESC, deal_index) AS rank,
        variant, rules_id, game_id, deal_index, battles, outcome, winner
    FROM games
    WHERE deal = 'all' AND outcome IN ('win', 'draw')
    QUALIFY rank <= CASE WHEN $limit >= 0 THEN $limit
                         ELSE error('parameter limit must be at least 0, got ' || CAST($limit AS VARCHAR))
                    END
)
-- the deals of the records alone, not of every game (war_deal_piles is what the view's piles calls)
SELECT *, war_deal_piles(game_id) AS piles
FROM ranked
ORDER BY variant, rules_id, rank;
