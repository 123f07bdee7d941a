-- transferd schema, version 33: the trace a task's attempts continue (issue 66): the W3C traceparent of the span that
-- created it, kept so that its spans after a restart, or on another instance, join the same trace.
ALTER TABLE tasks ADD COLUMN traceparent TEXT;
