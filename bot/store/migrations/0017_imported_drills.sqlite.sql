-- 17: drills from games imported from a .mat file
-- A drill of an imported game has no game here (game_id NULL); source says where it
-- came from ('import'; NULL: a game played here). SQLite cannot drop a NOT NULL
-- in place: the table is copied into its new shape.
CREATE TABLE drills_new (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id      INTEGER NOT NULL,
    position_key TEXT    NOT NULL,
    game_id      INTEGER REFERENCES games (id) ON DELETE CASCADE,
    payload      TEXT    NOT NULL,
    box          INTEGER NOT NULL DEFAULT 0,
    due_at       REAL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    created_at   REAL    NOT NULL,
    source       TEXT,
    UNIQUE (user_id, position_key)
);
INSERT INTO drills_new (id, user_id, position_key, game_id, payload, box, due_at, attempts, created_at)
    SELECT id, user_id, position_key, game_id, payload, box, due_at, attempts, created_at FROM drills;
DROP TABLE drills;
ALTER TABLE drills_new RENAME TO drills;
CREATE INDEX drills_due ON drills (user_id, due_at);
