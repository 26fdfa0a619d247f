-- 6: game summaries and challenge quotas
-- What a finished game leaves behind, worked out once when it ends (in the
-- transaction that ends it): the commands that look back at a game read this
-- instead of replaying its log. Older games get theirs the first time asked.
CREATE TABLE game_summaries (
    game_id    BIGINT  PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    card       TEXT    NOT NULL,  -- result, score, each game's result, final position (JSON)
    games      TEXT    NOT NULL,  -- each game's settings, score at its start and log (JSON): replays, analyses
    mat        TEXT    NOT NULL,  -- the .mat export
    export     TEXT    NOT NULL,  -- the JSON export
    created_at DOUBLE PRECISION NOT NULL DEFAULT (EXTRACT(EPOCH FROM clock_timestamp())::double precision)
);

-- A challenge is refused when its challenger or its target already has a few
-- waiting for an answer: these count them.
CREATE INDEX challenges_pending_by_challenger
    ON challenges (challenger) WHERE status = 'pending';
CREATE INDEX challenges_pending_by_challenged
    ON challenges (challenged) WHERE status = 'pending';
