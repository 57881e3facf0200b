-- answers: How deep do a game's wars go? Per rule set (by name, `rule_set`: a tournament's
--   seatings apart) and per depth (0: no war, 1: a
--   war, 2: a double war, 3: a triple war...): the games whose deepest war (max_war_depth) has
--   that depth, their share of the rule set's games, and the share of games with a war at least
--   that deep. Read from the games table alone, so it is quick on any size; war_depth counts
--   the battles of each depth instead.
WITH counts AS (
    SELECT rule_set, variant, rules_id, max_war_depth AS depth, count(*) AS games
    FROM games
    GROUP BY rule_set, variant, rules_id, max_war_depth
),
spans AS (
    SELECT rule_set, variant, rules_id, max(depth) AS hi, sum(games) AS total
    FROM counts
    GROUP BY rule_set, variant, rules_id
),
depths AS (
    SELECT s.rule_set, s.variant, s.rules_id, s.total, d.depth
    FROM spans s, LATERAL (SELECT unnest(range(0, s.hi + 1)) AS depth) d
)
SELECT
    d.rule_set,
    d.variant,
    d.rules_id,
    rule_set_policies(d.rule_set) AS policies,
    d.depth,
    coalesce(n.games, 0)                    AS games,
    coalesce(n.games, 0) / d.total::DOUBLE  AS share,
    sum(coalesce(n.games, 0)) OVER (PARTITION BY d.rule_set ORDER BY d.depth DESC)
        / d.total::DOUBLE                   AS at_least_share
FROM depths d
LEFT JOIN counts n USING (rule_set, depth)
ORDER BY rule_set_order(d.rule_set), d.depth;
