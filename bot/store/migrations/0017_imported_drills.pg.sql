-- 17: drills from games imported from a .mat file
-- A drill of an imported game has no game here (game_id NULL); source says where it
-- came from ('import'; NULL: a game played here).
ALTER TABLE drills ALTER COLUMN game_id DROP NOT NULL;
ALTER TABLE drills ADD COLUMN source TEXT;
