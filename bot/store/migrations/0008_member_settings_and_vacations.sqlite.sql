-- 8: members' notification settings and vacations
-- A member's preferences stay in players.prefs (JSON); digest_at is when their
-- next daily digest is due (NULL: none), claimed with a compare-and-set.
ALTER TABLE players ADD COLUMN digest_at REAL;
CREATE INDEX players_digest_due ON players (digest_at) WHERE digest_at IS NOT NULL;

-- Time away, per server: while it lasts, the member's move clocks wait.
-- paused lists the turns it held up ([game id, version, seconds added]) so an
-- early return gives the unused time back.
CREATE TABLE vacations (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id   INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    starts_at  REAL    NOT NULL,
    ends_at    REAL    NOT NULL,
    paused     TEXT    NOT NULL DEFAULT '[]',
    created_at REAL    NOT NULL
);
CREATE INDEX vacations_by_member ON vacations (guild_id, user_id, ends_at);
CREATE INDEX vacations_by_end ON vacations (ends_at);
