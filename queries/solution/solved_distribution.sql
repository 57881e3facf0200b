-- summary: A solved deck's distribution of the number of battles.
-- answers: How likely is a game of exactly t battles, and of at most t? For a solution of `war
--   solve --out`, over every deal (each equally likely): P(N = t) and P(N <= t) for each t from 0
--   to the battles its iteration ran (beyond, the rest of the mass is under the solution's bound).
-- dataset: solution
SELECT battles, p, cdf FROM distribution ORDER BY battles
