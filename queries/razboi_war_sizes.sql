-- answers: How big are the wars of Război (rule sets with war_down = by_rank, docs/rules.md 5.1)? Per
--   rule set (by name, `rule_set`: a tournament's seatings apart) and rank of the tied face-up cards (2..A, JK): the wars on that rank, the
--   rank's value v and the full war size v - 1, the player entries (a tied seat that put a new
--   face-up card in the war), the mean face-down cards per player entry, and the entries that
--   put fewer than v - 1 down (running short, docs/rules.md 2.3; or war_tiebreak = single_up, whose
--   repeated wars put none down). A war's tied cards are the last `play` of each seat in the
--   `war` event's `seats` before that event in the battle; its face-down cards are the `down`
--   events after it, up to the battle's next `war` event. A war whose seats all but one ran out
--   counts as a war with no entries.
-- summary: How big are the wars of Război, by the rank that caused them?
WITH razboi AS (
    SELECT DISTINCT rules_id, ranks, suits, ace_value FROM rules WHERE war_down = 'by_rank'
),
ev AS (
    SELECT e.game_id, e.battle, e.seq, e.kind, e.seat, e.cards, e.seats
    FROM events e
    WHERE e.battle > 0 AND e.kind IN ('play', 'down', 'war')
      AND e.game_id IN (SELECT g.game_id FROM games g JOIN razboi r USING (rules_id))
),
wars AS (
    SELECT game_id, battle, seq AS war_seq, seats,
           coalesce(lead(seq) OVER (PARTITION BY game_id, battle ORDER BY seq), 2147483647) AS next_seq
    FROM ev
    WHERE kind = 'war'
),
war_seats AS (
    SELECT game_id, battle, war_seq, next_seq, unnest(seats) AS seat FROM wars
),
per_seat AS (
    SELECT
        w.game_id, w.battle, w.war_seq, w.seat,
        arg_max(e.cards[1], e.seq) FILTER (WHERE e.kind = 'play' AND e.seq < w.war_seq) AS tied_card,
        coalesce(sum(len(e.cards)) FILTER (WHERE e.kind = 'down' AND e.seq > w.war_seq
                                            AND e.seq < w.next_seq), 0) AS down_cards,
        coalesce(bool_or(e.kind = 'play' AND e.seq > w.war_seq AND e.seq < w.next_seq), false)
            AS took_part
    FROM war_seats w
    JOIN ev e ON e.game_id = w.game_id AND e.battle = w.battle AND e.seat = w.seat
    GROUP BY w.game_id, w.battle, w.war_seq, w.seat
),
war_rank AS (
    SELECT p.game_id, p.battle, p.war_seq, g.rule_set, g.variant, g.rules_id, any_value(r.ranks) AS ranks,
           any_value(r.ace_value) AS ace_value,
           max(CASE WHEN p.tied_card >= r.ranks * r.suits THEN r.ranks
                    ELSE p.tied_card // r.suits END) AS rank_index
    FROM per_seat p
    JOIN games g USING (game_id)
    JOIN razboi r USING (rules_id)
    GROUP BY p.game_id, p.battle, p.war_seq, g.rule_set, g.variant, g.rules_id
),
valued AS (
    SELECT *,
           CASE WHEN rank_index >= ranks THEN ace_value + 1
                WHEN rank_index = 12 THEN ace_value
                WHEN rank_index >= 9 THEN 10
                ELSE rank_index + 2 END AS value
    FROM war_rank
),
entries AS (
    SELECT v.*, p.down_cards, p.took_part
    FROM valued v
    JOIN per_seat p USING (game_id, battle, war_seq)
)
SELECT
    rule_set,
    variant,
    rules_id,
    rule_set_policies(rule_set) AS policies,
    CASE WHEN rank_index >= ranks THEN 'JK'
         ELSE ['2','3','4','5','6','7','8','9','10','J','Q','K','A'][rank_index + 1] END AS tied_rank,
    value,
    value - 1                                                  AS full_down,
    count(DISTINCT (game_id, battle, war_seq))                 AS wars,
    count(*) FILTER (WHERE took_part)                          AS player_entries,
    avg(down_cards) FILTER (WHERE took_part)                   AS mean_down_per_player,
    count(*) FILTER (WHERE took_part AND down_cards < value - 1) AS short_entries
FROM entries
GROUP BY rule_set, variant, rules_id, rank_index, ranks, value
ORDER BY rule_set_order(rule_set), rank_index;
