-- answers: How many wars does a game have, per rule set (by name, `rule_set`: a tournament's
--   seatings apart)? Mean, median and max of `wars` (every war, a double war counts 2) and of
--   `war_battles` (battles with at least one war). Medians are quantile_cont (linear
--   interpolation).
-- summary: How many wars does a game have, per rule set?
SELECT
    rule_set,
    variant,
    rules_id,
    rule_set_policies(rule_set) AS policies,
    count(*)                          AS games,
    avg(wars)                         AS mean_wars,
    quantile_cont(wars, 0.5)          AS median_wars,
    max(wars)                         AS max_wars,
    avg(war_battles)                  AS mean_war_battles,
    quantile_cont(war_battles, 0.5)   AS median_war_battles,
    max(war_battles)                  AS max_war_battles
FROM games
GROUP BY rule_set, variant, rules_id
ORDER BY rule_set_order(rule_set);
