-- Tenants' S3-compatible stores, by the name tasks use for them. The secret is sealed under the credentials key.
CREATE TABLE object_storages (
    id                INTEGER PRIMARY KEY,
    tenant_id         INTEGER NOT NULL,
    name              TEXT    NOT NULL,
    endpoint          TEXT    NOT NULL,
    region            TEXT    NOT NULL,
    bucket            TEXT    NOT NULL,
    access_key_id     TEXT    NOT NULL,
    secret_sealed     TEXT    NOT NULL,
    path_style        INTEGER NOT NULL,
    created_at        TEXT    NOT NULL,
    updated_at        TEXT    NOT NULL,
    UNIQUE (tenant_id, name)
);
