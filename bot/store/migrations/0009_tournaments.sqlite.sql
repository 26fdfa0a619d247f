-- 9: server tournaments (knockout, round robin, Swiss): the tournament, its entrants,
--    and each round's tables with the game played at them and the result. A round
--    advances once: the tournament's round moves on by a conditional update, and
--    each table of a round is unique.
CREATE TABLE tournaments (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id       INTEGER NOT NULL,
    channel_id     INTEGER NOT NULL,  -- where it is announced and its matches get their threads
    message_id     INTEGER,           -- the announcement
    organiser      INTEGER NOT NULL,
    name           TEXT    NOT NULL,
    format         TEXT    NOT NULL CHECK (format IN ('knockout', 'round_robin', 'swiss')),
    settings       TEXT    NOT NULL DEFAULT '{}',  -- match length, time per move and round, seeding, ... (JSON)
    status         TEXT    NOT NULL DEFAULT 'signup'
                   CHECK (status IN ('signup', 'running', 'finished', 'cancelled')),
    round          INTEGER NOT NULL DEFAULT 0 CHECK (round >= 0),
    rounds         INTEGER NOT NULL DEFAULT 0 CHECK (rounds >= 0),
    starts_at      REAL,              -- sign-up closes and it starts (NULL: started by hand)
    round_deadline REAL,              -- the current round's matches are decided by then
    champion       INTEGER,
    created_at     REAL    NOT NULL,
    updated_at     REAL    NOT NULL,
    finished_at    REAL
);

CREATE INDEX tournaments_by_guild ON tournaments (guild_id, status);
CREATE INDEX tournaments_starting ON tournaments (starts_at) WHERE status = 'signup';
CREATE INDEX tournaments_round_due ON tournaments (round_deadline) WHERE status = 'running';

CREATE TABLE tournament_entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL,
    seed          INTEGER,            -- 1 for the best, fixed at the start
    rating        REAL,               -- the server rating at the start (seeding)
    status        TEXT    NOT NULL DEFAULT 'in' CHECK (status IN ('in', 'withdrawn')),
    left_round    INTEGER,            -- the round a player withdrew in
    place         INTEGER,            -- the final standing, once finished
    joined_at     REAL    NOT NULL,
    PRIMARY KEY (tournament_id, user_id)
);

CREATE INDEX tournament_entrants_by_user ON tournament_entrants (user_id);

CREATE TABLE tournament_pairings (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round         INTEGER NOT NULL CHECK (round >= 1),
    table_no      INTEGER NOT NULL CHECK (table_no >= 0),
    player_a      INTEGER NOT NULL,
    player_b      INTEGER,            -- NULL: a bye for player_a
    thread_id     INTEGER,            -- the match's thread, once made
    game_id       INTEGER REFERENCES games (id),
    winner        INTEGER,
    outcome       TEXT CHECK (outcome IN ('bye', 'won', 'forfeit', 'void')),  -- NULL: still to decide
    decided_at    REAL,
    UNIQUE (tournament_id, round, table_no)
);

CREATE UNIQUE INDEX tournament_pairings_by_game ON tournament_pairings (game_id);
CREATE INDEX tournament_pairings_undecided ON tournament_pairings (tournament_id, round) WHERE outcome IS NULL;
