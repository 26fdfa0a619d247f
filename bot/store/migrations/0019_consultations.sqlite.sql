-- 19 (branch s3-cons): consultation games
-- A side played by a team votes on each of its decisions. A vote is one decision
-- of one game (the game's version when it was put), opened with its deadline in
-- the transaction that owes the team's prompt; closed once, in the transaction
-- that owes the tally. ``answers``: the legal choices (JSON), ``chosen``: what the
-- team played (NULL: the game went another way).
CREATE TABLE consultation_votes (
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    seat       INTEGER NOT NULL CHECK (seat IN (0, 1)),
    guild_id   INTEGER NOT NULL,
    thread_id  INTEGER NOT NULL,
    kind       TEXT    NOT NULL CHECK (kind IN ('play', 'cube', 'take', 'resignation')),
    answers    TEXT    NOT NULL,
    deadline   REAL    NOT NULL,
    chosen     TEXT,
    created_at REAL    NOT NULL,
    closed_at  REAL,
    PRIMARY KEY (game_id, version)
);
CREATE INDEX consultation_votes_open ON consultation_votes (deadline) WHERE closed_at IS NULL;

-- One ballot per team member and vote (changed freely until the vote closes).
CREATE TABLE consultation_ballots (
    game_id     INTEGER NOT NULL,
    version     INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    answer      TEXT    NOT NULL,
    answered_at REAL    NOT NULL,
    PRIMARY KEY (game_id, version, user_id),
    FOREIGN KEY (game_id, version) REFERENCES consultation_votes (game_id, version) ON DELETE CASCADE
);
