-- transferd schema on PostgreSQL, version 7: whether a session's events are pushed to its webhook
-- (sessionSendsLaunchEvents, in its configuration too), for the dispatcher to pass over those that hold them.
ALTER TABLE sessions ADD COLUMN sends_launch_events BIGINT NOT NULL DEFAULT 1;
