-- 14: an outage credited to the games' clocks a batch at a time
-- Coming back after an outage moved every active game's deadline in one
-- transaction: on a store of 100,000 active games it held the write lock for
-- a second and more, and every click waited. Now the outage is written here,
-- with the heartbeat, and the games are credited in batches by id. The cursor
-- (games_after) moves in each batch's own transaction: a crash between two
-- batches resumes where it stopped, and no game is credited twice. A game
-- acted on meanwhile (updated_at after started_at) has new clocks already.
CREATE TABLE clock_credits (
    id          INTEGER PRIMARY KEY,
    shard_count INTEGER NOT NULL CHECK (shard_count >= 1),
    shard_id    INTEGER NOT NULL CHECK (shard_id >= 0),
    gap         REAL NOT NULL,
    since       REAL NOT NULL,
    started_at  REAL NOT NULL,
    games_after INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX games_active_by_id ON games (id) WHERE status = 'active';
