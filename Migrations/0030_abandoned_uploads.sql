-- transferd schema, version 30: the tasks that still name a multipart upload, which the aborter walks by id.
CREATE INDEX tasks_object_uploads ON tasks (id) WHERE object_upload IS NOT NULL;
