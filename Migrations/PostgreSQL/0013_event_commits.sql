-- transferd schema on PostgreSQL, version 13: a tenant's events read in commit order.
--
-- A reader of many sessions' events read them in the order of the transactions that wrote them, only from
-- transactions older than the oldest still running anywhere in the cluster: one long transaction (another
-- application's, a backup) held every reader back, for a minute at times. Now every transaction that writes events
-- takes the next position of the log's head as the last thing before it commits; the head's row is held until it
-- has committed, so positions commit in order and a reader reads every position up to the last committed.

CREATE TABLE event_log_head (
    singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    position  BIGINT  NOT NULL
);

CREATE TABLE event_commits (
    position       BIGINT PRIMARY KEY,
    transaction_id xid8   NOT NULL UNIQUE
);

-- The transactions that wrote the events kept so far, in the order readers read them until now.
INSERT INTO event_commits (position, transaction_id)
SELECT ROW_NUMBER() OVER (ORDER BY transaction_id), transaction_id FROM (SELECT DISTINCT transaction_id FROM events) AS written;

INSERT INTO event_log_head (singleton, position) SELECT TRUE, COUNT(*) FROM event_commits;
