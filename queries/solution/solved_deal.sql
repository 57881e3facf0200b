-- summary: The odds of one deal of a solved deck.
-- answers: What are one deal's odds, exactly? The row of deal `deal` (the deck's deals numbered
--   as `war generate --all-deals` plays them) in a solution of `war solve --out`: both piles dealt
--   (ranks, top first, 0 the lowest), how many cards of the top rank seat 0 holds, the chance
--   each seat wins and of a draw, the expected battles and cards laid, the quantiles of its
--   battles (50, 90, 99 %), P(capped), and the exact fractions (exact_*) where solved exactly.
-- dataset: solution
-- param: deal BIGINT -- the deal's number, 0 .. deals - 1
WITH checked AS (
    SELECT CASE WHEN $deal >= 0 AND $deal < (SELECT count(*) FROM deals) THEN $deal
                ELSE error('parameter deal ' || CAST($deal AS VARCHAR) || ' is not a deal of this deck: its deals are 0 .. '
                           || CAST((SELECT count(*) FROM deals) - 1 AS VARCHAR))
           END AS deal
)
SELECT d.* FROM deals d, checked c WHERE d.deal = c.deal
