-- transferd schema on PostgreSQL, version 11: SQLite's migration 0021 (quotas per tenant; the waiting reason of
-- transfers held by a full disk renamed).

ALTER TABLE tenants ADD COLUMN max_sessions     BIGINT;
ALTER TABLE tenants ADD COLUMN max_queued_tasks BIGINT;
ALTER TABLE tenants ADD COLUMN max_stored_bytes BIGINT;
ALTER TABLE tenants ADD COLUMN max_transfers    BIGINT;

UPDATE tasks SET waiting_reason = 'insufficientStorage' WHERE waiting_reason = 'outOfSpace';
