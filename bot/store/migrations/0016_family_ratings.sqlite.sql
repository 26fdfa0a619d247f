-- 16: a rating per game family
-- Backgammon and its presets (nackgammon, tavla, takhteh, portes) keep the
-- ratings table; plakoto, fevga, long nardy and tavli each have a table of the
-- same shape (a player's rating in one game says nothing of the others). The
-- rating history says which family each move belongs to, so a member's chart
-- shows one game's rating.

CREATE TABLE ratings_plakoto (
    scope       INTEGER NOT NULL,
    user_id     INTEGER NOT NULL REFERENCES players (user_id),
    rating      REAL    NOT NULL DEFAULT 1500,
    experience  INTEGER NOT NULL DEFAULT 0,
    games       INTEGER NOT NULL DEFAULT 0,
    wins        INTEGER NOT NULL DEFAULT 0,
    gammons     INTEGER NOT NULL DEFAULT 0,
    backgammons INTEGER NOT NULL DEFAULT 0,
    points_won  INTEGER NOT NULL DEFAULT 0,
    points_lost INTEGER NOT NULL DEFAULT 0,
    best_rating REAL    NOT NULL DEFAULT 1500,
    updated_at  REAL    NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0),
    PRIMARY KEY (scope, user_id)
) WITHOUT ROWID;

CREATE INDEX ratings_plakoto_standing ON ratings_plakoto (scope, rating DESC, games DESC, user_id);
CREATE INDEX ratings_plakoto_standing_by_points ON ratings_plakoto (scope, points_won DESC, rating DESC, games DESC, user_id);

CREATE TABLE ratings_fevga (
    scope       INTEGER NOT NULL,
    user_id     INTEGER NOT NULL REFERENCES players (user_id),
    rating      REAL    NOT NULL DEFAULT 1500,
    experience  INTEGER NOT NULL DEFAULT 0,
    games       INTEGER NOT NULL DEFAULT 0,
    wins        INTEGER NOT NULL DEFAULT 0,
    gammons     INTEGER NOT NULL DEFAULT 0,
    backgammons INTEGER NOT NULL DEFAULT 0,
    points_won  INTEGER NOT NULL DEFAULT 0,
    points_lost INTEGER NOT NULL DEFAULT 0,
    best_rating REAL    NOT NULL DEFAULT 1500,
    updated_at  REAL    NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0),
    PRIMARY KEY (scope, user_id)
) WITHOUT ROWID;

CREATE INDEX ratings_fevga_standing ON ratings_fevga (scope, rating DESC, games DESC, user_id);
CREATE INDEX ratings_fevga_standing_by_points ON ratings_fevga (scope, points_won DESC, rating DESC, games DESC, user_id);

CREATE TABLE ratings_nardy (
    scope       INTEGER NOT NULL,
    user_id     INTEGER NOT NULL REFERENCES players (user_id),
    rating      REAL    NOT NULL DEFAULT 1500,
    experience  INTEGER NOT NULL DEFAULT 0,
    games       INTEGER NOT NULL DEFAULT 0,
    wins        INTEGER NOT NULL DEFAULT 0,
    gammons     INTEGER NOT NULL DEFAULT 0,
    backgammons INTEGER NOT NULL DEFAULT 0,
    points_won  INTEGER NOT NULL DEFAULT 0,
    points_lost INTEGER NOT NULL DEFAULT 0,
    best_rating REAL    NOT NULL DEFAULT 1500,
    updated_at  REAL    NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0),
    PRIMARY KEY (scope, user_id)
) WITHOUT ROWID;

CREATE INDEX ratings_nardy_standing ON ratings_nardy (scope, rating DESC, games DESC, user_id);
CREATE INDEX ratings_nardy_standing_by_points ON ratings_nardy (scope, points_won DESC, rating DESC, games DESC, user_id);

CREATE TABLE ratings_tavli (
    scope       INTEGER NOT NULL,
    user_id     INTEGER NOT NULL REFERENCES players (user_id),
    rating      REAL    NOT NULL DEFAULT 1500,
    experience  INTEGER NOT NULL DEFAULT 0,
    games       INTEGER NOT NULL DEFAULT 0,
    wins        INTEGER NOT NULL DEFAULT 0,
    gammons     INTEGER NOT NULL DEFAULT 0,
    backgammons INTEGER NOT NULL DEFAULT 0,
    points_won  INTEGER NOT NULL DEFAULT 0,
    points_lost INTEGER NOT NULL DEFAULT 0,
    best_rating REAL    NOT NULL DEFAULT 1500,
    updated_at  REAL    NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0),
    PRIMARY KEY (scope, user_id)
) WITHOUT ROWID;

CREATE INDEX ratings_tavli_standing ON ratings_tavli (scope, rating DESC, games DESC, user_id);
CREATE INDEX ratings_tavli_standing_by_points ON ratings_tavli (scope, points_won DESC, rating DESC, games DESC, user_id);

ALTER TABLE rating_history ADD COLUMN family TEXT NOT NULL DEFAULT 'backgammon';
