-- 15: reserved (branch s2-variants): branch s2-i18n holds migration 15 (languages); this
-- no-op only keeps the numbering without gaps until the merge drops it for theirs.
SELECT 1;
