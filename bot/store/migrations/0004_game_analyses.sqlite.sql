-- 4: game analyses
CREATE TABLE game_analyses (
    game_id     INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    game_number INTEGER NOT NULL,
    ply         INTEGER NOT NULL,
    summary     TEXT NOT NULL,
    created_at  REAL NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0),
    PRIMARY KEY (game_id, game_number)
);
