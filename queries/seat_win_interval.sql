-- answers: Does a seat win more than its fair share, beyond chance? Per rule set (by name,
--   `rule_set`: a tournament's seatings apart), number of players and seat: the seat's wins, the decided games (outcome win; draws, capped and cycle
--   games have no winner), its share of them, the 95% Wilson score interval of that share
--   (ci_low, ci_high; z sets the level), and the fair share 1 / players. A seat whose interval
--   lies wholly above the fair share wins more than chance allows. Each seating of a
--   tournament is its own rule set (policy_matchup pools a pair's two seatings). Shares and intervals are null when no game of the
--   rule set was decided.
-- param: z DOUBLE = 1.96 > 0 < 40 -- normal quantile of the interval (1.96 for 95%, 2.576 for 99%)
WITH checked AS (
    SELECT CASE WHEN $z > 0 THEN $z
                ELSE error('parameter z must be positive, got ' || CAST($z AS VARCHAR))
           END AS z
),
per_rule_set AS (
    SELECT rule_set, variant, rules_id, players,
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
),
shares AS (
    SELECT s.rule_set, s.variant, s.rules_id, s.players, s.seat, coalesce(w.wins, 0) AS wins,
           s.decided AS n, coalesce(w.wins, 0) / nullif(s.decided, 0)::DOUBLE AS p
    FROM seats s
    LEFT JOIN wins w
           ON w.rule_set = s.rule_set AND w.seat = s.seat
)
SELECT
    s.rule_set,
    s.variant,
    s.rules_id,
    rule_set_policies(s.rule_set) AS policies,
    s.players,
    s.seat,
    s.wins,
    s.n                                                                   AS decided_games,
    s.p                                                                   AS share,
    wilson_low(s.p, s.n, c.z)                                             AS ci_low,
    wilson_high(s.p, s.n, c.z)                                            AS ci_high,
    1.0 / s.players                                                       AS fair_share
FROM shares s
CROSS JOIN checked c
ORDER BY rule_set_order(s.rule_set), s.players, s.seat;
