-- transferd schema on PostgreSQL, version 29: bytes reserved before they are written (see the SQLite migration of the
-- same name), counted in the session's stored bytes by the statement-level triggers.
ALTER TABLE tasks ADD COLUMN reserved_bytes BIGINT NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION tasks_inserted_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE sessions SET
        tasks_suspended = sessions.tasks_suspended + added.suspended,
        tasks_running   = sessions.tasks_running   + added.running,
        tasks_canceling = sessions.tasks_canceling + added.canceling,
        tasks_completed = sessions.tasks_completed + added.completed,
        stored_bytes    = sessions.stored_bytes    + added.bytes
    FROM (
        SELECT session_id,
               COUNT(*) FILTER (WHERE state = 'suspended') AS suspended,
               COUNT(*) FILTER (WHERE state = 'running')   AS running,
               COUNT(*) FILTER (WHERE state = 'canceling') AS canceling,
               COUNT(*) FILTER (WHERE state = 'completed') AS completed,
               SUM(task_stored_bytes(file, reply, partial_bytes) + reserved_bytes) AS bytes
        FROM inserted GROUP BY session_id
    ) AS added
    WHERE sessions.id = added.session_id;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION tasks_updated_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE sessions SET
        tasks_suspended = sessions.tasks_suspended + changed.suspended,
        tasks_running   = sessions.tasks_running   + changed.running,
        tasks_canceling = sessions.tasks_canceling + changed.canceling,
        tasks_completed = sessions.tasks_completed + changed.completed,
        stored_bytes    = sessions.stored_bytes    + changed.bytes
    FROM (
        SELECT n.session_id,
               SUM((n.state = 'suspended')::int - (o.state = 'suspended')::int) AS suspended,
               SUM((n.state = 'running')::int   - (o.state = 'running')::int)   AS running,
               SUM((n.state = 'canceling')::int - (o.state = 'canceling')::int) AS canceling,
               SUM((n.state = 'completed')::int - (o.state = 'completed')::int) AS completed,
               SUM(task_stored_bytes(n.file, n.reply, n.partial_bytes) + n.reserved_bytes
                   - task_stored_bytes(o.file, o.reply, o.partial_bytes) - o.reserved_bytes) AS bytes
        FROM updated_new AS n JOIN updated_old AS o ON o.id = n.id
        WHERE n.state IS DISTINCT FROM o.state OR n.file IS DISTINCT FROM o.file OR n.reply IS DISTINCT FROM o.reply
           OR n.partial_bytes <> o.partial_bytes OR n.reserved_bytes <> o.reserved_bytes
        GROUP BY n.session_id
    ) AS changed
    WHERE sessions.id = changed.session_id;
    RETURN NULL;
END
$$;

-- A reservation lives as long as the task's lease (see the SQLite migration).
CREATE FUNCTION tasks_reservation_released() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.lease_owner IS NULL AND NEW.reserved_bytes > 0 THEN
        NEW.reserved_bytes := 0;
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER tasks_reservation_released BEFORE UPDATE ON tasks
FOR EACH ROW WHEN (NEW.lease_owner IS NULL AND NEW.reserved_bytes > 0) EXECUTE FUNCTION tasks_reservation_released();

CREATE INDEX tasks_reserved ON tasks (id) WHERE reserved_bytes > 0;
