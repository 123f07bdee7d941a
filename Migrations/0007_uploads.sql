-- transferd schema, version 7: staged files (tus uploads into transferd), upload tasks and their replies.

-- Files clients stage for upload tasks: created by tus (POST, then PATCHes) or by one plain request.
CREATE TABLE files (
    id            INTEGER PRIMARY KEY,            -- names the file on disk (files/<id>); never client input
    public_id     TEXT    NOT NULL UNIQUE,        -- the {id} of /v1/files/{id}
    upload_length INTEGER NOT NULL,               -- Upload-Length, or the plain request's Content-Length
    upload_offset INTEGER NOT NULL DEFAULT 0,     -- bytes stored so far
    metadata      TEXT,                           -- JSON object: the decoded Upload-Metadata
    content_type  TEXT,
    sha256        TEXT,                           -- once complete
    created_at    TEXT    NOT NULL,
    expires_at    TEXT    NOT NULL,               -- unfinished: Upload-Expires; complete: end of retention
    completed_at  TEXT
);

CREATE INDEX files_by_expiry ON files (expires_at);

-- Tasks may now be uploads: the kind constraint changes, so the table is rebuilt with the new columns.
CREATE TABLE tasks_v7 (
    id                              INTEGER PRIMARY KEY,
    session_id                      INTEGER NOT NULL REFERENCES sessions (id),
    task_identifier                 INTEGER NOT NULL,
    kind                            TEXT    NOT NULL CHECK (kind IN ('download', 'upload')),
    state                           TEXT    NOT NULL CHECK (state IN ('suspended', 'running', 'canceling', 'completed')),
    task_description                TEXT,
    priority                        REAL    NOT NULL,
    original_request                TEXT    NOT NULL,
    origin                          TEXT    NOT NULL,
    current_url                     TEXT,
    response                        TEXT,
    count_of_bytes_received         INTEGER NOT NULL DEFAULT 0,
    count_of_bytes_expected         INTEGER NOT NULL DEFAULT -1,
    error                           TEXT,
    file                            TEXT,
    created_at                      TEXT    NOT NULL,
    started_at                      TEXT,
    completed_at                    TEXT,
    checksum                        TEXT,
    earliest_begin_date             TEXT,
    next_attempt_at                 TEXT,
    attempts                        TEXT    NOT NULL DEFAULT '[]',
    waiting_reason                  TEXT,
    partial_bytes                   INTEGER NOT NULL DEFAULT 0,
    resume_validator                TEXT,
    not_resumable_reason            TEXT,
    produce_resume_data             INTEGER NOT NULL DEFAULT 0,
    connections                     INTEGER NOT NULL DEFAULT 1,
    max_bytes_per_second            INTEGER,
    upload_from                     TEXT,             -- JSON: UploadSource, what an upload sends
    source_file_id                  INTEGER,          -- files.id an upload sends, while it may still send it
    source_task_id                  INTEGER,          -- tasks.id whose download an upload sends
    multipart                       TEXT,             -- JSON: MultipartForm, when the body is multipart/form-data
    count_of_bytes_sent             INTEGER NOT NULL DEFAULT 0,
    count_of_bytes_expected_to_send INTEGER NOT NULL DEFAULT -1,
    reply                           TEXT,             -- JSON: StoredReply, the final response's kept body
    UNIQUE (session_id, task_identifier)
);

INSERT INTO tasks_v7 (
    id, session_id, task_identifier, kind, state, task_description, priority, original_request, origin, current_url,
    response, count_of_bytes_received, count_of_bytes_expected, error, file, created_at, started_at, completed_at,
    checksum, earliest_begin_date, next_attempt_at, attempts, waiting_reason, partial_bytes, resume_validator,
    not_resumable_reason, produce_resume_data, connections, max_bytes_per_second
)
SELECT
    id, session_id, task_identifier, kind, state, task_description, priority, original_request, origin, current_url,
    response, count_of_bytes_received, count_of_bytes_expected, error, file, created_at, started_at, completed_at,
    checksum, earliest_begin_date, next_attempt_at, attempts, waiting_reason, partial_bytes, resume_validator,
    not_resumable_reason, produce_resume_data, connections, max_bytes_per_second
FROM tasks;

DROP TABLE tasks;
ALTER TABLE tasks_v7 RENAME TO tasks;

CREATE INDEX tasks_queue ON tasks (state, priority DESC, id);
CREATE INDEX tasks_by_source_file ON tasks (source_file_id) WHERE source_file_id IS NOT NULL;
CREATE INDEX tasks_by_source_task ON tasks (source_task_id) WHERE source_task_id IS NOT NULL;
