-- answers: How do games end, per rule set (by name, `rule_set`: a tournament's seatings apart)?
--   Games, then how many and what share end in a win, a draw, at the battle cap (capped) or on
--   a repeated position (cycle). Shares are fractions of the rule set's games (0..1).
SELECT
    rule_set,
    variant,
    rules_id,
    rule_set_policies(rule_set) AS policies,
    count(*)                                   AS games,
    count(*) FILTER (WHERE outcome = 'win')    AS wins,
    count(*) FILTER (WHERE outcome = 'draw')   AS draws,
    count(*) FILTER (WHERE outcome = 'capped') AS capped,
    count(*) FILTER (WHERE outcome = 'cycle')  AS cycles,
    avg(CASE WHEN outcome = 'win'    THEN 1.0 ELSE 0.0 END) AS win_share,
    avg(CASE WHEN outcome = 'draw'   THEN 1.0 ELSE 0.0 END) AS draw_share,
    avg(CASE WHEN outcome = 'capped' THEN 1.0 ELSE 0.0 END) AS capped_share,
    avg(CASE WHEN outcome = 'cycle'  THEN 1.0 ELSE 0.0 END) AS cycle_share
FROM games
GROUP BY rule_set, variant, rules_id
ORDER BY rule_set_order(rule_set);
