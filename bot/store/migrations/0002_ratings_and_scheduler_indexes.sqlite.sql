-- 2: ratings and scheduler indexes
CREATE TABLE ratings (
    scope       INTEGER NOT NULL,            -- guild id, 0 = global
    user_id     INTEGER NOT NULL REFERENCES players (user_id),
    rating      REAL    NOT NULL DEFAULT 1500,
    experience  INTEGER NOT NULL DEFAULT 0,
    games       INTEGER NOT NULL DEFAULT 0,  -- finished rated matches
    wins        INTEGER NOT NULL DEFAULT 0,
    gammons     INTEGER NOT NULL DEFAULT 0,  -- games won with a gammon
    backgammons INTEGER NOT NULL DEFAULT 0,  -- games won with a backgammon
    points_won  INTEGER NOT NULL DEFAULT 0,
    points_lost INTEGER NOT NULL DEFAULT 0,
    best_rating REAL    NOT NULL DEFAULT 1500,
    updated_at  REAL    NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0),
    PRIMARY KEY (scope, user_id)
) WITHOUT ROWID;

CREATE INDEX ratings_by_rating ON ratings (scope, rating DESC);
CREATE INDEX ratings_by_points ON ratings (scope, points_won DESC);

CREATE TABLE rating_history (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id          INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    scope            INTEGER NOT NULL,
    user_id          INTEGER NOT NULL,
    rating_before    REAL    NOT NULL,
    rating_after     REAL    NOT NULL,
    experience_after INTEGER NOT NULL,
    won              INTEGER NOT NULL CHECK (won IN (0, 1)),
    created_at       REAL    NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0),
    UNIQUE (game_id, scope, user_id)
);

CREATE INDEX rating_history_by_user ON rating_history (scope, user_id, id);

CREATE INDEX games_by_player0 ON games (player0, status, guild_id);
CREATE INDEX games_by_player1 ON games (player1, status, guild_id);
CREATE INDEX games_due_deadline ON games (turn_deadline)
    WHERE status = 'active' AND turn_deadline IS NOT NULL;
CREATE INDEX games_due_reminder ON games (reminder_at)
    WHERE status = 'active' AND reminder_sent = 0 AND reminder_at IS NOT NULL;
CREATE INDEX challenges_due_expiry ON challenges (expires_at)
    WHERE status = 'pending' AND expires_at IS NOT NULL;
CREATE INDEX actions_rolls_by_actor ON actions (actor) WHERE die1 IS NOT NULL;
