-- transferd schema, version 16: a download's own redirect policy (follow, sameOrigin, none); NULL takes its
-- session's.
ALTER TABLE tasks ADD COLUMN redirect_policy TEXT;
