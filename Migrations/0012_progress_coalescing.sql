-- transferd schema, version 12: a progress delivery supersedes the earlier pending ones of its task when it is
-- written, found through this index rather than by reading every pending delivery before each claim.

-- Pending progress deliveries by session, task and type: only these rows, so that it stays as small as the backlog
-- of progress.
CREATE INDEX deliveries_pending_progress ON deliveries (session_id, task_identifier, event_type, sequence)
WHERE status = 'pending' AND event_type IN ('task.progress', 'task.upload_progress');
