-- answers: Which deals give the longest games that end (the records)? Per rule set (by name,
--   `rule_set`) that plays every deal of its deck (`--all-deals` with no --games: the rules
--   view's every_deal), the `limit` longest games that end in a win or a draw (ties broken by
--   deal_index), with their deal: deal_index and each seat's pile, card codes top first
--   (card_label turns a code into a label).
-- exact: every deal
-- param: limit INTEGER = 10 -- how many records to list per rule set
-- (The limit-th longest length of each rule set first, then a rank of only the games that long
-- or longer: a window over every game would sort them all, 479 million of a 12-card deck.)
WITH every AS (
    SELECT ordinal FROM rules WHERE every_deal
),
thresholds AS (
    SELECT rule_set, list_min(max(battles, greatest($limit, 1))) AS shortest
    FROM games
    WHERE deal = 'all' AND game_id // 1000000000 IN (SELECT ordinal FROM every) AND outcome IN ('win', 'draw')
    GROUP BY rule_set
),
ranked AS (
    SELECT
        g.rule_set,
        row_number() OVER (PARTITION BY g.rule_set ORDER BY g.battles DESC, g.deal_index) AS rank,
        g.variant, g.rules_id, g.game_id, g.deal_index, g.battles, g.outcome, g.winner
    FROM games g JOIN thresholds t USING (rule_set)
    WHERE g.deal = 'all' AND g.game_id // 1000000000 IN (SELECT ordinal FROM every)
      AND g.outcome IN ('win', 'draw') AND g.battles >= t.shortest
    QUALIFY rank <= CASE WHEN $limit >= 0 THEN $limit
                         ELSE error('parameter limit must be at least 0, got ' || CAST($limit AS VARCHAR))
                    END
)
-- the deals of the records alone, not of every game (war_deal_piles is what the view's piles calls)
SELECT *, war_deal_piles(game_id) AS piles
FROM ranked
ORDER BY rule_set, rank;
