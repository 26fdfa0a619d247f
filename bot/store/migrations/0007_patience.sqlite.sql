-- 7: Serpent Poker Patience
-- The daily deal of each server and UTC day, drawn from a secret seed
-- (engine.patience.deal_from_seed with the nonce): its SHA-256 is shown with
-- the deal, the seed itself once the day is over. Made on the day's first ask.
CREATE TABLE patience_deals (
    guild_id   INTEGER NOT NULL,
    day        TEXT    NOT NULL,  -- YYYY-MM-DD, UTC
    seed       TEXT    NOT NULL,  -- hex, revealed when the day is over
    commitment TEXT    NOT NULL,  -- SHA-256 of the seed, hex
    nonce      TEXT    NOT NULL,
    deal       TEXT    NOT NULL,  -- the 25 cards in order, "D6 S5 CQ ..."
    created_at REAL    NOT NULL,
    PRIMARY KEY (guild_id, day)
) WITHOUT ROWID;

-- A member's layout of a deal, stored after every card; a compare-and-set on
-- its version, and submitted once (then it never changes).
CREATE TABLE patience_attempts (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL REFERENCES players (user_id),
    kind        TEXT    NOT NULL CHECK (kind IN ('daily', 'hoyle', 'random')),
    day         TEXT,             -- the daily deal's day; NULL for the other kinds
    deal        TEXT    NOT NULL,
    seed        TEXT,             -- a random deal's seed (hex)
    scoring     TEXT    NOT NULL DEFAULT 'english',
    path        TEXT    NOT NULL DEFAULT '',  -- the squares so far, card by card: "D4 D5 ..."
    version     INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
    submitted   INTEGER NOT NULL DEFAULT 0 CHECK (submitted IN (0, 1)),
    score       INTEGER,
    best        INTEGER,
    started_at  REAL    NOT NULL,
    updated_at  REAL    NOT NULL,
    finished_at REAL,
    CHECK ((kind = 'daily') = (day IS NOT NULL))
);

-- One daily attempt, so one submission, per member, server and day.
CREATE UNIQUE INDEX patience_one_daily_per_member
    ON patience_attempts (guild_id, user_id, day) WHERE kind = 'daily';
-- At most one unfinished Hoyle's and one unfinished random layout per member and server.
CREATE UNIQUE INDEX patience_one_open_per_kind
    ON patience_attempts (guild_id, user_id, kind) WHERE submitted = 0 AND kind <> 'daily';
-- A day's leaderboard, and each member's days for streaks.
CREATE INDEX patience_daily_scores
    ON patience_attempts (guild_id, day, score) WHERE submitted = 1;
