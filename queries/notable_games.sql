-- answers: Which games are worth watching? Per rule set (by name, `rule_set`: a tournament's
--   seatings apart), up to `limit` games of each kind: `longest` (the games that end, a win or
--   a draw, with the most battles), `cycle` (games that ended on a repeated position, longest
--   cycle first), `capped` (games stopped at the battle cap, most wars first) and `deepest_war`
--   (the deepest war, then most battles); ties broken by game_id. Each with its rank within its
--   kind, game_id, seats' policies, battles, outcome, winner, wars, deepest war and cycle length.
--   A game can be listed under several kinds.
-- param: limit INTEGER = 3 >= 0 -- how many games of each kind per rule set
WITH checked AS (
    SELECT CASE WHEN $limit >= 0 THEN $limit
                ELSE error('parameter limit must be at least 0, got ' || CAST($limit AS VARCHAR))
           END AS n
),
picks AS (   -- the top games of each kind: max_by keeps the n largest keys, ties to the lower game_id
    SELECT rule_set,
           max_by(game_id, (battles, -game_id), greatest($limit, 1))
               FILTER (WHERE outcome IN ('win', 'draw'))                               AS longest,
           max_by(game_id, (cycle_length, battles, -game_id), greatest($limit, 1))
               FILTER (WHERE outcome = 'cycle')                                     AS cycle,
           max_by(game_id, (wars, -game_id), greatest($limit, 1))
               FILTER (WHERE outcome = 'capped')                                    AS capped,
           max_by(game_id, (max_war_depth, battles, -game_id), greatest($limit, 1))
               FILTER (WHERE max_war_depth > 0)                                     AS deepest_war
    FROM games
    GROUP BY rule_set
),
kinds AS (
    SELECT kind, kind_order, unnest(ids) AS game_id, generate_subscripts(ids, 1) AS rank
    FROM (SELECT 'longest' AS kind, 1 AS kind_order, longest AS ids FROM picks
          UNION ALL SELECT 'cycle', 2, cycle FROM picks
          UNION ALL SELECT 'capped', 3, capped FROM picks
          UNION ALL SELECT 'deepest_war', 4, deepest_war FROM picks)
)
SELECT g.rule_set, g.variant, g.rules_id, k.kind, k.rank, g.game_id, g.policies, g.battles, g.outcome, g.winner,
       g.wars, g.max_war_depth, g.cycle_length
FROM kinds k
JOIN games g USING (game_id)
CROSS JOIN checked c
WHERE k.rank <= c.n
ORDER BY rule_set_order(g.rule_set), k.kind_order, k.rank;
