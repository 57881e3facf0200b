-- answers: In Trump War (war-trump's README.md), how often does the trump suit decide? Per rule set
--   (by name, `rule_set`; `policies`, its seats' policies): games; battles; trumped, the battles in which a trump decided a step
--   (a `trump` event: a trump beat a card of another suit that ranks as high or higher), and their
--   share of the battles; trumps_per_game; and the decided games (outcome win) won by the seat
--   whose trumps decided most steps in the game (ties: none).
-- summary: In Trump War, how often does the trump suit decide?
WITH trump_games AS (
    SELECT game_id, rule_set, variant, rules_id, outcome, winner, battles
    FROM games
    WHERE variant = 'trump'
),
trumps AS (
    SELECT game_id, battle, seat
    FROM events
    WHERE kind = 'trump' AND game_id IN (SELECT game_id FROM trump_games)
),
per_seat AS (
    SELECT game_id, seat, count(*) AS trumps
    FROM trumps
    GROUP BY game_id, seat
),
top_trumper AS (
    SELECT game_id, arg_max(seat, trumps) AS seat, count(*) FILTER (WHERE trumps = most) AS tied
    FROM (SELECT *, max(trumps) OVER (PARTITION BY game_id) AS most FROM per_seat)
    GROUP BY game_id
),
per_game AS (
    SELECT g.game_id, g.rule_set, g.variant, g.rules_id, g.outcome, g.winner, g.battles,
           count(DISTINCT t.battle) AS trumped, count(t.battle) AS trumps
    FROM trump_games g LEFT JOIN trumps t USING (game_id)
    GROUP BY ALL
)
SELECT g.rule_set, g.variant, g.rules_id, rule_set_policies(g.rule_set) AS policies,
       count(*) AS games,
       sum(g.battles) AS battles,
       sum(g.trumped) AS trumped,
       CASE WHEN sum(g.battles) > 0 THEN sum(g.trumped) / sum(g.battles) END AS trumped_share,
       sum(g.trumps) / count(*) AS trumps_per_game,
       count(*) FILTER (WHERE g.outcome = 'win') AS decided_games,
       count(*) FILTER (WHERE g.outcome = 'win' AND t.tied = 1 AND t.seat = g.winner) AS won_by_top_trumper
FROM per_game g LEFT JOIN top_trumper t USING (game_id)
GROUP BY g.rule_set, g.variant, g.rules_id
ORDER BY min(g.game_id)
