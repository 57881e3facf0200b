-- answers: Does a seat win more often? Per rule set (by name, `rule_set`: a tournament's
--   seatings apart) and number of players, each seat's wins, the rule set's games and decided games (outcome win), and the seat's share of
--   the decided games and of all games (draws, capped and cycle games have no winner).
WITH per_rule_set AS (
    SELECT rule_set, variant, rules_id, players,
           count(*)                                AS games,
           count(*) FILTER (WHERE outcome = 'win') AS decided
    FROM games
    GROUP BY rule_set, variant, rules_id, players
),
seats AS (
    SELECT p.*, s.seat
    FROM per_rule_set p,
         LATERAL (SELECT unnest(range(CAST(p.players AS BIGINT))) AS seat) s
),
wins AS (
    SELECT rule_set, winner AS seat, count(*) AS wins
    FROM games
    WHERE outcome = 'win' AND winner IS NOT NULL
    GROUP BY rule_set, winner
)
SELECT
    s.rule_set,
    s.variant,
    s.rules_id,
    rule_set_policies(s.rule_set) AS policies,
    s.players,
    s.seat,
    coalesce(w.wins, 0)                                  AS wins,
    s.decided                                            AS decided_games,
    s.games,
    coalesce(w.wins, 0) / nullif(s.decided, 0)::DOUBLE   AS share_of_decided,
    coalesce(w.wins, 0) / s.games::DOUBLE                AS share_of_games
FROM seats s
LEFT JOIN wins w
       ON w.rule_set = s.rule_set AND w.seat = s.seat
ORDER BY rule_set_order(s.rule_set), s.players, s.seat;
