-- answers: How often is the very first battle a war, per rule set (by name, `rule_set`: a
--   tournament's seatings apart)? Games, games whose first battle is a war
--   (games.first_battle_war), and their share.
-- summary: How often is the very first battle a war, per rule set?
SELECT
    rule_set,
    variant,
    rules_id,
    rule_set_policies(rule_set) AS policies,
    count(*)                                AS games,
    count(*) FILTER (WHERE first_battle_war) AS first_battle_wars,
    avg(CASE WHEN first_battle_war THEN 1.0 ELSE 0.0 END) AS share
FROM games
GROUP BY rule_set, variant, rules_id
ORDER BY rule_set_order(rule_set);
