-- 13: a member's finished games, newest first, straight from an index
-- `/bg history` read every game a member ever played to sort them (thousands
-- of rows for a busy member of a store with a million games, each a random
-- read on a cold cache). One index per seat, in the order the pages show,
-- with the server and the opponent in it: a page is the first few entries of
-- two index ranges, filtered without visiting the games.
CREATE INDEX games_history_by_player0 ON games (player0, finished_at DESC, id DESC, guild_id, player1)
    WHERE status <> 'active';
CREATE INDEX games_history_by_player1 ON games (player1, finished_at DESC, id DESC, guild_id, player0)
    WHERE status <> 'active';
