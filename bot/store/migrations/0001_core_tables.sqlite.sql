-- 1: core tables
CREATE TABLE players (
    user_id      INTEGER PRIMARY KEY,
    display_name TEXT    NOT NULL DEFAULT '',
    is_bot       INTEGER NOT NULL DEFAULT 0 CHECK (is_bot IN (0, 1)),
    created_at   REAL    NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0),
    updated_at   REAL    NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0)
);

CREATE TABLE games (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id         INTEGER NOT NULL DEFAULT 0,
    channel_id       INTEGER NOT NULL,
    player0          INTEGER NOT NULL REFERENCES players (user_id),
    player1          INTEGER NOT NULL REFERENCES players (user_id),
    settings         TEXT    NOT NULL DEFAULT '{}',
    status           TEXT    NOT NULL DEFAULT 'active'
                     CHECK (status IN ('active', 'finished', 'abandoned')),
    match_length     INTEGER NOT NULL DEFAULT 0 CHECK (match_length >= 0),
    score0           INTEGER NOT NULL DEFAULT 0,
    score1           INTEGER NOT NULL DEFAULT 0,
    version          INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
    turn_deadline    REAL,
    reminder_at      REAL,
    reminder_sent    INTEGER NOT NULL DEFAULT 0 CHECK (reminder_sent IN (0, 1)),
    result           TEXT,
    winner           INTEGER,
    board_channel_id INTEGER,
    board_message_id INTEGER,
    created_at       REAL    NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0),
    updated_at       REAL    NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0),
    finished_at      REAL
);

-- At most one active game per channel (a thread is its own channel).
CREATE UNIQUE INDEX games_one_active_per_channel
    ON games (channel_id) WHERE status = 'active';

CREATE TABLE actions (
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    actor      INTEGER,
    kind       TEXT    NOT NULL,
    action     TEXT    NOT NULL,
    die1       INTEGER CHECK (die1 BETWEEN 1 AND 6),
    die2       INTEGER CHECK (die2 BETWEEN 1 AND 6),
    play       TEXT,
    created_at REAL    NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0),
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;

-- The log is append-only.
CREATE TRIGGER actions_append_only BEFORE UPDATE ON actions
BEGIN
    SELECT RAISE(ABORT, 'actions are append-only');
END;

CREATE TABLE challenges (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id     INTEGER NOT NULL DEFAULT 0,
    channel_id   INTEGER NOT NULL,
    challenger   INTEGER NOT NULL REFERENCES players (user_id),
    challenged   INTEGER REFERENCES players (user_id),
    settings     TEXT    NOT NULL DEFAULT '{}',
    match_length INTEGER NOT NULL DEFAULT 0 CHECK (match_length >= 0),
    status       TEXT    NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'accepted', 'declined',
                                   'cancelled', 'expired')),
    game_id      INTEGER REFERENCES games (id),
    message_id   INTEGER,
    created_at   REAL    NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0),
    updated_at   REAL    NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0),
    expires_at   REAL
);

CREATE INDEX challenges_pending_by_channel
    ON challenges (channel_id) WHERE status = 'pending';
