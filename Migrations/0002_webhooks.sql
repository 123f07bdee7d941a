-- transferd schema, version 2: webhook subscriptions and the durable delivery outbox.

-- One subscriber per session. During a secret rotation the previous secret still signs until it expires.
CREATE TABLE webhooks (
    session_id                 INTEGER PRIMARY KEY REFERENCES sessions (id),
    url                        TEXT    NOT NULL,
    event_types                TEXT,             -- JSON array of event types; NULL delivers every type
    secret                     TEXT    NOT NULL, -- whsec_<base64>
    previous_secret            TEXT,
    previous_secret_expires_at TEXT,
    state                      TEXT    NOT NULL CHECK (state IN ('healthy', 'retrying', 'disabled')),
    created_at                 TEXT    NOT NULL
);

-- The sequence of the newest event the subscriber acknowledged (the completion handler's record).
ALTER TABLE sessions ADD COLUMN last_acknowledged_sequence INTEGER NOT NULL DEFAULT 0;

-- The outbox: a row per event to deliver, written in the event's own transaction.
CREATE TABLE deliveries (
    id              INTEGER PRIMARY KEY,
    session_id      INTEGER NOT NULL REFERENCES sessions (id),
    event_id        INTEGER NOT NULL REFERENCES events (id),
    sequence        INTEGER NOT NULL,
    event_type      TEXT    NOT NULL,
    task_identifier INTEGER,
    message_id      TEXT    NOT NULL UNIQUE, -- the webhook-id header: the same on every attempt
    status          TEXT    NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'coalesced')),
    attempt_count   INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT    NOT NULL,
    last_error      TEXT,
    created_at      TEXT    NOT NULL,
    completed_at    TEXT
);

CREATE INDEX deliveries_by_session ON deliveries (session_id, status, sequence);

CREATE TABLE delivery_attempts (
    id           INTEGER PRIMARY KEY,
    delivery_id  INTEGER NOT NULL REFERENCES deliveries (id),
    attempted_at TEXT    NOT NULL,
    status_code  INTEGER,
    latency_ms   INTEGER NOT NULL,
    error        TEXT
);

CREATE INDEX delivery_attempts_by_delivery ON delivery_attempts (delivery_id, id);
