-- answers: How often is the very first battle a war, per variant and rule set? Games, games
--   whose first battle is a war (games.first_battle_war), and their share.
SELECT
    variant,
    rules_id,
    count(*)                                AS games,
    count(*) FILTER (WHERE first_battle_war) AS first_battle_wars,
    avg(CASE WHEN first_battle_war THEN 1.0 ELSE 0.0 END) AS share
FROM games
GROUP BY variant, rules_id
ORDER BY variant, rules_id;
