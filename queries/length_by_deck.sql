-- answers: Do bigger decks make longer games? Game length in battles per deck (ranks, suits and
--   jokers from the `rules` view; deck_size = ranks * suits + jokers) and rule set (by name,
--   `rule_set`: a tournament's seatings apart), over the games that end (a win or a draw): how
--   many, their mean, median, 90th percentile and longest; beside them the games that never
--   end, left out of every length: cycles, and capped games (stopped at the battle cap) with
--   their share of all the games (capped_share, 0..1). Percentiles are quantile_cont (linear
--   interpolation).
WITH decks AS (
    SELECT DISTINCT rules_id, ranks, suits, jokers, ranks * suits + jokers AS deck_size
    FROM rules
)
SELECT
    g.rule_set,
    g.variant,
    d.deck_size,
    d.ranks,
    d.suits,
    d.jokers,
    g.rules_id,
    rule_set_policies(g.rule_set) AS policies,
    count(*)                                                               AS games,
    count(*) FILTER (WHERE g.outcome IN ('win', 'draw'))                   AS ended,
    avg(g.battles) FILTER (WHERE g.outcome IN ('win', 'draw'))             AS mean_battles,
    quantile_cont(g.battles, 0.5) FILTER (WHERE g.outcome IN ('win', 'draw')) AS median_battles,
    quantile_cont(g.battles, 0.9) FILTER (WHERE g.outcome IN ('win', 'draw')) AS p90_battles,
    max(g.battles) FILTER (WHERE g.outcome IN ('win', 'draw'))             AS max_battles,
    count(*) FILTER (WHERE g.outcome = 'cycle')                            AS cycles,
    count(*) FILTER (WHERE g.outcome = 'capped')                           AS capped,
    avg(CASE WHEN g.outcome = 'capped' THEN 1.0 ELSE 0.0 END)              AS capped_share
FROM games g
JOIN decks d USING (rules_id)
GROUP BY g.rule_set, g.variant, d.deck_size, d.ranks, d.suits, d.jokers, g.rules_id
ORDER BY d.deck_size, rule_set_order(g.rule_set);
