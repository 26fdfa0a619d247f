-- 5: the outbox: a message owed to players is written in the same transaction as
--    the change that owes it, and deleted once delivered (or superseded by a newer one);
--    which version of a game its live board shows; heartbeats: when each shard last
--    had the bot connected to Discord (downtime does not count against deadlines)
CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id        INTEGER NOT NULL DEFAULT 0,
    channel_id      INTEGER NOT NULL,
    game_id         INTEGER REFERENCES games (id) ON DELETE CASCADE,
    challenge_id    INTEGER REFERENCES challenges (id) ON DELETE CASCADE,
    version         INTEGER,
    kind            TEXT    NOT NULL,  -- board, reminder, challenge_expired, notice, or a feature's own
    payload         TEXT    NOT NULL DEFAULT '{}',
    created_at      REAL NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at REAL NOT NULL
);

CREATE INDEX outbox_due ON outbox (next_attempt_at, id);
CREATE INDEX outbox_by_game ON outbox (game_id, id);

ALTER TABLE games ADD COLUMN board_version INTEGER;

CREATE TABLE heartbeats (
    shard_count INTEGER NOT NULL CHECK (shard_count >= 1),
    shard_id    INTEGER NOT NULL CHECK (shard_id >= 0),
    seen_at     REAL NOT NULL,
    PRIMARY KEY (shard_count, shard_id)
) WITHOUT ROWID;
