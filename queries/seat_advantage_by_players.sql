-- answers: Does a seat's position pay, and does that change with the number of players? Per
--   rule set (by name, `rule_set`: a tournament's seatings apart), number of players and seat: the seat's wins, the games and the decided
--   games (outcome win; draws, capped and cycle games have no winner), the seat's share of the
--   decided games, and its advantage = share - 1/players (0 for a fair seat, positive when the
--   seat wins more than its fair part; the advantages of a rule set's seats sum to 0).
--   Shares are fractions (0..1); both are null when no game of the rule set was decided.
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
    coalesce(w.wins, 0)                                         AS wins,
    s.games,
    s.decided                                                   AS decided_games,
    coalesce(w.wins, 0) / nullif(s.decided, 0)::DOUBLE          AS share,
    coalesce(w.wins, 0) / nullif(s.decided, 0)::DOUBLE - 1.0 / s.players AS advantage
FROM seats s
LEFT JOIN wins w
       ON w.rule_set = s.rule_set AND w.seat = s.seat
ORDER BY s.players, rule_set_order(s.rule_set), s.seat;
