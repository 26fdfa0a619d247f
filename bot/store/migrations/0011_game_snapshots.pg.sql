-- 11: a snapshot of each long active game's state, so that rebuilding it
-- (after it dropped out of a process's memory, or in another process)
-- replays only the actions logged after it. Written with the actions every
-- so many actions (bot.core.games), in the same transaction; deleted when
-- the game ends. ``format`` is the engine's snapshot format
-- (engine.snapshot.FORMAT): a snapshot of another one is never read.
CREATE TABLE game_snapshots (
    game_id    BIGINT  PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    format     INTEGER NOT NULL,
    state      TEXT    NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
);
