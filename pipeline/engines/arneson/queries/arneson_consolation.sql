-- answers: In Arneson's War (docs/rules.md 7), how often do the war loser's consolation cards decide
--   the game? Per rule set (by name, `rule_set`: each seating of a tournament is one) and its
--   seats' policies (games.policies as given): games;
--   games with a war (war_battles > 0); consolation collects and their cards: the loser of a
--   war takes back the two cards that caused it in the second `collect` of a battle with a
--   `war` event, after the winner's collect (decisions.md 16; a war that ends the game, or whose
--   table is set aside, has no consolation); decided games (outcome win); consoled_winners: the
--   decided games whose eventual winner received consolation cards at least once; and
--   consolation_wins: the decided games where the eventual winner later played one of the
--   cards of a consolation it received (a `play` event of that seat with that card in a later
--   battle) in a battle it won (a battle's winner is the seat of its first `collect`). Shares
--   are of the decided games (0..1; null when none). consolation_wins counts games where a
--   consolation card helped win a battle, not proof that it decided the game.
-- summary: In Arneson's War, how often do the war loser's consolation cards decide the game?
WITH arneson AS (
    SELECT game_id, rule_set, variant, rules_id, policies, outcome, winner, war_battles
    FROM games
    WHERE variant = 'arneson'
),
ev AS (
    SELECT game_id, seq, battle, kind, seat, cards
    FROM events
    WHERE battle > 0 AND kind IN ('war', 'collect', 'play')
      AND game_id IN (SELECT game_id FROM arneson)
),
war_battles AS (
    SELECT DISTINCT game_id, battle FROM ev WHERE kind = 'war'
),
war_collects AS (   -- the collects of battles with a war (a battle without one has a single collect)
    SELECT c.game_id, c.battle, c.seat, c.cards,
           row_number() OVER (PARTITION BY c.game_id, c.battle ORDER BY c.seq) AS nth
    FROM ev c
    JOIN war_battles w USING (game_id, battle)
    WHERE c.kind = 'collect'
),
consolations AS (
    SELECT game_id, battle, seat, cards FROM war_collects WHERE nth = 2
),
battle_winners AS (   -- the seat of each battle's first collect: the battles view's winner
    SELECT game_id, battle, winner FROM battles
    WHERE variant = 'arneson' AND winner IS NOT NULL AND game_id IN (SELECT game_id FROM arneson)
),
winner_consolations AS (
    SELECT c.game_id, c.battle, c.seat, unnest(c.cards) AS card
    FROM consolations c
    JOIN arneson g ON g.game_id = c.game_id AND g.outcome = 'win' AND g.winner = c.seat
),
later_plays AS (   -- the plays, in a later battle, of a consolation card by the seat it consoled
    SELECT p.game_id, p.seat, p.battle
    FROM ev p
    JOIN winner_consolations w ON p.game_id = w.game_id AND p.seat = w.seat AND p.cards[1] = w.card
    WHERE p.kind = 'play' AND p.battle > w.battle
),
consolation_won AS (   -- ... in a battle that seat won
    SELECT DISTINCT p.game_id
    FROM later_plays p
    JOIN battle_winners b ON b.game_id = p.game_id AND b.battle = p.battle AND b.winner = p.seat
),
game_consolations AS (
    SELECT game_id, count(*) AS consolations, sum(len(cards)) AS consolation_cards
    FROM consolations
    GROUP BY game_id
),
per_game AS (
    SELECT
        g.rule_set, g.variant, g.rules_id, g.policies, g.game_id, g.outcome, g.war_battles,
        coalesce(c.consolations, 0)                                       AS consolations,
        coalesce(c.consolation_cards, 0)                                  AS consolation_cards,
        g.game_id IN (SELECT game_id FROM winner_consolations)            AS winner_consoled,
        g.game_id IN (SELECT game_id FROM consolation_won)                AS consolation_won
    FROM arneson g
    LEFT JOIN game_consolations c USING (game_id)
)
SELECT
    rule_set,
    variant,
    rules_id,
    policies,
    count(*)                                                   AS games,
    count(*) FILTER (WHERE war_battles > 0)                    AS games_with_war,
    sum(consolations)::BIGINT                                  AS consolation_collects,
    sum(consolation_cards)::BIGINT                             AS consolation_cards,
    count(*) FILTER (WHERE outcome = 'win')                    AS decided_games,
    count(*) FILTER (WHERE winner_consoled)                    AS consoled_winners,
    count(*) FILTER (WHERE winner_consoled)
        / nullif(count(*) FILTER (WHERE outcome = 'win'), 0)::DOUBLE AS consoled_winner_share,
    count(*) FILTER (WHERE consolation_won)                    AS consolation_wins,
    count(*) FILTER (WHERE consolation_won)
        / nullif(count(*) FILTER (WHERE outcome = 'win'), 0)::DOUBLE AS consolation_win_share
FROM per_game
GROUP BY rule_set, variant, rules_id, policies
ORDER BY rule_set_order(rule_set), policies;
