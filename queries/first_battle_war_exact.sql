-- answers: Is the first battle a war as often as chance says? Per rule set (by name, `rule_set`:
--   a tournament's seatings apart): games,
--   games whose first battle is a war (games.first_battle_war), their share with its 95% Wilson
--   score interval (ci_low, ci_high; z sets the level), and the exact probability (exact, and
--   exact_fraction as text) that the top cards of a shuffled deal tie for the highest rank:
--   1 - [sum over ranks r of S * C(r * S, P - 1) + J * C(R * S, P - 1)] / C(N, P) for P players,
--   R ranks of S suits, J Jokers (which tie with each other) and N = R * S + J cards; for 2
--   players without Jokers it is (S - 1) / (N - 1), 3/51 for a standard deck. That is the chance
--   of a war at the first battle only where cards compare by rank and a tie of ranks is a war:
--   the variants of `by_rank` (war report passes those of war's own families; a family from
--   another package may change how cards compare or what a tie does, which war cannot know from
--   its declaration). The exact value is null where it does not apply: a variant not in
--   `by_rank`, explicit deals, and Arneson's War, whose players choose the card they play
--   (hand_size > 0).
-- param: z DOUBLE = 1.96 > 0 < 40 -- normal quantile of the interval (1.96 for 95%, 2.576 for 99%)
-- param: by_rank VARCHAR = * -- the variants whose cards compare by rank and whose ties are wars, comma-separated (`*`: every variant)
WITH checked AS (
    SELECT CASE WHEN $z > 0 THEN $z
                ELSE error('parameter z must be positive, got ' || CAST($z AS VARCHAR))
           END AS z
),
known AS (   -- the variants whose first battle is a war exactly when the top cards tie for rank
    SELECT trim($by_rank) = '*' AS every, string_split(replace($by_rank, ' ', ''), ',') AS variants
),
decks AS (
    SELECT DISTINCT rules_id, players, ranks, suits, jokers, hand_size,
           ranks * suits + jokers AS n
    FROM rules
),
-- log C(n, k) through lgamma: C(n, k) = exp(lg(n + 1) - lg(k + 1) - lg(n - k + 1))
unique_top AS (   -- deals whose highest top card is alone: one card of rank r, the rest below it
    SELECT d.rules_id,
           sum(CASE WHEN r.rank * d.suits >= d.players - 1
                    THEN d.suits * exp(lgamma(r.rank * d.suits + 1) - lgamma(d.players)
                                       - lgamma(r.rank * d.suits - d.players + 2))
                    ELSE 0 END)
           + CASE WHEN d.jokers > 0
                  THEN d.jokers * exp(lgamma(d.ranks * d.suits + 1) - lgamma(d.players)
                                      - lgamma(d.ranks * d.suits - d.players + 2))
                  ELSE 0 END AS alone,
           exp(lgamma(d.n + 1) - lgamma(d.players + 1) - lgamma(d.n - d.players + 1)) AS total
    FROM decks d, LATERAL (SELECT unnest(range(d.ranks)) AS rank) r
    GROUP BY d.rules_id, d.players, d.suits, d.ranks, d.jokers, d.n
),
exact AS (
    SELECT d.rules_id,
           CASE WHEN d.hand_size = 0 THEN 1 - u.alone / u.total END AS p,
           CASE WHEN d.hand_size > 0 THEN NULL
                WHEN d.players = 2 AND d.jokers = 0
                    THEN CAST(d.suits - 1 AS VARCHAR) || '/' || CAST(d.n - 1 AS VARCHAR)
                WHEN u.total < 1e15
                    THEN CAST((round(u.total) - round(u.alone)) // gcd(CAST(round(u.total) AS BIGINT),
                                 CAST(round(u.total) - round(u.alone) AS BIGINT)) AS BIGINT)::VARCHAR
                         || '/' ||
                         CAST(round(u.total) // gcd(CAST(round(u.total) AS BIGINT),
                                 CAST(round(u.total) - round(u.alone) AS BIGINT)) AS BIGINT)::VARCHAR
           END AS fraction
    FROM decks d JOIN unique_top u USING (rules_id)
),
counts AS (
    SELECT rule_set, variant, rules_id,
           count(*)                                  AS games,
           count(*) FILTER (WHERE first_battle_war)  AS first_battle_wars,
           bool_and(deal = 'shuffle')                AS shuffled
    FROM games
    GROUP BY rule_set, variant, rules_id
)
SELECT
    n.rule_set,
    n.variant,
    n.rules_id,
    rule_set_policies(n.rule_set) AS policies,
    n.games,
    n.first_battle_wars,
    n.first_battle_wars / n.games::DOUBLE AS share,
    wilson_low(n.first_battle_wars / n.games::DOUBLE, n.games, c.z)  AS ci_low,
    wilson_high(n.first_battle_wars / n.games::DOUBLE, n.games, c.z) AS ci_high,
    CASE WHEN n.shuffled AND (k.every OR list_contains(k.variants, n.variant)) THEN e.p END        AS exact,
    CASE WHEN n.shuffled AND (k.every OR list_contains(k.variants, n.variant)) THEN e.fraction END AS exact_fraction
FROM counts n
CROSS JOIN checked c
CROSS JOIN known k
JOIN exact e USING (rules_id)
ORDER BY rule_set_order(n.rule_set);
