-- transferd schema, version 8: tenants and their API keys. Sessions and staged files belong to a tenant.

CREATE TABLE tenants (
    id         INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL UNIQUE,
    created_at TEXT    NOT NULL
);

-- What existed before tenancy belongs to the default tenant.
INSERT INTO tenants (id, name, created_at) VALUES (1, 'default', strftime('%Y-%m-%d %H:%M:%f', 'now'));

-- An API key is `trd_<id>_<secret>`; only the SHA-256 of the secret is kept.
CREATE TABLE api_keys (
    id            TEXT    PRIMARY KEY,
    tenant_id     INTEGER NOT NULL REFERENCES tenants (id),
    name          TEXT    NOT NULL,
    secret_sha256 BLOB    NOT NULL,
    admin         INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT    NOT NULL,
    revoked_at    TEXT
);

ALTER TABLE sessions ADD COLUMN tenant_id INTEGER NOT NULL DEFAULT 1;

-- Session identifiers are unique per tenant: two tenants may both have `com.example.bg`.
DROP INDEX sessions_live_identifier;
DROP INDEX sessions_by_identifier;
CREATE UNIQUE INDEX sessions_live_identifier ON sessions (tenant_id, identifier) WHERE state <> 'invalidated';
CREATE INDEX sessions_by_identifier ON sessions (tenant_id, identifier, id);

-- Staged files too: their ids are unique per tenant.
CREATE TABLE files_v8 (
    id            INTEGER PRIMARY KEY,
    tenant_id     INTEGER NOT NULL DEFAULT 1,
    public_id     TEXT    NOT NULL,
    upload_length INTEGER NOT NULL,
    upload_offset INTEGER NOT NULL DEFAULT 0,
    metadata      TEXT,
    content_type  TEXT,
    sha256        TEXT,
    created_at    TEXT    NOT NULL,
    expires_at    TEXT    NOT NULL,
    completed_at  TEXT,
    UNIQUE (tenant_id, public_id)
);

INSERT INTO files_v8 (id, public_id, upload_length, upload_offset, metadata, content_type, sha256, created_at, expires_at, completed_at)
SELECT id, public_id, upload_length, upload_offset, metadata, content_type, sha256, created_at, expires_at, completed_at FROM files;

DROP TABLE files;
ALTER TABLE files_v8 RENAME TO files;
CREATE INDEX files_by_expiry ON files (expires_at);

-- A download's own size cap (`maxBytes`), below the service's.
ALTER TABLE tasks ADD COLUMN max_bytes INTEGER;
