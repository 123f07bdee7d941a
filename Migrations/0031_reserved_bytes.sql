-- transferd schema, version 31: bytes reserved before they are written. A transfer reserves what it will store (a
-- download's declared length, an upload's reply cap, a batch when no length is known) before its first byte, and
-- the reservation is counted in its session's stored bytes with what it already keeps, so that a tenant's quota holds
-- for transfers running at once (issue 63). What is written replaces the reservation as it lands.
ALTER TABLE tasks ADD COLUMN reserved_bytes INTEGER NOT NULL DEFAULT 0;

DROP TRIGGER tasks_counted_on_insert;
DROP TRIGGER tasks_counted_on_update;

CREATE TRIGGER tasks_counted_on_insert AFTER INSERT ON tasks
BEGIN
    UPDATE sessions SET
        tasks_suspended = tasks_suspended + (NEW.state = 'suspended'),
        tasks_running   = tasks_running   + (NEW.state = 'running'),
        tasks_canceling = tasks_canceling + (NEW.state = 'canceling'),
        tasks_completed = tasks_completed + (NEW.state = 'completed'),
        stored_bytes    = stored_bytes + COALESCE(json_extract(NEW.file, '$.size'), 0)
                        + COALESCE(json_extract(NEW.reply, '$.size'), 0) + NEW.partial_bytes + NEW.reserved_bytes
    WHERE id = NEW.session_id;
END;

CREATE TRIGGER tasks_counted_on_update AFTER UPDATE OF state, file, reply, partial_bytes, reserved_bytes ON tasks
WHEN OLD.state IS NOT NEW.state OR OLD.file IS NOT NEW.file OR OLD.reply IS NOT NEW.reply OR OLD.partial_bytes <> NEW.partial_bytes
    OR OLD.reserved_bytes <> NEW.reserved_bytes
BEGIN
    UPDATE sessions SET
        tasks_suspended = tasks_suspended + (NEW.state = 'suspended') - (OLD.state = 'suspended'),
        tasks_running   = tasks_running   + (NEW.state = 'running')   - (OLD.state = 'running'),
        tasks_canceling = tasks_canceling + (NEW.state = 'canceling') - (OLD.state = 'canceling'),
        tasks_completed = tasks_completed + (NEW.state = 'completed') - (OLD.state = 'completed'),
        stored_bytes    = stored_bytes
                        + COALESCE(json_extract(NEW.file, '$.size'), 0) + COALESCE(json_extract(NEW.reply, '$.size'), 0)
                        + NEW.partial_bytes + NEW.reserved_bytes
                        - COALESCE(json_extract(OLD.file, '$.size'), 0) - COALESCE(json_extract(OLD.reply, '$.size'), 0)
                        - OLD.partial_bytes - OLD.reserved_bytes
    WHERE id = NEW.session_id;
END;

-- A reservation lives as long as the task's lease: whatever ends or takes back the lease (an end, a release, a
-- restart's expiry) gives it back.
CREATE TRIGGER tasks_reservation_released AFTER UPDATE OF lease_owner ON tasks
WHEN NEW.lease_owner IS NULL AND NEW.reserved_bytes > 0
BEGIN
    UPDATE tasks SET reserved_bytes = 0 WHERE id = NEW.id;
END;

-- The transfers that hold a reservation, few at a time: what a restart finds still reserved.
CREATE INDEX tasks_reserved ON tasks (id) WHERE reserved_bytes > 0;
