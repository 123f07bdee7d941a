-- transferd schema, version 6: resumable downloads, segmented downloads and bandwidth limits.

-- The checkpoint of tasks/<id>.part: bytes known to be flushed to disk. After a crash the file is cut back to it.
ALTER TABLE tasks ADD COLUMN partial_bytes INTEGER NOT NULL DEFAULT 0;
-- JSON: ResumeValidator of the response the partial bytes came from; NULL when they cannot be continued.
ALTER TABLE tasks ADD COLUMN resume_validator TEXT;
-- Why the transfer cannot be continued with a range request (noValidator, noAcceptRanges, …), or NULL.
ALTER TABLE tasks ADD COLUMN not_resumable_reason TEXT;
-- Set by a cancel that asked for resume data: the completion keeps the partial file and issues a token.
ALTER TABLE tasks ADD COLUMN produce_resume_data INTEGER NOT NULL DEFAULT 0;
-- Parallel range requests for one download (aria2's -x), 1 to 16.
ALTER TABLE tasks ADD COLUMN connections INTEGER NOT NULL DEFAULT 1;
-- The task's own bandwidth limit in bytes per second, or NULL for none.
ALTER TABLE tasks ADD COLUMN max_bytes_per_second INTEGER;

-- Secrets of this installation, generated once. `resume_data` signs resume data tokens.
CREATE TABLE service_keys (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
);

INSERT INTO service_keys (name, value) VALUES ('resume_data', randomblob(32));
