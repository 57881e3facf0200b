-- answers: Do bigger decks make longer games? Game length in battles per variant and deck
--   (ranks, suits and jokers from the `rules` view; deck_size = ranks * suits + jokers) and rule
--   set: games, mean, median, 90th percentile and max battles, and the share of games that hit
--   the battle cap (capped, a fraction 0..1). Percentiles are quantile_cont (linear
--   interpolation); capped games count at the cap.
WITH decks AS (
    SELECT DISTINCT rules_id, ranks, suits, jokers, ranks * suits + jokers AS deck_size
    FROM rules
)
SELECT
    g.variant,
    d.deck_size,
    d.ranks,
    d.suits,
    d.jokers,
    g.rules_id,
    count(*)                                   AS games,
    avg(g.battles)                             AS mean_battles,
    quantile_cont(g.battles, 0.5)              AS median_battles,
    quantile_cont(g.battles, 0.9)              AS p90_battles,
    max(g.battles)                             AS max_battles,
    count(*) FILTER (WHERE g.outcome = 'capped') AS capped,
    avg(CASE WHEN g.outcome = 'capped' THEN 1.0 ELSE 0.0 END) AS capped_share
FROM games g
JOIN decks d USING (rules_id)
GROUP BY g.variant, d.deck_size, d.ranks, d.suits, d.jokers, g.rules_id
ORDER BY g.variant, d.deck_size, g.rules_id;
