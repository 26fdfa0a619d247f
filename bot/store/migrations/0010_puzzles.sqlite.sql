-- 10: puzzles, drills, the analyses' details and each rated match's points
-- An analysis keeps, beside its text, the numbers behind it (JSON): each
-- move's winning and gammon chances and the luck of its roll, and each
-- mistake with its position and the equity of the plays (or cube actions)
-- it had to choose from. Charts, puzzles and drills read them.
ALTER TABLE game_analyses ADD COLUMN detail TEXT;

-- The points a rated match won or lost for the player (net, stake included).
ALTER TABLE rating_history ADD COLUMN points INTEGER;
UPDATE rating_history SET points = (
    SELECT (CASE WHEN g.player0 = rating_history.user_id THEN g.score0 - g.score1 ELSE g.score1 - g.score0 END)
         * (CASE WHEN g.match_length = 0 THEN COALESCE(CAST(json_extract(g.settings, '$.stake') AS INTEGER), 1) ELSE 1 END)
    FROM games g WHERE g.id = rating_history.game_id
);

-- A server's puzzles: the daily one (one a day) and the extra ones asked for;
-- a position is never a puzzle twice in a server.
CREATE TABLE puzzles (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id     INTEGER NOT NULL,
    kind         TEXT    NOT NULL CHECK (kind IN ('daily', 'extra')),
    day          TEXT,                -- YYYY-MM-DD (UTC) of a daily puzzle
    position_key TEXT    NOT NULL,    -- the position's GNU Backgammon ID (with dice, cube, score)
    game_id      INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    game_number  INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,    -- the member who erred there
    payload      TEXT    NOT NULL,    -- the position, the choices and their equities (JSON)
    channel_id   INTEGER,
    message_id   INTEGER,
    created_at   REAL    NOT NULL,
    reveal_at    REAL,
    revealed_at  REAL,
    UNIQUE (guild_id, position_key)
);

CREATE UNIQUE INDEX puzzles_one_a_day ON puzzles (guild_id, day) WHERE kind = 'daily';
CREATE INDEX puzzles_due_reveal ON puzzles (reveal_at) WHERE revealed_at IS NULL AND reveal_at IS NOT NULL;

-- One answer per member and puzzle.
CREATE TABLE puzzle_answers (
    puzzle_id   INTEGER NOT NULL REFERENCES puzzles (id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL,
    choice      INTEGER NOT NULL,
    correct     INTEGER NOT NULL CHECK (correct IN (0, 1)),
    equity_lost REAL    NOT NULL,
    answered_at REAL    NOT NULL,
    PRIMARY KEY (puzzle_id, user_id)
) WITHOUT ROWID;

-- Each member's daily puzzles in a server, counted at each reveal.
CREATE TABLE puzzle_scores (
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    answered    INTEGER NOT NULL DEFAULT 0,
    correct     INTEGER NOT NULL DEFAULT 0,
    streak      INTEGER NOT NULL DEFAULT 0,
    best_streak INTEGER NOT NULL DEFAULT 0,
    updated_at  REAL    NOT NULL,
    PRIMARY KEY (guild_id, user_id)
) WITHOUT ROWID;

CREATE INDEX puzzle_scores_board ON puzzle_scores (guild_id, correct DESC);

-- A member's own errors, served again until answered right (spaced repetition):
-- box 0 is due now, each right answer moves it up a box and further off; NULL due: learned.
CREATE TABLE drills (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id      INTEGER NOT NULL,
    position_key TEXT    NOT NULL,
    game_id      INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    payload      TEXT    NOT NULL,
    box          INTEGER NOT NULL DEFAULT 0,
    due_at       REAL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    created_at   REAL    NOT NULL,
    UNIQUE (user_id, position_key)
);

CREATE INDEX drills_due ON drills (user_id, due_at);
