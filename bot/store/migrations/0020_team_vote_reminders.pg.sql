-- 20 (branch s4-teams): a team vote nobody has answered is reminded once
-- ``remind_at``: when the team's thread is reminded of its open vote if nobody has
-- voted yet (halfway to the vote's close); NULL once the reminder is claimed (in the
-- transaction that owes it), and for votes opened before this column.
ALTER TABLE consultation_votes ADD COLUMN remind_at DOUBLE PRECISION;
CREATE INDEX consultation_votes_remind ON consultation_votes (remind_at) WHERE remind_at IS NOT NULL;
