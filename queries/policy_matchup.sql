-- answers: Does policy A beat policy B, with the seats swapped to be fair? For every unordered
--   pair of different policies {A, B} (canonical policy strings, A the smaller) that met in
--   2-player games of the same rules (rules_name, the name of the rules whatever the seating),
--   pooling the games where A sat in seat 0 (games_a_seat0: the rule set `A vs B`) and those
--   where B did (games_b_seat0: `B vs A`): games, decided games (outcome
--   win; draws, capped and cycle games have no winner), wins of A, wins of B, A's share of the
--   decided games, and its Wilson score interval (95% for z = 1.96: never of zero width, so a
--   side that won every decided game reads as under 100%, not as exactly 100%; null when
--   nothing was decided). An
--   interval wholly above 0.5 says A beats B, wholly below that B beats A. A fair comparison
--   wants both seatings equally often and paired seeds, as a tournament (every ordered pair,
--   the same games) gives. Games where both seats play the same policy are left out.
-- param: z DOUBLE = 1.96 > 0 < 40 -- normal quantile of the interval (1.96 for 95%, 2.576 for 99%)
WITH checked AS (
    SELECT CASE WHEN $z > 0 THEN $z
                ELSE error('parameter z must be positive, got ' || CAST($z AS VARCHAR))
           END AS z
),
pairs AS (
    SELECT r.rules_name, g.variant, g.rules_id, g.outcome, g.winner,
           least(policies[1], policies[2])    AS policy_a,
           greatest(policies[1], policies[2]) AS policy_b,
           policies[1]                        AS seat0_policy
    FROM games g
    JOIN (SELECT DISTINCT rules_id, rules_name FROM rules) r USING (rules_id)
    WHERE players = 2 AND len(policies) = 2 AND policies[1] <> policies[2]
),
counts AS (
    SELECT
        rules_name, variant, rules_id, policy_a, policy_b,
        count(*)                                          AS games,
        count(*) FILTER (WHERE seat0_policy = policy_a)   AS games_a_seat0,
        count(*) FILTER (WHERE seat0_policy = policy_b)   AS games_b_seat0,
        count(*) FILTER (WHERE outcome = 'win' AND winner IS NOT NULL) AS decided_games,
        count(*) FILTER (WHERE outcome = 'win'
                         AND winner = CASE WHEN seat0_policy = policy_a THEN 0 ELSE 1 END) AS wins_a,
        count(*) FILTER (WHERE outcome = 'win'
                         AND winner = CASE WHEN seat0_policy = policy_b THEN 0 ELSE 1 END) AS wins_b
    FROM pairs
    GROUP BY rules_name, variant, rules_id, policy_a, policy_b
),
shares AS (
    SELECT *, wins_a / nullif(decided_games, 0)::DOUBLE AS share_a FROM counts
)
SELECT
    s.rules_name,
    s.variant,
    s.rules_id,
    s.policy_a,
    s.policy_b,
    s.games,
    s.games_a_seat0,
    s.games_b_seat0,
    s.decided_games,
    s.wins_a,
    s.wins_b,
    s.share_a,
    wilson_low(s.share_a, s.decided_games, c.z)  AS ci_low,
    wilson_high(s.share_a, s.decided_games, c.z) AS ci_high
FROM shares s
CROSS JOIN checked c
ORDER BY rule_set_order(s.rules_name), s.policy_a, s.policy_b;
