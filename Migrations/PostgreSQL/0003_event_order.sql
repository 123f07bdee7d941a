-- transferd schema on PostgreSQL, version 3: the transaction that wrote each event. A reader of many sessions'
-- events at once (a tenant's live stream) goes through them by transaction, and only through transactions older
-- than every one still running, so that no event it has not seen can commit before one it has.
ALTER TABLE events ADD COLUMN transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX events_in_transaction_order ON events (transaction_id, id);
