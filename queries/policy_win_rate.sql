-- answers: Which policy wins, by policy pair and by seat? Per rule set (by name, `rule_set`: each
--   seating of a tournament is one) and its seats' policies (games.policies as given: one
--   canonical policy string per seat, so A against B and B against A are separate rows;
--   policy_matchup pools them) and per seat: the seat's policy,
--   the games and decided games (outcome win; draws, capped and cycle games have no winner),
--   the seat's wins, its share of the decided games (null when none was decided) and of all
--   games. Variants without decisions have empty policies and a null policy, so their rows are
--   plain per-seat win rates.
WITH per_group AS (
    SELECT rule_set, variant, rules_id, policies, players,
           count(*)                                AS games,
           count(*) FILTER (WHERE outcome = 'win') AS decided
    FROM games
    GROUP BY rule_set, variant, rules_id, policies, players
),
seats AS (
    SELECT p.*, s.seat
    FROM per_group p,
         LATERAL (SELECT unnest(range(CAST(p.players AS BIGINT))) AS seat) s
),
wins AS (
    SELECT rule_set, policies, winner AS seat, count(*) AS wins
    FROM games
    WHERE outcome = 'win' AND winner IS NOT NULL
    GROUP BY rule_set, policies, winner
)
SELECT
    s.rule_set,
    s.variant,
    s.rules_id,
    s.policies,
    s.seat,
    s.policies[s.seat + 1]                               AS policy,
    s.games,
    s.decided                                            AS decided_games,
    coalesce(w.wins, 0)                                  AS wins,
    coalesce(w.wins, 0) / nullif(s.decided, 0)::DOUBLE   AS share,
    coalesce(w.wins, 0) / s.games::DOUBLE                AS share_of_games
FROM seats s
LEFT JOIN wins w
       ON w.rule_set = s.rule_set AND w.policies = s.policies AND w.seat = s.seat
ORDER BY rule_set_order(s.rule_set), s.policies, s.seat;
