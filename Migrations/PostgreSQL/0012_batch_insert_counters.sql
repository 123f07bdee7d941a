-- transferd schema on PostgreSQL, version 12: the counters of a batch of new tasks kept by one statement.
--
-- A batch of tasks is one INSERT; counted row by row, its 1,000 rows were 1,000 updates of their session's row
-- (a third of the batch's time). New tasks are counted once per statement, from the rows it inserted, grouped by
-- session; changes of a task's state or stored bytes are still counted row by row (a statement-level trigger
-- cannot name the columns it watches).

DROP TRIGGER tasks_counted ON tasks;
CREATE TRIGGER tasks_counted AFTER UPDATE OF state, file, reply, partial_bytes ON tasks
FOR EACH ROW EXECUTE FUNCTION tasks_counted();

CREATE FUNCTION tasks_inserted_counted() RETURNS trigger LANGUAGE plpgsql AS $$
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
               SUM(task_stored_bytes(file, reply, partial_bytes)) AS bytes
        FROM inserted GROUP BY session_id
    ) AS added
    WHERE sessions.id = added.session_id;
    RETURN NULL;
END
$$;

CREATE TRIGGER tasks_inserted_counted AFTER INSERT ON tasks REFERENCING NEW TABLE AS inserted
FOR EACH STATEMENT EXECUTE FUNCTION tasks_inserted_counted();
