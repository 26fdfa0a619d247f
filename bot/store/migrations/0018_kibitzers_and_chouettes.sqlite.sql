-- 18: kibitzer polls and chouette sessions
-- While a player thinks, onlookers answer privately what they would play. A poll
-- is one decision of one game (the game's version when it was asked), opened by
-- its first answer; revealed once, after the player acted, in the transaction
-- that owes the reveal's message. ``verdict``: the net's equity of each answer
-- (JSON), ``chosen``: what the player did.
CREATE TABLE kibitzer_polls (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    version     INTEGER NOT NULL,
    guild_id    INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    player_id   INTEGER NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('play', 'cube', 'take')),
    position_id TEXT    NOT NULL,
    answers     TEXT    NOT NULL,
    chosen      TEXT,
    verdict     TEXT,
    created_at  REAL    NOT NULL,
    revealed_at REAL,
    PRIMARY KEY (game_id, version)
);
CREATE INDEX kibitzer_polls_open ON kibitzer_polls (game_id) WHERE revealed_at IS NULL;

-- One answer per onlooker and poll (changed freely until the reveal); ``agreed``:
-- whether it was the net's choice, set at the reveal.
CREATE TABLE kibitzer_votes (
    game_id     INTEGER NOT NULL,
    version     INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    guild_id    INTEGER NOT NULL,
    answer      TEXT    NOT NULL,
    agreed      INTEGER,
    answered_at REAL    NOT NULL,
    PRIMARY KEY (game_id, version, user_id),
    FOREIGN KEY (game_id, version) REFERENCES kibitzer_polls (game_id, version) ON DELETE CASCADE
);
CREATE INDEX kibitzer_votes_by_guild ON kibitzer_votes (guild_id, user_id);

-- Chouette sessions: the players in their first order, the options, and every
-- action since (JSON), replayed through engine.chouette; each action is appended
-- by compare-and-set on the version, so two clicks racing have one winner.
CREATE TABLE chouettes (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id    INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    players     TEXT    NOT NULL,
    options     TEXT    NOT NULL,
    log         TEXT    NOT NULL,
    version     INTEGER NOT NULL DEFAULT 0,
    status      TEXT    NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL
);
CREATE UNIQUE INDEX chouettes_one_per_channel ON chouettes (channel_id) WHERE status = 'active';
