-- answers: How deep do wars go? Battles by war depth (0 plain, 1 single war, 2 double war,
--   3 triple...) per rule set (by name, `rule_set`: a tournament's seatings apart), from the
--   `battles` view: the count, its share of all battles, and its share of the battles with a
--   war (null for depth 0).
WITH counts AS (
    SELECT rule_set, variant, rules_id, war_depth, count(*) AS battles
    FROM battles
    GROUP BY rule_set, variant, rules_id, war_depth
)
SELECT
    rule_set,
    variant,
    rules_id,
    rule_set_policies(rule_set) AS policies,
    war_depth,
    battles,
    battles / sum(battles) OVER (PARTITION BY rule_set)::DOUBLE AS share_of_battles,
    CASE WHEN war_depth > 0 THEN
        battles / sum(battles) FILTER (WHERE war_depth > 0) OVER (PARTITION BY rule_set)::DOUBLE
    END AS share_of_war_battles
FROM counts
ORDER BY rule_set_order(rule_set), war_depth;
