-- transferd schema, version 1: sessions, their transfer tasks, and the durable per-session event log.

CREATE TABLE sessions (
    id                   INTEGER PRIMARY KEY,
    identifier           TEXT    NOT NULL,
    state                TEXT    NOT NULL CHECK (state IN ('active', 'invalidating', 'invalidated')),
    cancel_on_invalidate INTEGER NOT NULL DEFAULT 0,
    configuration        TEXT    NOT NULL, -- JSON: SessionConfiguration
    last_sequence        INTEGER NOT NULL DEFAULT 0,
    last_task_identifier INTEGER NOT NULL DEFAULT 0,
    created_at           TEXT    NOT NULL,
    invalidated_at       TEXT
);

-- At most one live session per identifier; an invalidated identifier can be used again.
CREATE UNIQUE INDEX sessions_live_identifier ON sessions (identifier) WHERE state <> 'invalidated';
CREATE INDEX sessions_by_identifier ON sessions (identifier, id);

CREATE TABLE tasks (
    id                      INTEGER PRIMARY KEY,
    session_id              INTEGER NOT NULL REFERENCES sessions (id),
    task_identifier         INTEGER NOT NULL,
    kind                    TEXT    NOT NULL CHECK (kind IN ('download')),
    state                   TEXT    NOT NULL CHECK (state IN ('suspended', 'running', 'canceling', 'completed')),
    task_description        TEXT,
    priority                REAL    NOT NULL,
    original_request        TEXT    NOT NULL, -- JSON: TransferRequest
    origin                  TEXT    NOT NULL, -- host:port of the URL, for per-host limits and fair turns
    current_url             TEXT,
    response                TEXT,             -- JSON: TransferResponse
    count_of_bytes_received INTEGER NOT NULL DEFAULT 0,
    count_of_bytes_expected INTEGER NOT NULL DEFAULT -1,
    error                   TEXT,             -- JSON: TransferError
    file                    TEXT,             -- JSON: StoredFile
    created_at              TEXT    NOT NULL,
    started_at              TEXT,
    completed_at            TEXT,
    UNIQUE (session_id, task_identifier)
);

-- The scheduler's queue: running tasks by priority, then creation order.
CREATE INDEX tasks_queue ON tasks (state, priority DESC, id);

CREATE TABLE events (
    id              INTEGER PRIMARY KEY,
    session_id      INTEGER NOT NULL REFERENCES sessions (id),
    sequence        INTEGER NOT NULL,
    type            TEXT    NOT NULL,
    task_identifier INTEGER,
    data            TEXT    NOT NULL, -- JSON object
    created_at      TEXT    NOT NULL,
    UNIQUE (session_id, sequence)
);
