-- 12: each member's dice counted once a game ends; the standings in index order; whose turn it is
-- `/bg dice` used to count a member's rolls in the action log: tens of
-- thousands of rows for a busy member of a store with a million games. The
-- finished games' rolls are counted here by the transaction that ends the
-- game (per server, member and roll, the larger die first); the few games
-- still played are counted from their logs when asked.
CREATE TABLE dice_counts (
    user_id  BIGINT NOT NULL,
    guild_id BIGINT NOT NULL,
    hi       INTEGER NOT NULL CHECK (hi BETWEEN 1 AND 6),
    lo       INTEGER NOT NULL CHECK (lo BETWEEN 1 AND hi),
    n        INTEGER NOT NULL CHECK (n >= 0),
    PRIMARY KEY (user_id, guild_id, hi, lo)
);

INSERT INTO dice_counts (user_id, guild_id, hi, lo, n)
SELECT a.actor, g.guild_id,
       CASE WHEN a.die1 >= a.die2 THEN a.die1 ELSE a.die2 END,
       CASE WHEN a.die1 >= a.die2 THEN a.die2 ELSE a.die1 END,
       COUNT(*)
FROM actions a JOIN games g ON g.id = a.game_id
WHERE g.status <> 'active' AND a.actor IS NOT NULL AND a.die1 IS NOT NULL
GROUP BY 1, 2, 3, 4;

-- Only that count read the log by who rolled: every roll paid for this index.
DROP INDEX actions_rolls_by_actor;

-- The standings read in index order alone: a deep page of a big server's
-- leaderboard, and a member's rank among the global 50,000, count index
-- entries instead of visiting each member's row (ties as the pages break them).
CREATE INDEX ratings_standing ON ratings (scope, rating DESC, games DESC, user_id);
CREATE INDEX ratings_standing_by_points ON ratings (scope, points_won DESC, rating DESC, games DESC, user_id);
DROP INDEX ratings_by_rating;
DROP INDEX ratings_by_points;

-- Whose turn it is (the seat, 0 or 1), kept with every action: `/bg games`
-- lists a member's games from their rows instead of rebuilding each match.
-- NULL for a finished game, and for one last moved before this column (the
-- bot fills it in the first time it rebuilds that game).
ALTER TABLE games ADD COLUMN turn INTEGER CHECK (turn IN (0, 1));
