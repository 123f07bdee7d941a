-- transferd schema on PostgreSQL, version 33: a bandwidth schedule per tenant (see the SQLite migration of the same
-- name).
ALTER TABLE tenants ADD COLUMN bandwidth_schedule TEXT;
