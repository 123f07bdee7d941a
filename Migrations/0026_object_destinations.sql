-- A download's destination (NULL: the data directory; JSON {"storage", "key"}: an object in a tenant's store), and
-- the object's multipart upload while it is under way (JSON: its id, part size and acknowledged parts).
ALTER TABLE tasks ADD COLUMN destination TEXT;
ALTER TABLE tasks ADD COLUMN object_upload TEXT;
