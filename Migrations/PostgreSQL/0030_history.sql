-- transferd schema on PostgreSQL, version 30: history that is forgotten on schedule (see the SQLite migration of the
-- same name). The commit positions of the tenant stream go with the last of their events.
ALTER TABLE sessions ADD COLUMN history_retention DOUBLE PRECISION;
ALTER TABLE sessions ADD COLUMN events_trimmed_through BIGINT NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN deleted_at TEXT;
-- A deleted session's identifier names a new session at once, while the deleted one still winds down (invalidating).
DROP INDEX sessions_live_identifier;
CREATE UNIQUE INDEX sessions_live_identifier ON sessions (tenant_id, identifier) WHERE state <> 'invalidated' AND deleted_at IS NULL;

ALTER TABLE tenants ADD COLUMN events_trimmed_commit BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tenants ADD COLUMN events_trimmed_id BIGINT NOT NULL DEFAULT 0;

CREATE INDEX tasks_finished ON tasks (session_id, completed_at) WHERE state = 'completed';
CREATE INDEX background_tasks_ended ON background_tasks (session_id, ended_at) WHERE state <> 'active';


-- A task removed takes itself off its session's counters, as its insert and its updates put it on them.
CREATE FUNCTION tasks_deleted_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE sessions SET
        tasks_suspended = sessions.tasks_suspended - removed.suspended,
        tasks_running   = sessions.tasks_running   - removed.running,
        tasks_canceling = sessions.tasks_canceling - removed.canceling,
        tasks_completed = sessions.tasks_completed - removed.completed,
        stored_bytes    = sessions.stored_bytes    - removed.bytes
    FROM (
        SELECT session_id,
               COUNT(*) FILTER (WHERE state = 'suspended') AS suspended,
               COUNT(*) FILTER (WHERE state = 'running')   AS running,
               COUNT(*) FILTER (WHERE state = 'canceling') AS canceling,
               COUNT(*) FILTER (WHERE state = 'completed') AS completed,
               SUM(task_stored_bytes(file, reply, partial_bytes) + reserved_bytes) AS bytes
        FROM deleted GROUP BY session_id
    ) AS removed
    WHERE sessions.id = removed.session_id;
    RETURN NULL;
END
$$;

CREATE TRIGGER tasks_deleted_counted AFTER DELETE ON tasks REFERENCING OLD TABLE AS deleted
FOR EACH STATEMENT EXECUTE FUNCTION tasks_deleted_counted();
