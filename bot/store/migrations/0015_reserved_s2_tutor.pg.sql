-- 15: reserved (branch s2-tutor): other branches hold migration 15; this no-op only keeps
-- the numbering without gaps until the merge drops it for theirs.
SELECT 1;
