-- transferd schema, version 5: retries. Each task keeps its attempt history and why it waits.

ALTER TABLE tasks ADD COLUMN attempts TEXT NOT NULL DEFAULT '[]'; -- JSON: [TransferAttempt]
ALTER TABLE tasks ADD COLUMN waiting_reason TEXT;                 -- why a running task waits for next_attempt_at
