-- answers: How much do players steal in Steal War (docs/rules.md 6), and what do steals gain? Per
--   rule set (by name, `rule_set`: each seating of a tournament is one) and its seats' policies
--   (games.policies as given, one canonical policy string per seat), over the games whose seats have a steal policy: games; steals (`steal`
--   events) and steals per game (mean over all the games, a game without a steal counting 0);
--   cards gained by the steals and per steal (len(cards) - 1 of a `steal` event: the bundle less
--   the stealing card, that is the won piles taken; null without steals); steal opportunities
--   (`decision` events with note 'steal', logged only when a steal is possible, decisions.md
--   12), those taken (a non-empty `seats`) and the share taken (0..1; null without
--   opportunities). With per_seat = true there is one row per seat instead, with the seat's
--   policy and its steal part (`always`, `never`, `threshold:4`...), counting only that seat's
--   steals and decisions; steals per game still divide by the group's games.
-- summary: How much do players steal in Steal War, and what do steals gain?
-- param: per_seat BOOLEAN = false -- one row per seat and its policy instead of one per policies
WITH steal_games AS (
    SELECT game_id, rule_set, variant, rules_id, policies, players
    FROM games
    WHERE list_bool_or(list_transform(policies, lambda p: regexp_matches(p, '(^|,)steal:')))
),
seat_events AS (
    SELECT
        game_id,
        seat,
        count(*) FILTER (WHERE kind = 'steal')                          AS steals,
        coalesce(sum(len(cards) - 1) FILTER (WHERE kind = 'steal'), 0)  AS cards_gained,
        count(*) FILTER (WHERE kind = 'decision')                       AS opportunities,
        count(*) FILTER (WHERE kind = 'decision' AND len(seats) > 0)    AS taken
    FROM events
    WHERE (kind = 'steal' OR (kind = 'decision' AND note = 'steal'))
      AND game_id IN (SELECT game_id FROM steal_games)
    GROUP BY game_id, seat
),
game_seats AS (
    SELECT g.game_id, g.rule_set, g.variant, g.rules_id, g.policies, s.seat,
           coalesce(e.steals, 0)        AS steals,
           coalesce(e.cards_gained, 0)  AS cards_gained,
           coalesce(e.opportunities, 0) AS opportunities,
           coalesce(e.taken, 0)         AS taken
    FROM steal_games g
    CROSS JOIN LATERAL (SELECT unnest(range(CAST(g.players AS BIGINT))) AS seat) s
    LEFT JOIN seat_events e ON e.game_id = g.game_id AND e.seat = s.seat
),
rows_of AS (
    SELECT *, CASE WHEN $per_seat THEN seat END AS row_seat FROM game_seats
)
SELECT
    rule_set,
    variant,
    rules_id,
    policies,
    row_seat                                                        AS seat,
    policies[row_seat + 1]                                          AS policy,
    regexp_extract(policies[row_seat + 1], '(^|,)steal:([^,]*)', 2) AS steal_policy,
    count(DISTINCT game_id)                                         AS games,
    sum(steals)::BIGINT                                             AS steals,
    sum(steals) / count(DISTINCT game_id)::DOUBLE                   AS steals_per_game,
    sum(cards_gained)::BIGINT                                       AS cards_gained,
    sum(cards_gained) / nullif(sum(steals), 0)::DOUBLE              AS cards_per_steal,
    sum(opportunities)::BIGINT                                      AS opportunities,
    sum(taken)::BIGINT                                              AS taken,
    sum(taken) / nullif(sum(opportunities), 0)::DOUBLE              AS taken_share
FROM rows_of
GROUP BY rule_set, variant, rules_id, policies, row_seat
ORDER BY rule_set_order(rule_set), policies, row_seat;
