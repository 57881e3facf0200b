-- answers: How often does each outcome happen, and how sure is that? Per rule set (by name,
--   `rule_set`: a tournament's seatings apart) and outcome (win, draw, capped, cycle: every one,
--   with 0 games when none ended so): the rule set's games, those that ended so, their share
--   with its 95% Wilson score interval (ci_low, ci_high; z sets the level). outcomes gives the
--   same counts one row per rule set.
-- param: z DOUBLE = 1.96 > 0 < 40 -- normal quantile of the interval (1.96 for 95%, 2.576 for 99%)
WITH checked AS (
    SELECT CASE WHEN $z > 0 THEN $z
                ELSE error('parameter z must be positive, got ' || CAST($z AS VARCHAR))
           END AS z
),
totals AS (
    SELECT rule_set, variant, rules_id, count(*) AS games FROM games GROUP BY rule_set, variant, rules_id
),
kinds AS (
    SELECT * FROM (VALUES ('win', 1), ('draw', 2), ('capped', 3), ('cycle', 4)) AS k(outcome, ord)
),
counts AS (
    SELECT rule_set, CAST(outcome AS VARCHAR) AS outcome, count(*) AS ended
    FROM games GROUP BY ALL
)
SELECT
    t.rule_set,
    t.variant,
    t.rules_id,
    rule_set_policies(t.rule_set) AS policies,
    k.outcome,
    t.games,
    coalesce(n.ended, 0)                                              AS ended,
    coalesce(n.ended, 0) / t.games::DOUBLE                            AS share,
    wilson_low(coalesce(n.ended, 0) / t.games::DOUBLE, t.games, c.z)  AS ci_low,
    wilson_high(coalesce(n.ended, 0) / t.games::DOUBLE, t.games, c.z) AS ci_high
FROM totals t
CROSS JOIN kinds k
CROSS JOIN checked c
LEFT JOIN counts n ON n.rule_set = t.rule_set AND n.outcome = k.outcome
ORDER BY rule_set_order(t.rule_set), k.ord;
