-- 11: each member's dice, counted once a game ends
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
