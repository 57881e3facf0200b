-- answers: Which games last longest? The `limit` longest games of each variant and rule set
--   (ranked within the rule set, ties broken by game_id), with outcome, winner and wars;
--   ranked per rule set so that a rule set with a high battle cap does not hide the others.
-- param: limit INTEGER = 20 -- how many games to list per rule set
SELECT
    row_number() OVER (PARTITION BY variant, rules_id ORDER BY battles DESC, game_id) AS rank,
    game_id,
    variant,
    rules_id,
    battles,
    outcome,
    winner,
    wars
FROM games
QUALIFY rank <= CASE WHEN $limit >= 0 THEN $limit
                     ELSE error('parameter limit must be at least 0, got ' || CAST($limit AS VARCHAR))
                END
ORDER BY variant, rules_id, rank;
