-- transferd schema on PostgreSQL, version 10: secrets sealed at rest. A session's retention period gets a column of
-- its own, so that the sweeper no longer reads it from the configuration, which is sealed from now on. The sealing
-- of the rows themselves (configurations, original requests, webhooks' URLs and secrets, service keys) follows in
-- Swift, in the same transaction, under the credentials key (`SealedSecretsMigration`).
ALTER TABLE sessions ADD COLUMN retention_period DOUBLE PRECISION NOT NULL DEFAULT 604800;
UPDATE sessions SET retention_period = COALESCE(CAST(CAST(configuration AS json) ->> 'retentionPeriod' AS float8), 604800);
