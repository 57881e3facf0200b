-- answers: How do two rule sets differ, and how sure is that? For every pair of rule sets (by
--   name; rule_set_a the earlier in the dataset's order, rule_set_b the later): whether they
--   share deals (paired: the same players and deck, and every game index both played dealt
--   alike: the same seed, shuffled, or the same deal of --all-deals; Classic War and Război do,
--   Jokers' deck does not), then the games compared (paired: the pairs of games of the same
--   index; else each rule set's games), and five comparisons, each an estimate with its 95%
--   interval (z sets the level) and a two-sided p-value (of z, the test's normal statistic):
--   * length, of the games that end (win or draw; paired: the pairs where both end; capped_share_a
--     and _b say the share of each side's games compared that were stopped at the battle cap,
--     which are left out, and with them the longest games: the report compares no lengths where
--     either share is 1% or more): the ratio
--     of the medians (a's over b's) with the interval exp(ln ratio -+ z*se), each median's se
--     on the log scale its distribution-free interval's half-width over z (median_interval's
--     ranks), less twice their covariance where paired, (4*p11 - 1)*se_a*se_b, p11 the share of
--     pairs at or below both medians (Bonett and Price); where either side's interval holds fewer
--     than 5 distinct lengths (a deck whose games last a handful of battles: a median's
--     sampling law is then no normal one, and a zero-width interval read as no error; the
--     delta method covered 85% at 95%), the ratio of the two sides' order-statistic bounds
--     instead, each side's at 1 - tail / 2, so both hold at once at least 1 - tail of the time
--     whatever the pairing (Bonferroni); median_ratio_interval says which; tested by ranks, which ties never make
--     certain: the Wilcoxon signed-rank test of the per-deal log ratios (zeros dropped) where
--     paired, else the Mann-Whitney test, each with mid-ranks and its variance corrected for
--     ties (median_test says which); z > 0: a's games tend to be longer; no interval (null)
--     where either side has too few games that end for its median's (median_interval's rule:
--     fewer than 6 at 95%);
--   * mean length: the ratio of the means, its interval and test by the delta method on the
--     log scale (with the covariance of the pairs where paired); no interval where either
--     side has one game that ends;
--   * seat `seat` (same players only, else null, interval and all): its share of the decided
--     games (outcome win), the difference a - b, paired over the pairs both decided;
--   * draws and cycles: the share of all games that end in a draw, or never end as a position
--     repeats (outcome cycle), the difference a - b.
--   A difference of shares has, unpaired, Newcombe's interval from the two Wilson intervals and
--   the pooled two-proportion z-test; paired, Bonett and Price's adjusted Wald interval
--   ((b+1)/(n+2) - (c+1)/(n+2), b and c the discordant pairs) and McNemar's test (b - c over
--   sqrt(b + c)). A p-value is 1 where the counts allow no difference (none differ). The
--   p-values are each test's alone: judged together, as the report does, Holm's correction
--   over every row and test applies. p is the normal tail computed to a relative error below
--   1.2e-7 (Numerical Recipes' erfcc).
-- summary: How does each pair of rule sets differ, paired by deal where they share deals?
-- param: z DOUBLE = 1.96 > 0 < 40 -- normal quantile of the intervals (1.96 for 95%, 2.576 for 99%)
-- param: seat INTEGER = 0 >= 0 < players -- the seat whose share of decided games is compared (0 is the first; below the dataset's most players)
WITH given AS (
    SELECT CASE WHEN $z > 0 THEN $z
                ELSE error('parameter z must be positive, got ' || CAST($z AS VARCHAR))
           END AS z,
           CASE WHEN $seat >= 0 THEN $seat
                ELSE error('parameter seat must be 0 or more, got ' || CAST($seat AS VARCHAR))
           END AS seat
),
-- tail: 1 - the level, normal_tail(z) = erfc(z / sqrt 2), as p below: a median's interval needs the n
-- where [shortest, longest] covers it that often, 0.5^(n-1) <= tail (median_interval's rule)
checked AS (
    SELECT z, seat, normal_tail(z) AS tail, normal_quantile(1 - normal_tail(z) / 4) AS zc FROM given
),
sets AS (
    SELECT rule_set, min(ordinal) AS ord, any_value(variant) AS variant, any_value(players) AS players,
           any_value(json_object('ranks', to_json(r) ->> 'ranks', 'suits', to_json(r) ->> 'suits',
                                 'jokers', to_json(r) ->> 'jokers')::VARCHAR) AS deck
    FROM rules r
    GROUP BY rule_set
),
g AS (
    SELECT rule_set, game_index, outcome, winner, battles,
           outcome IN ('win', 'draw') AS ended,
           CASE WHEN deal = 'shuffle' THEN 's' || CAST(game_seed AS VARCHAR)
                WHEN deal = 'all' THEN 'a' || CAST(deal_index AS VARCHAR) END AS dealt
    FROM games
),
counted AS (
    SELECT rule_set, count(*) AS games FROM g GROUP BY rule_set
),
pairs AS (
    SELECT a.rule_set AS rule_set_a, b.rule_set AS rule_set_b, a.ord AS ord_a, b.ord AS ord_b,
           a.variant AS variant_a, b.variant AS variant_b, ca.games AS games_a, cb.games AS games_b,
           a.players = b.players AS same_players, a.players AS players,
           a.players = b.players AND a.deck = b.deck AS same_deck
    FROM sets a JOIN sets b ON a.ord < b.ord
    JOIN counted ca ON ca.rule_set = a.rule_set
    JOIN counted cb ON cb.rule_set = b.rule_set
),
matched AS (
    SELECT p.rule_set_a, p.rule_set_b,
           count(*) AS common, count(*) FILTER (WHERE x.dealt = y.dealt) AS alike
    FROM pairs p
    JOIN g x ON x.rule_set = p.rule_set_a
    JOIN g y ON y.rule_set = p.rule_set_b AND y.game_index = x.game_index
    WHERE p.same_deck
    GROUP BY p.rule_set_a, p.rule_set_b
),
judged AS (
    SELECT p.*, coalesce(m.common > 0 AND m.common = m.alike, false) AS paired,
           CASE WHEN m.common > 0 AND m.common = m.alike THEN m.common END AS pairs
    FROM pairs p LEFT JOIN matched m USING (rule_set_a, rule_set_b)
),
-- The games compared, one row a game and side: paired, only the game indexes both played.
sample AS (
    SELECT j.rule_set_a, j.rule_set_b, j.paired, 'a' AS side, x.*
    FROM judged j JOIN g x ON x.rule_set = j.rule_set_a
    WHERE NOT j.paired OR x.game_index IN (SELECT game_index FROM g y WHERE y.rule_set = j.rule_set_b)
    UNION ALL
    SELECT j.rule_set_a, j.rule_set_b, j.paired, 'b' AS side, y.*
    FROM judged j JOIN g y ON y.rule_set = j.rule_set_b
    WHERE NOT j.paired OR y.game_index IN (SELECT game_index FROM g x WHERE x.rule_set = j.rule_set_a)
),
-- Paired: the two games of a deal side by side.
joined AS (
    SELECT x.rule_set_a, x.rule_set_b, x.game_index,
           x.outcome AS outcome_a, y.outcome AS outcome_b, x.winner AS winner_a, y.winner AS winner_b,
           x.battles AS battles_a, y.battles AS battles_b, x.ended AND y.ended AS both_ended
    FROM sample x JOIN sample y
      ON x.paired AND x.side = 'a' AND y.side = 'b' AND x.rule_set_a = y.rule_set_a
     AND x.rule_set_b = y.rule_set_b AND x.game_index = y.game_index
),
-- The lengths compared: each side's games that end, or where paired the pairs where both end.
lengths AS (
    SELECT s.rule_set_a, s.rule_set_b, s.side, s.battles
    FROM sample s
    WHERE s.ended AND (NOT s.paired OR s.game_index IN (
        SELECT j.game_index FROM joined j
        WHERE j.rule_set_a = s.rule_set_a AND j.rule_set_b = s.rule_set_b AND j.both_ended))
),
ranked AS (
    SELECT rule_set_a, rule_set_b, side, battles,
           row_number() OVER (PARTITION BY rule_set_a, rule_set_b, side ORDER BY battles) AS r,
           count(*) OVER (PARTITION BY rule_set_a, rule_set_b, side) AS n
    FROM lengths
),
medians AS (
    SELECT k.rule_set_a, k.rule_set_b, k.side, any_value(k.n) AS n,
           quantile_cont(k.battles, 0.5) AS median, avg(k.battles) AS mean,
           -- from exact integer sums, not var_samp (nor covar_samp below): their per-thread
           -- double states combine in any order and differ in the last bits from run to run
           (count(*) * sum(k.battles::BIGINT * k.battles) - sum(k.battles::BIGINT) * sum(k.battles::BIGINT))::DOUBLE
           / nullif(count(*) * (count(*) - 1), 0) AS variance,
           CASE WHEN power(0.5, any_value(k.n) - 1) <= c.tail THEN
           (ln(greatest(1, max(k.battles) FILTER (WHERE k.r <= least(k.n, ceil(1 + k.n / 2 + c.z * sqrt(k.n) / 2)))))
            - ln(greatest(1, min(k.battles) FILTER (WHERE k.r >= greatest(1, floor(k.n / 2 - c.z * sqrt(k.n) / 2))))))
           / (2 * c.z) END AS log_se,
           -- the distinct lengths inside that interval, and the interval of each side at 1 - tail / 2
           count(DISTINCT k.battles) FILTER (WHERE k.r >= greatest(1, floor(k.n / 2 - c.z * sqrt(k.n) / 2))
                                             AND k.r <= least(k.n, ceil(1 + k.n / 2 + c.z * sqrt(k.n) / 2))) AS distinct_in,
           CASE WHEN power(0.5, any_value(k.n) - 1) <= c.tail / 2 THEN
           min(k.battles) FILTER (WHERE k.r >= greatest(1, floor(k.n / 2 - c.zc * sqrt(k.n) / 2))) END AS low_c,
           CASE WHEN power(0.5, any_value(k.n) - 1) <= c.tail / 2 THEN
           max(k.battles) FILTER (WHERE k.r <= least(k.n, ceil(1 + k.n / 2 + c.zc * sqrt(k.n) / 2))) END AS high_c
    FROM ranked k CROSS JOIN checked c
    GROUP BY k.rule_set_a, k.rule_set_b, k.side, c.z, c.zc, c.tail
),
length_pairs AS (
    SELECT a.rule_set_a, a.rule_set_b, a.n AS ended_a, b.n AS ended_b,
           a.median AS median_a, b.median AS median_b, a.mean AS mean_a, b.mean AS mean_b,
           a.variance AS var_a, b.variance AS var_b, a.log_se AS se_a, b.log_se AS se_b,
           least(a.distinct_in, b.distinct_in) < 5 AS coarse,
           a.low_c AS low_c_a, a.high_c AS high_c_a, b.low_c AS low_c_b, b.high_c AS high_c_b
    FROM medians a JOIN medians b
      ON a.side = 'a' AND b.side = 'b' AND a.rule_set_a = b.rule_set_a AND a.rule_set_b = b.rule_set_b
),
-- Paired: p11 (both at or below their medians) and the covariance of the lengths.
joint AS (
    SELECT j.rule_set_a, j.rule_set_b,
           count(*) FILTER (WHERE j.battles_a <= l.median_a AND j.battles_b <= l.median_b)::DOUBLE / count(*) AS p11,
           (count(*) * sum(j.battles_a::BIGINT * j.battles_b) - sum(j.battles_a::BIGINT) * sum(j.battles_b::BIGINT))::DOUBLE
           / nullif(count(*) * (count(*) - 1), 0) AS cov
    FROM joined j JOIN length_pairs l USING (rule_set_a, rule_set_b)
    WHERE j.both_ended
    GROUP BY j.rule_set_a, j.rule_set_b
),
-- Mann-Whitney, unpaired: mid-ranks of the pooled lengths, by distinct length.
values_ AS (
    SELECT l.rule_set_a, l.rule_set_b, l.battles,
           count(*) FILTER (WHERE l.side = 'a')::DOUBLE AS ca, count(*) FILTER (WHERE l.side = 'b')::DOUBLE AS cb
    FROM lengths l JOIN judged j USING (rule_set_a, rule_set_b)
    WHERE NOT j.paired
    GROUP BY l.rule_set_a, l.rule_set_b, l.battles
),
midranks AS (
    SELECT *, ca + cb AS t,
           sum(ca + cb) OVER (PARTITION BY rule_set_a, rule_set_b ORDER BY battles
                              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS below
    FROM values_
),
mann_whitney AS (
    SELECT rule_set_a, rule_set_b, sum(ca) AS na, sum(cb) AS nb,
           sum(ca * (coalesce(below, 0) + (t + 1) / 2)) - sum(ca) * (sum(ca) + 1) / 2 AS u,
           sum(t * t * t - t) AS ties
    FROM midranks
    GROUP BY rule_set_a, rule_set_b
),
-- Wilcoxon signed-rank, paired: the per-deal log ratios, zeros dropped, mid-ranks of |d|.
diffs AS (
    SELECT rule_set_a, rule_set_b, round(abs(ln(battles_a) - ln(battles_b)), 12) AS d,
           count(*) FILTER (WHERE battles_a > battles_b)::DOUBLE AS up, count(*)::DOUBLE AS t
    FROM joined
    WHERE both_ended AND battles_a <> battles_b AND battles_a > 0 AND battles_b > 0
    GROUP BY ALL
),
signed AS (
    SELECT *, sum(t) OVER (PARTITION BY rule_set_a, rule_set_b ORDER BY d
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS below
    FROM diffs
),
wilcoxon AS (
    SELECT rule_set_a, rule_set_b, sum(t) AS n, sum(up * (coalesce(below, 0) + (t + 1) / 2)) AS w,
           sum(t * t * t - t) AS ties
    FROM signed
    GROUP BY rule_set_a, rule_set_b
),
-- Shares: the counts of each side (unpaired) and the discordant pairs (paired).
share_counts AS (
    SELECT s.rule_set_a, s.rule_set_b, s.side,
           count(*) AS games,
           count(*) FILTER (WHERE s.outcome = 'capped') AS capped,
           count(*) FILTER (WHERE s.outcome = 'draw') AS draws,
           count(*) FILTER (WHERE s.outcome = 'cycle') AS cycles,
           count(*) FILTER (WHERE s.outcome = 'win') AS decided,
           count(*) FILTER (WHERE s.outcome = 'win' AND s.winner = c.seat) AS seat_wins
    FROM sample s CROSS JOIN checked c
    GROUP BY s.rule_set_a, s.rule_set_b, s.side
),
discordant AS (
    SELECT j.rule_set_a, j.rule_set_b, count(*) AS n,
           count(*) FILTER (WHERE outcome_a = 'draw' AND outcome_b <> 'draw') AS draw_b,
           count(*) FILTER (WHERE outcome_a <> 'draw' AND outcome_b = 'draw') AS draw_c,
           count(*) FILTER (WHERE outcome_a = 'cycle' AND outcome_b <> 'cycle') AS cycle_b,
           count(*) FILTER (WHERE outcome_a <> 'cycle' AND outcome_b = 'cycle') AS cycle_c,
           count(*) FILTER (WHERE outcome_a = 'win' AND outcome_b = 'win') AS seat_n,
           count(*) FILTER (WHERE outcome_a = 'win' AND outcome_b = 'win' AND winner_a = c.seat
                            AND winner_b <> c.seat) AS seat_b,
           count(*) FILTER (WHERE outcome_a = 'win' AND outcome_b = 'win' AND winner_a <> c.seat
                            AND winner_b = c.seat) AS seat_c,
           count(*) FILTER (WHERE outcome_a = 'win' AND outcome_b = 'win' AND winner_a = c.seat) AS seat_ka,
           count(*) FILTER (WHERE outcome_a = 'win' AND outcome_b = 'win' AND winner_b = c.seat) AS seat_kb
    FROM joined j CROSS JOIN checked c
    GROUP BY j.rule_set_a, j.rule_set_b
),
-- One row a pair and share: (k_a of n_a, k_b of n_b) and, where paired, (b, c of n pairs).
share_rows AS (
    SELECT j.rule_set_a, j.rule_set_b, j.paired, w.what,
           CASE w.what WHEN 'seat' THEN CASE WHEN j.paired THEN d.seat_ka ELSE a.seat_wins END
                       WHEN 'draw' THEN a.draws ELSE a.cycles END::DOUBLE AS ka,
           CASE w.what WHEN 'seat' THEN CASE WHEN j.paired THEN d.seat_kb ELSE b.seat_wins END
                       WHEN 'draw' THEN b.draws ELSE b.cycles END::DOUBLE AS kb,
           CASE WHEN w.what = 'seat' THEN CASE WHEN j.paired THEN d.seat_n ELSE a.decided END
                ELSE a.games END::DOUBLE AS na,
           CASE WHEN w.what = 'seat' THEN CASE WHEN j.paired THEN d.seat_n ELSE b.decided END
                ELSE b.games END::DOUBLE AS nb,
           CASE w.what WHEN 'seat' THEN d.seat_b WHEN 'draw' THEN d.draw_b ELSE d.cycle_b END::DOUBLE AS db,
           CASE w.what WHEN 'seat' THEN d.seat_c WHEN 'draw' THEN d.draw_c ELSE d.cycle_c END::DOUBLE AS dc
    FROM judged j
    CROSS JOIN (VALUES ('seat'), ('draw'), ('cycle')) AS w(what)
    CROSS JOIN checked c
    JOIN share_counts a ON a.side = 'a' AND a.rule_set_a = j.rule_set_a AND a.rule_set_b = j.rule_set_b
    JOIN share_counts b ON b.side = 'b' AND b.rule_set_a = j.rule_set_a AND b.rule_set_b = j.rule_set_b
    LEFT JOIN discordant d ON d.rule_set_a = j.rule_set_a AND d.rule_set_b = j.rule_set_b
    WHERE w.what <> 'seat' OR (j.same_players AND c.seat < j.players)
),
share_tests AS (
    SELECT s.rule_set_a, s.rule_set_b, s.what,
           s.ka / nullif(s.na, 0) AS share_a, s.kb / nullif(s.nb, 0) AS share_b,
           s.ka / nullif(s.na, 0) - s.kb / nullif(s.nb, 0) AS diff,
           CASE WHEN s.paired THEN
                    (s.db + 1) / (s.na + 2) - (s.dc + 1) / (s.na + 2)
                    - c.z * sqrt(((s.db + 1) / (s.na + 2) + (s.dc + 1) / (s.na + 2)
                                  - power((s.db - s.dc) / (s.na + 2), 2)) / (s.na + 2))
                ELSE s.ka / s.na - s.kb / s.nb
                    - sqrt(power(s.ka / s.na - wilson_low(s.ka / s.na, s.na, c.z), 2)
                           + power(wilson_high(s.kb / s.nb, s.nb, c.z) - s.kb / s.nb, 2)) END AS low,
           CASE WHEN s.paired THEN
                    (s.db + 1) / (s.na + 2) - (s.dc + 1) / (s.na + 2)
                    + c.z * sqrt(((s.db + 1) / (s.na + 2) + (s.dc + 1) / (s.na + 2)
                                  - power((s.db - s.dc) / (s.na + 2), 2)) / (s.na + 2))
                ELSE s.ka / s.na - s.kb / s.nb
                    + sqrt(power(wilson_high(s.ka / s.na, s.na, c.z) - s.ka / s.na, 2)
                           + power(s.kb / s.nb - wilson_low(s.kb / s.nb, s.nb, c.z), 2)) END AS high,
           CASE WHEN s.paired THEN (s.db - s.dc) / nullif(sqrt(s.db + s.dc), 0)
                ELSE (s.ka / s.na - s.kb / s.nb)
                     / nullif(sqrt((s.ka + s.kb) / (s.na + s.nb) * (1 - (s.ka + s.kb) / (s.na + s.nb))
                                   * (1 / s.na + 1 / s.nb)), 0) END AS z
    FROM share_rows s CROSS JOIN checked c
    WHERE s.na > 0 AND s.nb > 0
),
length_tests AS (
    SELECT l.*, j.paired,
           ln(l.median_a / l.median_b) AS log_ratio,
           -- null, not 0, where a side has no se (too few games): greatest(0, null) is 0
           CASE WHEN l.se_a IS NOT NULL AND l.se_b IS NOT NULL THEN
           sqrt(greatest(0, l.se_a * l.se_a + l.se_b * l.se_b
                - CASE WHEN j.paired THEN 2 * (4 * coalesce(t.p11, 0.25) - 1) * l.se_a * l.se_b ELSE 0 END))
           END AS log_ratio_se,
           ln(l.mean_a / l.mean_b) AS log_mean_ratio,
           CASE WHEN l.var_a IS NOT NULL AND l.var_b IS NOT NULL THEN
           sqrt(greatest(0, l.var_a / (l.ended_a * l.mean_a * l.mean_a) + l.var_b / (l.ended_b * l.mean_b * l.mean_b)
                - CASE WHEN j.paired THEN 2 * coalesce(t.cov, 0) / (l.ended_a * l.mean_a * l.mean_b) ELSE 0 END))
           END AS log_mean_se,
           CASE WHEN j.paired
                THEN (w.w - w.n * (w.n + 1) / 4)
                     / nullif(sqrt(w.n * (w.n + 1) * (2 * w.n + 1) / 24 - w.ties / 48), 0)
                ELSE (m.u - m.na * m.nb / 2)
                     / nullif(sqrt(m.na * m.nb / 12 * ((m.na + m.nb + 1)
                                   - m.ties / ((m.na + m.nb) * (m.na + m.nb - 1)))), 0) END AS median_z
    FROM length_pairs l
    JOIN judged j USING (rule_set_a, rule_set_b)
    LEFT JOIN joint t USING (rule_set_a, rule_set_b)
    LEFT JOIN mann_whitney m USING (rule_set_a, rule_set_b)
    LEFT JOIN wilcoxon w USING (rule_set_a, rule_set_b)
),
-- Every test's statistic, one row each, and its two-sided p (erfc(|z| / sqrt 2)).
statistics AS (
    SELECT rule_set_a, rule_set_b, 'median' AS what, median_z AS z FROM length_tests
    UNION ALL
    SELECT rule_set_a, rule_set_b, 'mean', log_mean_ratio / nullif(log_mean_se, 0) FROM length_tests
    UNION ALL
    SELECT rule_set_a, rule_set_b, what, z FROM share_tests
),
p_values AS (
    SELECT rule_set_a, rule_set_b, what, z,
           CASE WHEN z IS NULL THEN 1.0 ELSE least(1.0, normal_tail(z)) END AS p
    FROM statistics
)
SELECT
    j.rule_set_a, j.rule_set_b, j.variant_a, j.variant_b, j.paired,
    j.games_a, j.games_b, j.pairs,
    l.ended_a, l.ended_b,
    ca.capped::DOUBLE / ca.games                                     AS capped_share_a,
    cb.capped::DOUBLE / cb.games                                     AS capped_share_b,
    l.median_a, l.median_b,
    l.median_a / l.median_b                                          AS median_ratio,
    CASE WHEN l.coarse THEN l.low_c_a / nullif(l.high_c_b, 0)
         ELSE exp(l.log_ratio - c.z * l.log_ratio_se) END             AS median_ratio_low,
    CASE WHEN l.coarse THEN l.high_c_a / nullif(l.low_c_b, 0)
         ELSE exp(l.log_ratio + c.z * l.log_ratio_se) END             AS median_ratio_high,
    CASE WHEN l.median_a IS NOT NULL AND l.median_b IS NOT NULL THEN
         CASE WHEN l.coarse AND l.low_c_a IS NOT NULL AND l.low_c_b IS NOT NULL THEN 'order statistics'
              WHEN NOT l.coarse AND l.log_ratio_se IS NOT NULL THEN 'delta method' END END AS median_ratio_interval,
    CASE WHEN j.paired THEN 'wilcoxon signed-rank' ELSE 'mann-whitney' END AS median_test,
    pm.z                                                             AS median_z,
    pm.p                                                             AS median_p,
    l.mean_a, l.mean_b,
    l.mean_a / l.mean_b                                              AS mean_ratio,
    exp(l.log_mean_ratio - c.z * l.log_mean_se)                      AS mean_ratio_low,
    exp(l.log_mean_ratio + c.z * l.log_mean_se)                      AS mean_ratio_high,
    pn.p                                                             AS mean_p,
    CASE WHEN ss.share_a IS NOT NULL THEN c.seat END                 AS seat,
    ss.share_a AS seat_share_a, ss.share_b AS seat_share_b, ss.diff AS seat_share_diff,
    CASE WHEN ss.low IS NOT NULL THEN greatest(-1.0, ss.low) END AS seat_share_low,
    CASE WHEN ss.high IS NOT NULL THEN least(1.0, ss.high) END AS seat_share_high,
    ps.p                                                             AS seat_p,
    sd.share_a AS draw_share_a, sd.share_b AS draw_share_b, sd.diff AS draw_share_diff,
    CASE WHEN sd.low IS NOT NULL THEN greatest(-1.0, sd.low) END AS draw_share_low,
    CASE WHEN sd.high IS NOT NULL THEN least(1.0, sd.high) END AS draw_share_high,
    pd.p                                                             AS draw_p,
    sc.share_a AS cycle_share_a, sc.share_b AS cycle_share_b, sc.diff AS cycle_share_diff,
    CASE WHEN sc.low IS NOT NULL THEN greatest(-1.0, sc.low) END AS cycle_share_low,
    CASE WHEN sc.high IS NOT NULL THEN least(1.0, sc.high) END AS cycle_share_high,
    pc.p                                                             AS cycle_p
FROM judged j
CROSS JOIN checked c
LEFT JOIN length_tests l USING (rule_set_a, rule_set_b)
LEFT JOIN share_counts ca ON ca.rule_set_a = j.rule_set_a AND ca.rule_set_b = j.rule_set_b AND ca.side = 'a'
LEFT JOIN share_counts cb ON cb.rule_set_a = j.rule_set_a AND cb.rule_set_b = j.rule_set_b AND cb.side = 'b'
LEFT JOIN p_values pm ON pm.rule_set_a = j.rule_set_a AND pm.rule_set_b = j.rule_set_b AND pm.what = 'median'
LEFT JOIN p_values pn ON pn.rule_set_a = j.rule_set_a AND pn.rule_set_b = j.rule_set_b AND pn.what = 'mean'
LEFT JOIN share_tests ss ON ss.rule_set_a = j.rule_set_a AND ss.rule_set_b = j.rule_set_b AND ss.what = 'seat'
LEFT JOIN p_values ps ON ps.rule_set_a = j.rule_set_a AND ps.rule_set_b = j.rule_set_b AND ps.what = 'seat'
LEFT JOIN share_tests sd ON sd.rule_set_a = j.rule_set_a AND sd.rule_set_b = j.rule_set_b AND sd.what = 'draw'
LEFT JOIN p_values pd ON pd.rule_set_a = j.rule_set_a AND pd.rule_set_b = j.rule_set_b AND pd.what = 'draw'
LEFT JOIN share_tests sc ON sc.rule_set_a = j.rule_set_a AND sc.rule_set_b = j.rule_set_b AND sc.what = 'cycle'
LEFT JOIN p_values pc ON pc.rule_set_a = j.rule_set_a AND pc.rule_set_b = j.rule_set_b AND pc.what = 'cycle'
ORDER BY j.ord_a, j.ord_b;
