-- summary: A solved deck's odds by the number of top-rank cards seat 0 is dealt.
-- answers: How much is holding the top cards worth, exactly? The deals of a solution of `war
--   solve --out` grouped by how many cards of the deck's top rank seat 0 is dealt: how many deals,
--   their share of the deck (exact: share_exact, a fraction), and over them seat 0's and seat 1's
--   chance to win, the chance of a draw, the expected battles and cards laid (each deal equally
--   likely; floats, within the solution's bound). Seat 1 holds the rest of the top rank.
-- dataset: solution
WITH total AS (SELECT count(*) AS n FROM deals)
SELECT top_cards, count(*) AS deals, count(*) / any_value(t.n) AS share,
       CAST(count(*) // gcd(count(*), any_value(t.n)) AS VARCHAR) || '/'
           || CAST(any_value(t.n) // gcd(count(*), any_value(t.n)) AS VARCHAR) AS share_exact,
       avg(p_win0) AS p_win0, avg(p_win1) AS p_win1, avg(p_draw) AS p_draw,
       avg(mean_battles) AS mean_battles, avg(mean_laid) AS mean_laid
FROM deals, total t
GROUP BY top_cards
ORDER BY top_cards
