-- transferd schema on PostgreSQL, version 28: the tasks that still name a multipart upload (see the SQLite migration
-- of the same name).
CREATE INDEX tasks_object_uploads ON tasks (id) WHERE object_upload IS NOT NULL;
