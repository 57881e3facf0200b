-- answers: Do fixed pickup orders make games loop? Per pickup order and rule set (by name,
--   `rule_set`: a tournament's seatings apart; pickup and max_battles from the `rules` view): games, cycles, capped games, their shares
--   of the games, and the mean cycle_length (battles between the repeated positions) of cycles.
WITH rule_options AS (
    SELECT DISTINCT rules_id, pickup, max_battles FROM rules
)
SELECT
    g.rule_set,
    g.variant,
    r.pickup,
    g.rules_id,
    rule_set_policies(g.rule_set) AS policies,
    r.max_battles,
    count(*)                                      AS games,
    count(*) FILTER (WHERE g.outcome = 'cycle')   AS cycles,
    count(*) FILTER (WHERE g.outcome = 'capped')  AS capped,
    avg(CASE WHEN g.outcome = 'cycle'  THEN 1.0 ELSE 0.0 END) AS cycle_share,
    avg(CASE WHEN g.outcome = 'capped' THEN 1.0 ELSE 0.0 END) AS capped_share,
    avg(g.cycle_length) FILTER (WHERE g.outcome = 'cycle')    AS mean_cycle_length
FROM games g
JOIN rule_options r USING (rules_id)
GROUP BY g.rule_set, g.variant, r.pickup, g.rules_id, r.max_battles
ORDER BY r.pickup, rule_set_order(g.rule_set);
