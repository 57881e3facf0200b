-- answers: Does the deal decide the game? A seat's win rate by what it was dealt, per rule set
--   (by name, `rule_set`: a tournament's seatings apart) and number of players, in two ways (`by`): by = 'top_cards' counts the seat's top
--   cards, those of the deck's `top_ranks` highest ranks (Aces for 1; Aces and Kings for 2),
--   Jokers included when the deck has them; by = 'strength' sums its hand strength, over the
--   cards dealt to it, rank index - (ranks - 1) / 2 (rank indices count from 0, the 2 of a
--   standard deck; a Joker is one above the top rank; so an 8 scores 0, an Ace +6, a 2 -6), in
--   buckets of `width` points. Per value (top cards: low = high = the count; strength: the
--   bucket [low, high)): the seats dealt it (seat-games), those in decided games (outcome
--   win), their wins, the share of decided seat-games won with its 95% Wilson score interval
--   (ci_low, ci_high; z sets the level; none where every decided seat of the value is one of a
--   2-player game whose opponent was dealt the same value: one win and one loss a game, the share
--   1/2 by symmetry, not an estimate), the mean top cards or strength of those seats, and the
--   fair share 1 / players. A seat's deal is its pile after the deal, before any hand is drawn
--   (cards set aside are no seat's): its `deal` event in the `deals` view (the events of battle
--   0, kept apart so that no other event's cards are read), once for both ways.
-- param: top_ranks INTEGER = 1 >= 1 -- how many of the highest ranks count as top cards (at least 1)
-- param: width INTEGER = 4 >= 1 -- bucket width of hand strength, in points (at least 1)
-- param: z DOUBLE = 1.96 > 0 < 40 -- normal quantile of the interval (1.96 for 95%, 2.576 for 99%)
WITH checked AS (
    SELECT CASE WHEN $top_ranks >= 1 THEN $top_ranks
                ELSE error('parameter top_ranks must be at least 1, got ' || CAST($top_ranks AS VARCHAR))
           END AS top_ranks,
           CASE WHEN $width >= 1 THEN $width
                ELSE error('parameter width must be at least 1, got ' || CAST($width AS VARCHAR))
           END AS width,
           CASE WHEN $z > 0 THEN $z
                ELSE error('parameter z must be positive, got ' || CAST($z AS VARCHAR))
           END AS z
),
decks AS (
    SELECT DISTINCT rules_id, ranks, suits FROM rules
),
hands AS (
    SELECT g.rule_set, g.variant, g.rules_id, g.players, h.game_id, g.outcome = 'win' AS decided,
           g.outcome = 'win' AND g.winner = h.seat AS won,
           list_transform(h.cards, lambda c:
               CASE WHEN c >= d.ranks * d.suits THEN d.ranks ELSE c // d.suits END) AS ranks,
           d.ranks AS deck_ranks
    FROM deals h
    JOIN games g USING (game_id)
    JOIN decks d ON d.rules_id = g.rules_id
    WHERE h.kind = 'deal'
),
scored AS (
    SELECT h.rule_set, h.variant, h.rules_id, h.players, h.game_id, h.decided, h.won,
           len(list_filter(h.ranks, lambda x: x >= h.deck_ranks - k.top_ranks)) AS top_cards,
           coalesce(list_sum(list_transform(h.ranks, lambda x: x - (h.deck_ranks - 1) / 2.0)), 0) AS strength,
           k.width
    FROM hands h, checked k
),
-- mirrored: a seat of a 2-player game whose opponent was dealt the same value (top cards, or
-- strength bucket): the two are one game seen from each side, one win and one loss
valued AS (
    SELECT *,
           players = 2 AND count(*) OVER (PARTITION BY rule_set, game_id, top_cards) = 2 AS mirrored_top,
           players = 2 AND count(*) OVER (PARTITION BY rule_set, game_id, bucket) = 2 AS mirrored_bucket
    FROM (SELECT *, CAST(floor(strength / width) * width AS BIGINT) AS bucket FROM scored)
),
counts AS (
    SELECT rule_set, variant, rules_id, players,
           CASE WHEN GROUPING(top_cards) = 0 THEN 'top_cards' ELSE 'strength' END AS by,
           CAST(coalesce(top_cards, bucket) AS BIGINT) AS low,
           count(*)                          AS seats,
           count(*) FILTER (WHERE decided)   AS n,
           count(*) FILTER (WHERE won)       AS wins,
           CASE WHEN GROUPING(top_cards) = 0 THEN avg(top_cards) ELSE avg(strength) END AS mean_value,
           any_value(width)                  AS width,
           count(*) FILTER (WHERE decided AND NOT mirrored_top) AS unmirrored_top,
           count(*) FILTER (WHERE decided AND NOT mirrored_bucket) AS unmirrored_bucket
    FROM valued
    GROUP BY GROUPING SETS ((rule_set, variant, rules_id, players, top_cards),
                            (rule_set, variant, rules_id, players, bucket))
),
shares AS (
    SELECT *, wins / nullif(n, 0)::DOUBLE AS p,
           CASE WHEN "by" = 'top_cards' THEN unmirrored_top ELSE unmirrored_bucket END AS unmirrored
    FROM counts
)
SELECT
    s.rule_set,
    s.variant,
    s.rules_id,
    rule_set_policies(s.rule_set) AS policies,
    s.players,
    s.by,
    s.low,
    CASE WHEN s.by = 'top_cards' THEN s.low ELSE s.low + s.width END       AS high,
    s.seats,
    s.n                                                                    AS decided_seats,
    s.wins,
    s.p                                                                    AS share,
    CASE WHEN s.unmirrored > 0 THEN wilson_low(s.p, s.n, c.z) END          AS ci_low,
    CASE WHEN s.unmirrored > 0 THEN wilson_high(s.p, s.n, c.z) END         AS ci_high,
    s.mean_value,
    1.0 / s.players                                                        AS fair_share
FROM shares s
CROSS JOIN checked c
ORDER BY rule_set_order(s.rule_set), s.players, s.by DESC, s.low;
