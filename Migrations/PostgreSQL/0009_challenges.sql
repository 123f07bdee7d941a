-- transferd schema on PostgreSQL, version 9: authentication challenges. A task's pending challenge and the
-- credentials given for its protection spaces, and those a session keeps for its own (JSON; credentials sealed
-- with AES-GCM).
ALTER TABLE tasks ADD COLUMN challenge TEXT;
ALTER TABLE tasks ADD COLUMN credentials TEXT;
ALTER TABLE sessions ADD COLUMN credentials TEXT;
