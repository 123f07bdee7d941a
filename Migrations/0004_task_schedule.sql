-- transferd schema, version 4: when a queued task may run.

ALTER TABLE tasks ADD COLUMN earliest_begin_date TEXT; -- the client's earliestBeginDate, or NULL
ALTER TABLE tasks ADD COLUMN next_attempt_at TEXT;     -- the scheduler does not start the task before this, or NULL
