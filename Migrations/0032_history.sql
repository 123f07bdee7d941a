-- transferd schema, version 32: history that is forgotten on schedule (issue 64). A finished task's row, its session's
-- old events with their deliveries, and ended background tasks are removed once the longer of the session's content
-- retention and its history retention has passed; the event log is trimmed from its start only, so that what is
-- left stays gap-free, and each session and tenant remembers where it was trimmed (a reader from before gets 410).
ALTER TABLE sessions ADD COLUMN history_retention REAL; -- seconds; NULL takes the service's --history-retention
ALTER TABLE sessions ADD COLUMN events_trimmed_through INTEGER NOT NULL DEFAULT 0; -- the log begins after this sequence
-- When DELETE /v1/sessions/{identifier} marked it: it is gone for the API, and whichever instance's next pass removes
-- what it holds, then its row.
ALTER TABLE sessions ADD COLUMN deleted_at TEXT;
-- A deleted session's identifier names a new session at once, while the deleted one still winds down (invalidating).
DROP INDEX sessions_live_identifier;
CREATE UNIQUE INDEX sessions_live_identifier ON sessions (tenant_id, identifier) WHERE state <> 'invalidated' AND deleted_at IS NULL;

-- The tenant's events from every session, as its stream reads them: the last position removed.
ALTER TABLE tenants ADD COLUMN events_trimmed_commit INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tenants ADD COLUMN events_trimmed_id INTEGER NOT NULL DEFAULT 0;

CREATE INDEX tasks_finished ON tasks (session_id, completed_at) WHERE state = 'completed';
CREATE INDEX background_tasks_ended ON background_tasks (session_id, ended_at) WHERE state <> 'active';

-- Removing an event checks that no delivery names it (the foreign key), which without this read every delivery.
CREATE INDEX deliveries_by_event ON deliveries (event_id);

-- A task removed takes itself off its session's counters, as its insert and its updates put it on them.
CREATE TRIGGER tasks_counted_on_delete AFTER DELETE ON tasks
BEGIN
    UPDATE sessions SET
        tasks_suspended = tasks_suspended - (OLD.state = 'suspended'),
        tasks_running   = tasks_running   - (OLD.state = 'running'),
        tasks_canceling = tasks_canceling - (OLD.state = 'canceling'),
        tasks_completed = tasks_completed - (OLD.state = 'completed'),
        stored_bytes    = stored_bytes - COALESCE(json_extract(OLD.file, '$.size'), 0)
                        - COALESCE(json_extract(OLD.reply, '$.size'), 0) - OLD.partial_bytes - OLD.reserved_bytes
    WHERE id = OLD.session_id;
END;
