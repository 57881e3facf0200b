-- answers: How many of a game's battles are wars? The distribution of war_battles (battles with at
--   least one war) per game, per rule set (by name, `rule_set`: a tournament's seatings apart): for every count from 0 to the rule set's
--   most (counts no game had included, with 0 games), the games with that many war battles, their
--   share of the rule set's games, and the cumulative share of the games with at most that many.
--   wars_per_game gives the mean, median and maximum.
WITH counts AS (
    SELECT rule_set, variant, rules_id, war_battles, count(*) AS games
    FROM games
    GROUP BY rule_set, variant, rules_id, war_battles
),
spans AS (
    SELECT rule_set, variant, rules_id, max(war_battles) AS hi, sum(games) AS total
    FROM counts
    GROUP BY rule_set, variant, rules_id
),
values_ AS (
    SELECT s.rule_set, s.variant, s.rules_id, s.total, v.war_battles
    FROM spans s, LATERAL (SELECT unnest(range(0, s.hi + 1)) AS war_battles) v
)
SELECT
    v.rule_set,
    v.variant,
    v.rules_id,
    rule_set_policies(v.rule_set) AS policies,
    v.war_battles,
    coalesce(n.games, 0)                        AS games,
    coalesce(n.games, 0) / v.total::DOUBLE      AS share,
    sum(coalesce(n.games, 0)) OVER (PARTITION BY v.rule_set ORDER BY v.war_battles)
        / v.total::DOUBLE                       AS cumulative_share
FROM values_ v
LEFT JOIN counts n USING (rule_set, war_battles)
ORDER BY rule_set_order(v.rule_set), v.war_battles;
