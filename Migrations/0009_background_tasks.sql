-- transferd schema, version 9: finite-length background tasks (beginBackgroundTask) and idempotent creation.

CREATE TABLE background_tasks (
    id                 INTEGER PRIMARY KEY,
    public_id          TEXT    NOT NULL UNIQUE,  -- the {id} of …/background-tasks/{id}
    session_id         INTEGER NOT NULL REFERENCES sessions (id),
    name               TEXT    NOT NULL,
    state              TEXT    NOT NULL CHECK (state IN ('active', 'ended', 'completed', 'expired')),
    granted_duration   REAL    NOT NULL,         -- seconds
    expiration_warning REAL    NOT NULL,         -- seconds before expires_at that background_task.expiring is written
    expires_at         TEXT    NOT NULL,         -- wall clock, so that a deadline survives restarts
    warned             INTEGER NOT NULL DEFAULT 0,
    created_at         TEXT    NOT NULL,
    ended_at           TEXT
);

CREATE INDEX background_tasks_active ON background_tasks (state, expires_at);

-- The background task a transfer belongs to, and the error a pending cancellation completes it with.
ALTER TABLE tasks ADD COLUMN background_task TEXT;  -- background_tasks.public_id
CREATE INDEX tasks_by_background_task ON tasks (background_task) WHERE background_task IS NOT NULL;
ALTER TABLE tasks ADD COLUMN cancellation TEXT; -- JSON: TransferError, when not the plain `cancelled`

-- Responses of creating requests, replayed to a retry with the same Idempotency-Key for 24 hours.
CREATE TABLE idempotency_keys (
    tenant_id    INTEGER NOT NULL,
    key          TEXT    NOT NULL,
    fingerprint  TEXT    NOT NULL,  -- SHA-256 of the method, path and body
    status       INTEGER,           -- NULL while the first request is being handled
    headers      TEXT,              -- JSON: [[name, value]]
    body         BLOB,
    created_at   TEXT    NOT NULL,
    PRIMARY KEY (tenant_id, key)
);
