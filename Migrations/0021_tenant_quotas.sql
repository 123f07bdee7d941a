-- transferd schema, version 21: quotas per tenant, where the operator sets them apart from the service's defaults
-- (NULL: the default); and the waiting reason of transfers held by a full disk takes the name of its status (507).

ALTER TABLE tenants ADD COLUMN max_sessions     INTEGER;
ALTER TABLE tenants ADD COLUMN max_queued_tasks INTEGER;
ALTER TABLE tenants ADD COLUMN max_stored_bytes INTEGER;
ALTER TABLE tenants ADD COLUMN max_transfers    INTEGER;

UPDATE tasks SET waiting_reason = 'insufficientStorage' WHERE waiting_reason = 'outOfSpace';
