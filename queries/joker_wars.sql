-- answers: How often does a Joker decide a war? Per rule set with Jokers (by name, `rule_set`: a
--   tournament's seatings apart; jokers from the `rules` view; no rows for rule sets without) and per war depth of the battle (0: no war,
--   1: a war, 2: a double war...): battles, those whose winning face-up card is a Joker (code >=
--   ranks * suits) and their share with its 95% Wilson score interval (ci_low, ci_high; z sets
--   the level). A battle's winning card is the last `play` of the seat that collects the table
--   (the `battles` view's winner), as in joker_decides; a battle whose table is set aside has no
--   winner and counts as not decided by a Joker.
-- param: z DOUBLE = 1.96 > 0 < 40 -- normal quantile of the interval (1.96 for 95%, 2.576 for 99%)
WITH checked AS (
    SELECT CASE WHEN $z > 0 THEN $z
                ELSE error('parameter z must be positive, got ' || CAST($z AS VARCHAR))
           END AS z
),
joker_rules AS (
    SELECT DISTINCT rules_id, ranks * suits AS first_joker FROM rules WHERE jokers > 0
),
joker_battles AS (
    SELECT b.game_id, b.battle, b.rule_set, b.variant, b.rules_id, b.winner, b.war_depth, r.first_joker
    FROM battles b
    JOIN joker_rules r USING (rules_id)
),
joker_games AS (
    SELECT g.game_id, r.first_joker FROM games g JOIN joker_rules r USING (rules_id)
),
joker_plays AS (   -- the plays of a Joker (a few in a hundred plays): only their battles are looked into
    SELECT e.game_id, e.battle, e.seat, e.seq
    FROM events e JOIN joker_games j USING (game_id)
    WHERE e.kind = 'play' AND e.battle > 0 AND e.cards[1] >= j.first_joker
),
last_plays AS (   -- each seat's last play in a battle where a Joker was played
    SELECT e.game_id, e.battle, e.seat, max(e.seq) AS seq
    FROM events e
    WHERE e.kind = 'play' AND e.battle > 0
      AND (e.game_id, e.battle) IN (SELECT game_id, battle FROM joker_plays)
    GROUP BY e.game_id, e.battle, e.seat
),
decided AS (   -- the battles whose winner's last play is a Joker
    SELECT DISTINCT p.game_id, p.battle, p.seat
    FROM joker_plays p JOIN last_plays l USING (game_id, battle, seat, seq)
),
counts AS (
    SELECT jb.rule_set, jb.variant, jb.rules_id, jb.war_depth,
           count(*)                                     AS battles,
           count(*) FILTER (WHERE d.game_id IS NOT NULL) AS joker_battles
    FROM joker_battles jb
    LEFT JOIN decided d
           ON d.game_id = jb.game_id AND d.battle = jb.battle AND d.seat = jb.winner
    GROUP BY jb.rule_set, jb.variant, jb.rules_id, jb.war_depth
),
shares AS (
    SELECT *, joker_battles / battles::DOUBLE AS p, battles AS n FROM counts
)
SELECT
    s.rule_set,
    s.variant,
    s.rules_id,
    rule_set_policies(s.rule_set) AS policies,
    s.war_depth,
    s.battles,
    s.joker_battles,
    s.p                                                            AS joker_share,
    wilson_low(s.p, s.n, c.z)                                      AS ci_low,
    wilson_high(s.p, s.n, c.z)                                     AS ci_high
FROM shares s
CROSS JOIN checked c
ORDER BY rule_set_order(s.rule_set), s.war_depth;
