-- Background fetch: schedules of recurring conditional downloads, each run a download task of the session.
CREATE TABLE fetch_schedules (
    id                 INTEGER PRIMARY KEY,
    public_id          TEXT    NOT NULL UNIQUE,  -- the {id} of …/fetches/{id}
    session_id         INTEGER NOT NULL REFERENCES sessions (id),
    request            TEXT    NOT NULL,         -- the runs' request (URL and headers), sealed: it may carry credentials
    origin             TEXT    NOT NULL,
    destination        TEXT,                     -- JSON {"storage", "key"}: an object of a tenant's store; NULL: kept by the service
    task_description   TEXT,
    interval_seconds   INTEGER NOT NULL,
    jitter             REAL    NOT NULL DEFAULT 0,
    time_window        TEXT,                     -- HH:MM-HH:MM, UTC
    keep_versions      INTEGER NOT NULL,
    paused             INTEGER NOT NULL DEFAULT 0,
    anchor_at          TEXT    NOT NULL,         -- runs fall on anchor_at + n × interval
    next_run_at        TEXT    NOT NULL,
    running_task       INTEGER,                  -- the task identifier of the run under way
    last_run           TEXT,                     -- JSON: the last run's result, task and when
    latest             TEXT,                     -- JSON: the newest version kept (its task, SHA-256 and validators)
    created_at         TEXT    NOT NULL
);

CREATE INDEX fetch_schedules_session ON fetch_schedules (session_id);
-- What the clock asks: the next run due, and the runs under way.
CREATE INDEX fetch_schedules_due ON fetch_schedules (next_run_at) WHERE paused = 0 AND running_task IS NULL;

-- A run's task names its schedule, and once the run is settled its result (newData, noData, failed).
ALTER TABLE tasks ADD COLUMN fetch_id TEXT;
ALTER TABLE tasks ADD COLUMN fetch_result TEXT;
CREATE INDEX tasks_fetch ON tasks (fetch_id, task_identifier) WHERE fetch_id IS NOT NULL;
-- The runs whose tasks completed and wait to be judged: a handful, however many schedules run.
CREATE INDEX tasks_unjudged_runs ON tasks (session_id, task_identifier)
    WHERE fetch_id IS NOT NULL AND fetch_result IS NULL AND state = 'completed';
