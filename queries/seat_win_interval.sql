-- answers: Does a seat win more than its fair share, beyond chance? Per variant, rule set, number
--   of players and seat: the seat's wins, the decided games (outcome win; draws, capped and cycle
--   games have no winner), its share of them, the 95% Wilson score interval of that share
--   (ci_low, ci_high; z sets the level), and the fair share 1 / players. A seat whose interval
--   lies wholly above the fair share wins more than chance allows. Seatings of every policy
--   are pooled; policy_win_rate splits them. Shares and intervals are null when no game of the
--   rule set was decided.
-- param: z DOUBLE = 1.96 -- normal quantile of the interval (1.96 for 95%, 2.576 for 99%)
WITH checked AS (
    SELECT CASE WHEN $z > 0 THEN $z
                ELSE error('parameter z must be positive, got ' || CAST($z AS VARCHAR))
           END AS z
),
per_rule_set AS (
    SELECT variant, rules_id, players,
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
),
shares AS (
    SELECT s.variant, s.rules_id, s.players, s.seat, coalesce(w.wins, 0) AS wins,
           s.decided AS n, coalesce(w.wins, 0) / nullif(s.decided, 0)::DOUBLE AS p
    FROM seats s
    LEFT JOIN wins w
           ON w.variant = s.variant AND w.rules_id = s.rules_id
          AND w.players = s.players AND w.seat = s.seat
)
SELECT
    s.variant,
    s.rules_id,
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
ORDER BY s.variant, s.rules_id, s.players, s.seat;
