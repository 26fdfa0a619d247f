-- 16: a rating per game family
-- Backgammon and its presets (nackgammon, tavla, takhteh, portes) keep the
-- ratings table; plakoto, fevga, long nardy and tavli each have a table of the
-- same shape (a player's rating in one game says nothing of the others). The
-- rating history says which family each move belongs to, so a member's chart
-- shows one game's rating.

CREATE TABLE ratings_plakoto (
    scope       BIGINT  NOT NULL,
    user_id     BIGINT  NOT NULL REFERENCES players (user_id),
    rating      DOUBLE PRECISION NOT NULL DEFAULT 1500,
    experience  BIGINT  NOT NULL DEFAULT 0,
    games       BIGINT  NOT NULL DEFAULT 0,
    wins        BIGINT  NOT NULL DEFAULT 0,
    gammons     BIGINT  NOT NULL DEFAULT 0,
    backgammons BIGINT  NOT NULL DEFAULT 0,
    points_won  BIGINT  NOT NULL DEFAULT 0,
    points_lost BIGINT  NOT NULL DEFAULT 0,
    best_rating DOUBLE PRECISION NOT NULL DEFAULT 1500,
    updated_at  DOUBLE PRECISION NOT NULL DEFAULT (EXTRACT(EPOCH FROM clock_timestamp())::double precision),
    PRIMARY KEY (scope, user_id)
);

CREATE INDEX ratings_plakoto_standing ON ratings_plakoto (scope, rating DESC, games DESC, user_id);
CREATE INDEX ratings_plakoto_standing_by_points ON ratings_plakoto (scope, points_won DESC, rating DESC, games DESC, user_id);

CREATE TABLE ratings_fevga (
    scope       BIGINT  NOT NULL,
    user_id     BIGINT  NOT NULL REFERENCES players (user_id),
    rating      DOUBLE PRECISION NOT NULL DEFAULT 1500,
    experience  BIGINT  NOT NULL DEFAULT 0,
    games       BIGINT  NOT NULL DEFAULT 0,
    wins        BIGINT  NOT NULL DEFAULT 0,
    gammons     BIGINT  NOT NULL DEFAULT 0,
    backgammons BIGINT  NOT NULL DEFAULT 0,
    points_won  BIGINT  NOT NULL DEFAULT 0,
    points_lost BIGINT  NOT NULL DEFAULT 0,
    best_rating DOUBLE PRECISION NOT NULL DEFAULT 1500,
    updated_at  DOUBLE PRECISION NOT NULL DEFAULT (EXTRACT(EPOCH FROM clock_timestamp())::double precision),
    PRIMARY KEY (scope, user_id)
);

CREATE INDEX ratings_fevga_standing ON ratings_fevga (scope, rating DESC, games DESC, user_id);
CREATE INDEX ratings_fevga_standing_by_points ON ratings_fevga (scope, points_won DESC, rating DESC, games DESC, user_id);

CREATE TABLE ratings_nardy (
    scope       BIGINT  NOT NULL,
    user_id     BIGINT  NOT NULL REFERENCES players (user_id),
    rating      DOUBLE PRECISION NOT NULL DEFAULT 1500,
    experience  BIGINT  NOT NULL DEFAULT 0,
    games       BIGINT  NOT NULL DEFAULT 0,
    wins        BIGINT  NOT NULL DEFAULT 0,
    gammons     BIGINT  NOT NULL DEFAULT 0,
    backgammons BIGINT  NOT NULL DEFAULT 0,
    points_won  BIGINT  NOT NULL DEFAULT 0,
    points_lost BIGINT  NOT NULL DEFAULT 0,
    best_rating DOUBLE PRECISION NOT NULL DEFAULT 1500,
    updated_at  DOUBLE PRECISION NOT NULL DEFAULT (EXTRACT(EPOCH FROM clock_timestamp())::double precision),
    PRIMARY KEY (scope, user_id)
);

CREATE INDEX ratings_nardy_standing ON ratings_nardy (scope, rating DESC, games DESC, user_id);
CREATE INDEX ratings_nardy_standing_by_points ON ratings_nardy (scope, points_won DESC, rating DESC, games DESC, user_id);

CREATE TABLE ratings_tavli (
    scope       BIGINT  NOT NULL,
    user_id     BIGINT  NOT NULL REFERENCES players (user_id),
    rating      DOUBLE PRECISION NOT NULL DEFAULT 1500,
    experience  BIGINT  NOT NULL DEFAULT 0,
    games       BIGINT  NOT NULL DEFAULT 0,
    wins        BIGINT  NOT NULL DEFAULT 0,
    gammons     BIGINT  NOT NULL DEFAULT 0,
    backgammons BIGINT  NOT NULL DEFAULT 0,
    points_won  BIGINT  NOT NULL DEFAULT 0,
    points_lost BIGINT  NOT NULL DEFAULT 0,
    best_rating DOUBLE PRECISION NOT NULL DEFAULT 1500,
    updated_at  DOUBLE PRECISION NOT NULL DEFAULT (EXTRACT(EPOCH FROM clock_timestamp())::double precision),
    PRIMARY KEY (scope, user_id)
);

CREATE INDEX ratings_tavli_standing ON ratings_tavli (scope, rating DESC, games DESC, user_id);
CREATE INDEX ratings_tavli_standing_by_points ON ratings_tavli (scope, points_won DESC, rating DESC, games DESC, user_id);

ALTER TABLE rating_history ADD COLUMN family TEXT NOT NULL DEFAULT 'backgammon';
