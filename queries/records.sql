-- answers: Which deals give the longest games that end (the records), by battles and by cards
--   laid? Per rule set (by name, `rule_set`) that plays every deal of its deck (`--all-deals`
--   with no --games, or counted whole: the counts view's exact, where also the deal alone decides each
--   game: a fixed pickup and no policy that draws), the `limit` longest games
--   that end in a win or a draw by each measure the literature ranks records by: battles
--   (tricks: a battle with its wars counts once), and cards laid (cards turned; cards_a_player =
--   cards_laid / players). Each row is a length (battles and cards laid) with how many deals give
--   it and the first of them (deal_index), dealt (piles: each seat's pile, card codes top first;
--   card_label(code, ranks := r, suits := s) or the cards view turns a code into its label); game_id is that deal's game where the rule set stores a
--   row a deal (replay it with war replay DATASET GAME). The exact mean of each measure over the
--   games that end is in exact_length and exact_cards_laid.
-- exact: every deal
-- param: limit INTEGER = 10 >= 0 -- how many records to list per rule set and measure
WITH checked AS (
    SELECT CASE WHEN $limit >= 0 THEN $limit
                ELSE error('parameter limit must be at least 0, got ' || CAST($limit AS VARCHAR))
           END AS most
),
ended AS (
    SELECT rule_set, variant, rules_id, min(ordinal) AS ordinal, battles, cards_laid,
           CAST(sum(games) AS BIGINT) AS deals, min(first_deal) AS deal_index
    FROM counts
    WHERE exact AND outcome IN ('win', 'draw')
    GROUP BY rule_set, variant, rules_id, battles, cards_laid
),
ranked AS (
    SELECT 'battles' AS measure,
           row_number() OVER (PARTITION BY rule_set ORDER BY battles DESC, cards_laid DESC, deal_index) AS rank, *
    FROM ended
    UNION ALL
    SELECT 'cards_laid' AS measure,
           row_number() OVER (PARTITION BY rule_set ORDER BY cards_laid DESC, battles DESC, deal_index) AS rank, *
    FROM ended
)
SELECT r.rule_set, r.variant, r.rules_id, rule_set_policies(r.rule_set) AS policies, r.measure, r.rank, r.battles, r.cards_laid,
       r.cards_laid // s.players AS cards_a_player, r.deals, r.deal_index,
       CASE WHEN s.log <> 'counts' THEN r.ordinal * 1000000000 + r.deal_index END AS game_id,
       war_enumerated_piles(r.ordinal, r.deal_index) AS piles
FROM ranked r JOIN rules s ON s.ordinal = r.ordinal, checked
WHERE r.rank <= checked.most
ORDER BY rule_set_order(r.rule_set), r.measure, r.rank;
