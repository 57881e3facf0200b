-- answers: Does a seat win more often? Per variant, rule set and number of players, each
--   seat's wins, the rule set's games and decided games (outcome win), and the seat's share of
--   the decided games and of all games (draws, capped and cycle games have no winner).
WITH per_rule_set AS (
    SELECT variant, rules_id, players,
           count(*)                                AS games,
           count(*) FILTER (WHERE outcome = 'win') AS decided
    FROM games
    GROUP BY variant, rules_id, players
),
seats AS (
    SELECT p.*, s.seat
    FROM per_rule_set p,
         LATERAL (SELECT unnest(range(CAST(p.players AS BIGINT))) AS seat) s
),
wins AS (
    SELECT variant, rules_id, players, winner AS seat, count(*) AS wins
    FROM games
    WHERE outcome = 'win' AND winner IS NOT NULL
    GROUP BY variant, rules_id, players, winner
)
SELECT
    s.variant,
    s.rules_id,
    s.players,
    s.seat,
    coalesce(w.wins, 0)                                  AS wins,
    s.decided                                            AS decided_games,
    s.games,
    coalesce(w.wins, 0) / nullif(s.decided, 0)::DOUBLE   AS share_of_decided,
    coalesce(w.wins, 0) / s.games::DOUBLE                AS share_of_games
FROM seats s
LEFT JOIN wins w
       ON w.variant = s.variant AND w.rules_id = s.rules_id
      AND w.players = s.players AND w.seat = s.seat
ORDER BY s.variant, s.rules_id, s.players, s.seat;
