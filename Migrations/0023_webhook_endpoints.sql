-- Endpoints: a tenant's subscriber URL, whose health every session of the tenant pointing at it shares. Its key is
-- a keyed hash of the tenant and the URL, computed in Swift. A subscription stored before keeps a provisional key of
-- its own session (its health its own, as before) until its webhook is set again; one that a 410 disabled stays
-- disabled.
CREATE TABLE webhook_endpoints (
    key             TEXT    PRIMARY KEY,
    tenant_id       INTEGER NOT NULL,
    state           TEXT    NOT NULL CHECK (state IN ('healthy', 'catching_up', 'failing', 'probing', 'disabled')),
    failing_since   TEXT,
    failed_probes   INTEGER NOT NULL DEFAULT 0,
    next_probe_at   TEXT,
    probe_until     TEXT,
    disabled_at     TEXT,
    disabled_reason TEXT,
    last_error      TEXT,
    updated_at      TEXT    NOT NULL
);

CREATE INDEX webhook_endpoints_unhealthy ON webhook_endpoints (tenant_id, state) WHERE state <> 'healthy';

ALTER TABLE webhooks ADD COLUMN endpoint_key TEXT;
UPDATE webhooks SET endpoint_key = 'session-' || session_id;
INSERT INTO webhook_endpoints (key, tenant_id, state, disabled_at, disabled_reason, updated_at)
SELECT w.endpoint_key, s.tenant_id, 'disabled', w.created_at, 'The subscriber answered 410 Gone.', w.created_at
FROM webhooks w JOIN sessions s ON s.id = w.session_id WHERE w.state = 'disabled';
ALTER TABLE webhooks DROP COLUMN state;
CREATE INDEX webhooks_by_endpoint ON webhooks (endpoint_key);

-- Attempts sent as their endpoint's probe, and the start of each reply's body.
ALTER TABLE delivery_attempts ADD COLUMN probe INTEGER NOT NULL DEFAULT 0;
ALTER TABLE delivery_attempts ADD COLUMN reply TEXT;
