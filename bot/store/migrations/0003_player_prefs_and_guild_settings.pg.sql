-- 3: player preferences and guild settings
ALTER TABLE players ADD COLUMN prefs TEXT NOT NULL DEFAULT '{}';

CREATE TABLE guild_settings (
    guild_id   BIGINT PRIMARY KEY,
    settings   TEXT NOT NULL DEFAULT '{}',
    updated_at DOUBLE PRECISION NOT NULL DEFAULT (EXTRACT(EPOCH FROM clock_timestamp())::double precision)
);
