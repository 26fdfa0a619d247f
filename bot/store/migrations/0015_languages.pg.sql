-- 15: the language each member reads
-- locale: the Discord locale of the member's latest interaction, remembered
-- only when it changes; language: the one they chose (/bg settings language),
-- which wins over the locale. Messages with no interaction (reminders,
-- digests, direct messages) are worded in it. A server's language is a key of
-- its settings (guild_settings), not a column.
ALTER TABLE players ADD COLUMN locale TEXT;
ALTER TABLE players ADD COLUMN language TEXT;
