-- transferd schema on PostgreSQL, version 8: a task's URLSessionTaskMetrics (JSON): its interval, redirect count
-- and the metrics of its attempts' requests.
ALTER TABLE tasks ADD COLUMN metrics TEXT;
