-- 4: game analyses
CREATE TABLE game_analyses (
    game_id     BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    game_number INTEGER NOT NULL,
    ply         INTEGER NOT NULL,
    summary     TEXT NOT NULL,
    created_at  DOUBLE PRECISION NOT NULL DEFAULT (EXTRACT(EPOCH FROM clock_timestamp())::double precision),
    PRIMARY KEY (game_id, game_number)
);
