-- answers: How often do Jokers decide a battle? Per rule set with Jokers (by name, `rule_set`: a
--   tournament's seatings apart; jokers
--   from the `rules` view; no rows for rule sets without): battles, the battles whose winning
--   face-up card is a Joker (code >= ranks * suits) and their share of the battles; games, the
--   games whose last battle was won by a Joker and their share of the games. A battle's winning
--   card is the last `play` of the seat that collects the table (the `battles` view's winner);
--   a battle whose table is set aside has no winner and no winning card. Shares are fractions.
WITH joker_rules AS (
    SELECT DISTINCT rules_id, ranks * suits AS first_joker FROM rules WHERE jokers > 0
),
joker_battles AS (
    SELECT b.game_id, b.battle, b.rule_set, b.variant, b.rules_id, b.winner, r.first_joker
    FROM battles b
    JOIN joker_rules r USING (rules_id)
),
last_plays AS (
    SELECT e.game_id, e.battle, e.seat, arg_max(e.cards[1], e.seq) AS card
    FROM events e
    WHERE e.kind = 'play' AND e.battle > 0
      AND e.game_id IN (SELECT g.game_id FROM games g JOIN joker_rules r USING (rules_id))
    GROUP BY e.game_id, e.battle, e.seat
),
decided AS (
    SELECT jb.rule_set, jb.variant, jb.rules_id, jb.game_id, jb.battle, g.battles AS game_battles,
           coalesce(p.card >= jb.first_joker, false) AS by_joker
    FROM joker_battles jb
    JOIN games g USING (game_id)
    LEFT JOIN last_plays p
           ON p.game_id = jb.game_id AND p.battle = jb.battle AND p.seat = jb.winner
)
SELECT
    rule_set,
    variant,
    rules_id,
    rule_set_policies(rule_set) AS policies,
    count(*)                                        AS battles,
    count(*) FILTER (WHERE by_joker)                AS joker_battles,
    avg(CASE WHEN by_joker THEN 1.0 ELSE 0.0 END)   AS joker_share,
    count(DISTINCT game_id)                         AS games,
    count(*) FILTER (WHERE by_joker AND battle = game_battles) AS joker_last_battles,
    count(*) FILTER (WHERE by_joker AND battle = game_battles)
        / count(DISTINCT game_id)::DOUBLE           AS joker_last_battle_share
FROM decided
GROUP BY rule_set, variant, rules_id
ORDER BY rule_set_order(rule_set);
