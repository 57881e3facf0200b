-- answers: Which games last longest? The `limit` longest games of each rule set (by name,
--   `rule_set`: a tournament's seatings apart; ranked within it, ties broken by game_id), with
--   outcome, winner and wars; ranked per rule set so that a rule set with a high battle cap does
--   not hide the others. Every outcome counts: a cycle's battles are where its loop was found, a
--   capped game's the cap (game_length gives the lengths of the games that end).
-- param: limit INTEGER = 20 >= 0 -- how many games to list per rule set
SELECT
    rule_set,
    row_number() OVER (PARTITION BY rule_set ORDER BY battles DESC, game_id) AS rank,
    game_id,
    variant,
    rules_id,
    rule_set_policies(rule_set) AS policies,
    battles,
    outcome,
    winner,
    wars
FROM games
QUALIFY rank <= CASE WHEN $limit >= 0 THEN $limit
                     ELSE error('parameter limit must be at least 0, got ' || CAST($limit AS VARCHAR))
                END
ORDER BY rule_set_order(rule_set), rank;
