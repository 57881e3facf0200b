-- summary: A sample of games beside the exact game: each solved figure, its estimate and interval.
-- answers: Does a sample of games agree with the game solved exactly? For each rule set of the
--   dataset whose rules are those of the solution given (`--param solution=DIR`, a folder of `war
--   solve --out`), each figure the solver gives: P(seat 0 wins), P(seat 1 wins), P(draw),
--   P(capped), the mean battles and cards laid, and P(battles <= t) at the solved median and 90th
--   percentile; beside it (`exact`, the solution's float, within its `bound`; exact_fraction, its
--   fraction where solved exactly) the sample's estimate, its interval (Wilson score for a share,
--   the mean plus or minus z standard errors for a mean), whether the exact value lies in it
--   (`within`), and z_score = (estimate - exact) / standard error. A rule set of other rules has
--   no rows; a dataset with none is refused. Only a sample of the deck is compared: games dealt
--   at random, or every deal of the deck once (--all-deals, all of them); games of explicit
--   deals, copies chosen by `--from --where`, or part of the deals have no rows. The solved game
--   has no battle cap and the sample's games stop at the rules' max_battles (outcome capped), so
--   the two are compared only where the cap does not matter: a solution whose P(capped) is above
--   1e-9 (or only bounded above it, its iteration stopped short of the cap) is refused in one line
--   (solve and sample the rules with a larger max_battles, or solve to a smaller --tol).
-- param: solution SOLUTION -- a solution folder of war solve (war solve ... --out DIR) of the same rules
-- param: z DOUBLE = 1.96 > 0 < 40 -- normal quantile of the interval (1.96 for 95%, 2.576 for 99%)
WITH checked AS (
    SELECT CASE WHEN $z > 0 THEN $z
                ELSE error('parameter z must be positive, got ' || CAST($z AS VARCHAR))
           END AS z
),
-- the solved game has no cap: beside games the engine stops at max_battles only while it hardly
-- ever reaches it (docs/solve.md, "The battle cap"); a filter of `sample`, so always evaluated
cap_checked AS (
    SELECT CASE WHEN (SELECT max(p_capped) FROM solved_deck) <= 1e-9 THEN true
                ELSE error((
                    SELECT CASE WHEN sweeps >= max_battles THEN
                        'the solution''s P(capped) at max_battles=' || CAST(max_battles AS VARCHAR) || ' is '
                        || printf('%.3g', p_capped) || ': the solved game has no cap and the sample''s games stop at '
                        || CAST(max_battles AS VARCHAR) || ' battles, so they are not the same game; compare a sample '
                        || 'and a solution of a max_battles the game hardly reaches (P(capped) <= 1e-9), e.g. both with '
                        || '--set max_battles=10000'
                    ELSE
                        'the solution''s P(capped) at max_battles=' || CAST(max_battles AS VARCHAR) || ' is known only to '
                        || 'be <= ' || printf('%.3g', p_capped) || ' (its iteration stopped at ' || CAST(sweeps AS VARCHAR)
                        || ' battles, --tol), too much to compare the uncapped solved game with games stopped at the '
                        || 'cap: solve again with a smaller --tol (the default 1e-13)'
                    END FROM solved_deck))
           END AS ok
),
sample AS (
    SELECT g.rule_set, g.rules_id, count(*) AS games,
           count(*) FILTER (WHERE g.outcome = 'win' AND g.winner = 0) AS win0,
           count(*) FILTER (WHERE g.outcome = 'win' AND g.winner = 1) AS win1,
           count(*) FILTER (WHERE g.outcome = 'draw') AS draws,
           count(*) FILTER (WHERE g.outcome = 'capped') AS capped,
           count(*) FILTER (WHERE g.battles <= d.battles_median) AS le_median,
           count(*) FILTER (WHERE g.battles <= d.battles_p90) AS le_p90,
           avg(g.battles) AS mean_battles, stddev_samp(g.battles) AS sd_battles,
           avg(g.cards_laid) AS mean_laid, stddev_samp(g.cards_laid) AS sd_laid
    FROM games g JOIN solved_deck d ON g.rules_id = d.rules_id
    WHERE g.source_game_id IS NULL AND g.deal IN ('shuffle', 'all') AND (SELECT ok FROM cap_checked)
    GROUP BY g.rule_set, g.rules_id
    HAVING count(*) FILTER (WHERE g.deal = 'all') % any_value(d.deals) = 0
),
figures AS (
    SELECT s.rule_set, f.*
    FROM sample s, solved_deck d,
         LATERAL (VALUES
            (1, 'P(seat 0 wins)', 'share', d.p_win0, d.exact_p_win0, d.bound, s.win0, NULL, NULL),
            (2, 'P(seat 1 wins)', 'share', d.p_win1, d.exact_p_win1, d.bound, s.win1, NULL, NULL),
            (3, 'P(draw)', 'share', d.p_draw, d.exact_p_draw, d.bound, s.draws, NULL, NULL),
            (4, 'P(capped)', 'share', d.p_capped, NULL, d.distribution_bound, s.capped, NULL, NULL),
            (5, 'E[battles]', 'mean', d.mean_battles, d.exact_mean_battles, d.battles_bound, NULL, s.mean_battles, s.sd_battles),
            (6, 'E[cards laid]', 'mean', d.mean_laid, d.exact_mean_laid, d.laid_bound, NULL, s.mean_laid, s.sd_laid),
            (7, 'P(battles <= ' || CAST(d.battles_median AS VARCHAR) || ')', 'share',
                (SELECT cdf FROM solved_distribution WHERE battles = d.battles_median), NULL, d.distribution_bound, s.le_median, NULL, NULL),
            (8, 'P(battles <= ' || CAST(d.battles_p90 AS VARCHAR) || ')', 'share',
                (SELECT cdf FROM solved_distribution WHERE battles = d.battles_p90), NULL, d.distribution_bound, s.le_p90, NULL, NULL)
         ) f(ordinal, measure, kind, exact, exact_fraction, bound, hits, mean, sd)
    WHERE s.rules_id = d.rules_id
),
estimated AS (
    SELECT f.*, s.games, c.z,
           CASE WHEN kind = 'share' THEN hits / games ELSE mean END AS estimate,
           CASE WHEN kind = 'share' THEN sqrt(exact * (1 - exact) / games) ELSE sd / sqrt(games) END AS se
    FROM figures f JOIN sample s USING (rule_set), checked c
)
SELECT rule_set, measure, exact, exact_fraction, bound, games, estimate,
       CASE WHEN kind = 'share' THEN wilson_low(estimate, games, z) ELSE estimate - z * se END AS ci_low,
       CASE WHEN kind = 'share' THEN wilson_high(estimate, games, z) ELSE estimate + z * se END AS ci_high,
       exact BETWEEN (CASE WHEN kind = 'share' THEN wilson_low(estimate, games, z) ELSE estimate - z * se END)
                 AND (CASE WHEN kind = 'share' THEN wilson_high(estimate, games, z) ELSE estimate + z * se END) AS within,
       CASE WHEN se > 0 THEN (estimate - exact) / se END AS z_score
FROM estimated
ORDER BY rule_set, ordinal
