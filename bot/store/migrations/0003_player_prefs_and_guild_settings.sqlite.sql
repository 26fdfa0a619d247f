-- 3: player preferences and guild settings
ALTER TABLE players ADD COLUMN prefs TEXT NOT NULL DEFAULT '{}';

CREATE TABLE guild_settings (
    guild_id   INTEGER PRIMARY KEY,
    settings   TEXT NOT NULL DEFAULT '{}',
    updated_at REAL NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0)
);
