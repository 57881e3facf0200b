-- summary: A solved deck's figures, exactly: its chances, expected length and quantiles.
-- answers: What are the chances and the expected length of a game of this deck, exactly? One row
--   from a solution of `war solve --out` (every deal equally likely): P(seat 0 wins), P(seat 1
--   wins), P(draw), the expected battles and cards laid (floats, within `bound` on each chance,
--   battles_bound and laid_bound on the means), the quantiles of the number of battles (median,
--   p90, p99, p999), P(capped) (a game past the rules' max_battles, which the engine stops), and
--   each value's exact fraction as text (exact_*, numerator/denominator) where it was solved
--   exactly. No interval: these are not estimates.
-- dataset: solution
SELECT * FROM deck
