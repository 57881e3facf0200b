-- answers: Does the deal decide the game? Win rate by the number of top cards a seat was dealt,
--   per variant, rule set and number of players: the top cards are those of the deck's
--   `top_ranks` highest ranks (Aces for 1; Aces and Kings for 2), Jokers included when the deck
--   has them. For each count: the seats dealt that many (seat-games), those in decided games
--   (outcome win), their wins, the share of decided seat-games won, its 95% Wilson score
--   interval (ci_low, ci_high; z sets the level), and the fair share 1 / players. A seat's deal
--   is its pile after the deal, before any hand is drawn (cards set aside are no seat's), read
--   from the battle-0 rows of `event_rows` (the `deal:S#N` parts of the shape; the same cards as
--   the decoded `deal` rows, without decoding every battle).
-- param: top_ranks INTEGER = 1 -- how many of the highest ranks count as top cards (at least 1)
-- param: z DOUBLE = 1.96 -- normal quantile of the interval (1.96 for 95%, 2.576 for 99%)
WITH checked AS (
    SELECT CASE WHEN $top_ranks >= 1 THEN $top_ranks
                ELSE error('parameter top_ranks must be at least 1, got ' || CAST($top_ranks AS VARCHAR))
           END AS top_ranks,
           CASE WHEN $z > 0 THEN $z
                ELSE error('parameter z must be positive, got ' || CAST($z AS VARCHAR))
           END AS z
),
decks AS (
    SELECT DISTINCT rules_id, ranks, suits FROM rules
),
deal_rows AS (
    SELECT game_id, shape, cards FROM event_rows WHERE battle = 0
),
deal_parts AS (   -- the parts of each distinct deal shape, `deal:S#N` for seat S's N cards
    SELECT shape, pos, tok, coalesce(TRY_CAST(regexp_extract(tok, '#(\d+)', 1) AS INTEGER), 0) AS n
    FROM (SELECT shape, unnest(string_split(shape, ' ')) AS tok,
                 unnest(range(len(string_split(shape, ' ')))) AS pos
          FROM (SELECT DISTINCT shape FROM deal_rows))
),
deal_slices AS (  -- where each seat's dealt cards lie in the row's cards
    SELECT shape, CAST(regexp_extract(tok, '^deal:(\d+)', 1) AS INTEGER) AS seat, n,
           coalesce(sum(n) OVER (PARTITION BY shape ORDER BY pos
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS start
    FROM deal_parts
    QUALIFY tok LIKE 'deal:%'
),
dealt AS (
    SELECT r.game_id, s.seat, r.cards[s.start + 1 : s.start + s.n] AS cards
    FROM deal_rows r JOIN deal_slices s USING (shape)
),
hands AS (
    SELECT g.variant, g.rules_id, g.players, g.outcome = 'win' AS decided,
           g.outcome = 'win' AND g.winner = h.seat AS won,
           len(list_filter(h.cards, lambda c: CASE WHEN c >= d.ranks * d.suits THEN d.ranks
                                              ELSE c // d.suits END >= d.ranks - k.top_ranks)) AS top_cards
    FROM dealt h
    JOIN games g USING (game_id)
    JOIN decks d USING (rules_id)
    CROSS JOIN checked k
),
counts AS (
    SELECT variant, rules_id, players, top_cards,
           count(*)                      AS seats,
           count(*) FILTER (WHERE decided) AS n,
           count(*) FILTER (WHERE won)     AS wins
    FROM hands
    GROUP BY variant, rules_id, players, top_cards
),
shares AS (
    SELECT *, wins / nullif(n, 0)::DOUBLE AS p FROM counts
)
SELECT
    s.variant,
    s.rules_id,
    s.players,
    s.top_cards,
    s.seats,
    s.n                                                            AS decided_seats,
    s.wins,
    s.p                                                            AS share,
    greatest(0.0, (s.p + c.z * c.z / (2 * s.n) - c.z * sqrt(s.p * (1 - s.p) / s.n + c.z * c.z / (4 * s.n * s.n)))
        / (1 + c.z * c.z / s.n))                                    AS ci_low,
    least(1.0, (s.p + c.z * c.z / (2 * s.n) + c.z * sqrt(s.p * (1 - s.p) / s.n + c.z * c.z / (4 * s.n * s.n)))
        / (1 + c.z * c.z / s.n))                                    AS ci_high,
    1.0 / s.players                                                AS fair_share
FROM shares s
CROSS JOIN checked c
ORDER BY s.variant, s.rules_id, s.players, s.top_cards;
