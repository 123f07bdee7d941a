-- transferd schema, version 10: a queue the scheduler reads through an index, and task counts kept per session.

-- The scheduler walks the distinct (session, origin) queues of running tasks with index seeks, and reads each
-- queue's heads in rank order from the same index; the earliest retry is the first entry of tasks_due.
DROP INDEX tasks_queue;
CREATE INDEX tasks_queue ON tasks (state, session_id, origin, priority DESC, id);
CREATE INDEX tasks_due ON tasks (state, next_attempt_at) WHERE next_attempt_at IS NOT NULL;

-- Each session's tasks by state and the bytes they keep on disk (contents, reply bodies, partial files), kept by
-- the triggers below so that limits, session bookkeeping and a session's representation never count its tasks.
ALTER TABLE sessions ADD COLUMN tasks_suspended INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN tasks_running   INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN tasks_canceling INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN tasks_completed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN stored_bytes    INTEGER NOT NULL DEFAULT 0;

UPDATE sessions SET
    tasks_suspended = (SELECT COUNT(*) FROM tasks WHERE session_id = sessions.id AND state = 'suspended'),
    tasks_running   = (SELECT COUNT(*) FROM tasks WHERE session_id = sessions.id AND state = 'running'),
    tasks_canceling = (SELECT COUNT(*) FROM tasks WHERE session_id = sessions.id AND state = 'canceling'),
    tasks_completed = (SELECT COUNT(*) FROM tasks WHERE session_id = sessions.id AND state = 'completed'),
    stored_bytes    = (
        SELECT COALESCE(SUM(COALESCE(json_extract(file, '$.size'), 0) + COALESCE(json_extract(reply, '$.size'), 0) + partial_bytes), 0)
        FROM tasks WHERE session_id = sessions.id
    );

CREATE TRIGGER tasks_counted_on_insert AFTER INSERT ON tasks
BEGIN
    UPDATE sessions SET
        tasks_suspended = tasks_suspended + (NEW.state = 'suspended'),
        tasks_running   = tasks_running   + (NEW.state = 'running'),
        tasks_canceling = tasks_canceling + (NEW.state = 'canceling'),
        tasks_completed = tasks_completed + (NEW.state = 'completed'),
        stored_bytes    = stored_bytes + COALESCE(json_extract(NEW.file, '$.size'), 0)
                        + COALESCE(json_extract(NEW.reply, '$.size'), 0) + NEW.partial_bytes
    WHERE id = NEW.session_id;
END;

CREATE TRIGGER tasks_counted_on_update AFTER UPDATE OF state, file, reply, partial_bytes ON tasks
WHEN OLD.state IS NOT NEW.state OR OLD.file IS NOT NEW.file OR OLD.reply IS NOT NEW.reply OR OLD.partial_bytes <> NEW.partial_bytes
BEGIN
    UPDATE sessions SET
        tasks_suspended = tasks_suspended + (NEW.state = 'suspended') - (OLD.state = 'suspended'),
        tasks_running   = tasks_running   + (NEW.state = 'running')   - (OLD.state = 'running'),
        tasks_canceling = tasks_canceling + (NEW.state = 'canceling') - (OLD.state = 'canceling'),
        tasks_completed = tasks_completed + (NEW.state = 'completed') - (OLD.state = 'completed'),
        stored_bytes    = stored_bytes
                        + COALESCE(json_extract(NEW.file, '$.size'), 0) + COALESCE(json_extract(NEW.reply, '$.size'), 0) + NEW.partial_bytes
                        - COALESCE(json_extract(OLD.file, '$.size'), 0) - COALESCE(json_extract(OLD.reply, '$.size'), 0) - OLD.partial_bytes
    WHERE id = NEW.session_id;
END;
