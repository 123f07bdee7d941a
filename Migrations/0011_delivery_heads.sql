-- transferd schema, version 11: the dispatcher finds each session's next delivery through an index.

-- Pending deliveries by session and sequence: each session's head is one seek, and delivered rows (the history)
-- are never read to find them.
CREATE INDEX deliveries_pending ON deliveries (status, session_id, sequence);
