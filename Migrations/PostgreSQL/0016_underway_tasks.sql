-- transferd schema on PostgreSQL, version 16: the leased tasks of each queue, counted by index seeks.
--
-- A claim counts the transfers under way per session and origin (every instance's, for the per-host limits). The
-- count walks the queues that hold a leased task, one seek of this index each, and counts each queue's leases in it:
-- a plan that does not depend on the table's statistics, which a new database does not have yet (its planner
-- scanned the whole table for them).
CREATE INDEX tasks_underway ON tasks (session_id, origin) WHERE lease_owner IS NOT NULL;
