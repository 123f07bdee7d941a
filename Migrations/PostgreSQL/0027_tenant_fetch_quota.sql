-- transferd schema on PostgreSQL, version 27: a quota of fetch schedules per tenant (see the SQLite migration of the
-- same name).
ALTER TABLE tenants ADD COLUMN max_fetches BIGINT;
