-- answers: How deep do wars go? Battles by war depth (0 plain, 1 single war, 2 double war,
--   3 triple...) per variant and rule set, from the `battles` view: the count, its share of all
--   battles, and its share of the battles with a war (null for depth 0).
WITH counts AS (
    SELECT g.variant, g.rules_id, b.war_depth, count(*) AS battles
    FROM battles b
    JOIN games g USING (game_id)
    GROUP BY g.variant, g.rules_id, b.war_depth
)
SELECT
    variant,
    rules_id,
    war_depth,
    battles,
    battles / sum(battles) OVER (PARTITION BY variant, rules_id)::DOUBLE AS share_of_battles,
    CASE WHEN war_depth > 0 THEN
        battles / sum(battles) FILTER (WHERE war_depth > 0)
                  OVER (PARTITION BY variant, rules_id)::DOUBLE
    END AS share_of_war_battles
FROM counts
ORDER BY variant, rules_id, war_depth;
