-- What an endpoint's disabling owes: `webhook.disabled` in the log of every session pointing at it, and a POST to
-- the operational webhook. Written in the transaction that disables the endpoint; told by the notices' loop.
CREATE TABLE webhook_notices (
    id                  INTEGER PRIMARY KEY,
    tenant_id           INTEGER NOT NULL,
    endpoint_key        TEXT    NOT NULL,
    reason              TEXT    NOT NULL,
    created_at          TEXT    NOT NULL,
    logged              INTEGER NOT NULL DEFAULT 0,
    ops_attempts        INTEGER NOT NULL DEFAULT 0,
    ops_next_attempt_at TEXT,             -- NULL: nothing (more) to send to the operational webhook
    ops_last_error      TEXT
);

CREATE INDEX webhook_notices_open ON webhook_notices (id) WHERE logged = 0 OR ops_next_attempt_at IS NOT NULL;

-- The most deliveries a second a subscriber's endpoint is sent (NULL: no limit), alike in every subscription of it.
ALTER TABLE webhooks ADD COLUMN max_deliveries_per_second REAL;

-- A tenant's own operational webhook (sealed JSON: url and secret), told instead of the service's.
ALTER TABLE tenants ADD COLUMN ops_webhook TEXT;
