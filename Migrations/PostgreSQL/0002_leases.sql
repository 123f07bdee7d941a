-- transferd schema on PostgreSQL, version 2: leases, so that many instances can share one database and an instance
-- that dies loses its work to the others.

-- The instance whose transfer of the task is under way, and until when it holds it unless it renews the lease.
ALTER TABLE tasks ADD COLUMN lease_owner TEXT;
ALTER TABLE tasks ADD COLUMN lease_expires_at TEXT;
CREATE INDEX tasks_leases ON tasks (lease_expires_at) WHERE lease_owner IS NOT NULL;

-- A task an older version left canceling had a transfer under way: its lease is one that has already expired, so
-- the next start completes it.
UPDATE tasks SET lease_owner = '', lease_expires_at = '1970-01-01 00:00:00.000' WHERE state = 'canceling';

-- The instance sending the session's webhook deliveries (one at a time, in order), and until when.
ALTER TABLE sessions ADD COLUMN delivery_owner TEXT;
ALTER TABLE sessions ADD COLUMN delivery_lease_expires_at TEXT;
CREATE INDEX sessions_delivery_leases ON sessions (delivery_lease_expires_at) WHERE delivery_owner IS NOT NULL;
