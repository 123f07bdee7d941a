-- transferd schema on PostgreSQL, version 31: the tables that history removal empties as fast as they fill are
-- vacuumed once 2 % of their rows are dead, not autovacuum's default 20 %. At 20 %, a table that keeps 7 days of
-- history waits for 1.4 days of removed rows before their space is free again, and grows by that much over its
-- steady size in new pages (a year's simulation settled at 1.2 times its size at day 8). At 2 %, a few hours' rows.
ALTER TABLE tasks SET (autovacuum_vacuum_scale_factor = 0.02);
ALTER TABLE events SET (autovacuum_vacuum_scale_factor = 0.02);
ALTER TABLE event_commits SET (autovacuum_vacuum_scale_factor = 0.02);
ALTER TABLE deliveries SET (autovacuum_vacuum_scale_factor = 0.02);
ALTER TABLE delivery_attempts SET (autovacuum_vacuum_scale_factor = 0.02);
ALTER TABLE background_tasks SET (autovacuum_vacuum_scale_factor = 0.02);
ALTER TABLE files SET (autovacuum_vacuum_scale_factor = 0.02);
ALTER TABLE idempotency_keys SET (autovacuum_vacuum_scale_factor = 0.02);
