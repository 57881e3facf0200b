-- answers: In Slap War (war-slap's README.md), how often are pairs slapped, and who slaps? Per rule set
--   (by name, `rule_set`) and the seats' policies (games.policies as given): games; pairs, the battles whose
--   tied cards the players could slap (battles with a `slap` decision); slapped, the pairs someone
--   slapped (battles with a `slap` event), and their share of the pairs; slaps_per_game; the
--   share of slaps by the first player asked (the battle's first `slap` decision is its own); and
--   the decided games (outcome win) won by the seat that slapped most in the game (ties: none).
-- summary: In Slap War, how often are pairs slapped, and who slaps?
WITH slap_games AS (
    SELECT game_id, rule_set, variant, rules_id, policies, outcome, winner
    FROM games
    WHERE variant = 'slap'
),
decisions AS (
    SELECT game_id, battle, seq, seat, len(seats) > 0 AS slapped
    FROM events
    WHERE kind = 'decision' AND note = 'slap' AND game_id IN (SELECT game_id FROM slap_games)
),
pairs AS (
    SELECT game_id, battle, bool_or(slapped) AS slapped,
           arg_min(seat, seq) AS first_asked, arg_min(seat, seq) FILTER (WHERE slapped) AS slapper
    FROM decisions
    GROUP BY game_id, battle
),
per_seat AS (
    SELECT game_id, slapper AS seat, count(*) AS slaps
    FROM pairs WHERE slapped
    GROUP BY game_id, slapper
),
top_slapper AS (
    SELECT game_id, arg_max(seat, slaps) AS seat, count(*) FILTER (WHERE slaps = most) AS tied
    FROM (SELECT *, max(slaps) OVER (PARTITION BY game_id) AS most FROM per_seat)
    GROUP BY game_id
),
per_game AS (
    SELECT g.game_id, g.rule_set, g.variant, g.rules_id, g.policies, g.outcome, g.winner,
           count(p.battle) AS pairs,
           count(p.battle) FILTER (WHERE p.slapped) AS slapped,
           count(p.battle) FILTER (WHERE p.slapped AND p.slapper = p.first_asked) AS by_first
    FROM slap_games g LEFT JOIN pairs p USING (game_id)
    GROUP BY ALL
)
SELECT g.rule_set, g.variant, g.rules_id, g.policies,
       count(*) AS games,
       sum(g.pairs) AS pairs,
       sum(g.slapped) AS slapped,
       CASE WHEN sum(g.pairs) > 0 THEN sum(g.slapped) / sum(g.pairs) END AS slapped_share,
       sum(g.slapped) / count(*) AS slaps_per_game,
       CASE WHEN sum(g.slapped) > 0 THEN sum(g.by_first) / sum(g.slapped) END AS first_asked_share,
       count(*) FILTER (WHERE g.outcome = 'win') AS decided_games,
       count(*) FILTER (WHERE g.outcome = 'win' AND t.tied = 1 AND t.seat = g.winner) AS won_by_top_slapper
FROM per_game g LEFT JOIN top_slapper t USING (game_id)
GROUP BY g.rule_set, g.variant, g.rules_id, g.policies
ORDER BY min(g.game_id), g.policies
