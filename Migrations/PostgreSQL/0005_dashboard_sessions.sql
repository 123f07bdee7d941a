-- Signed-in dashboard sessions (/ui/): the cookie's token is never stored, only its SHA-256.
CREATE TABLE dashboard_sessions (
    token_hash  TEXT PRIMARY KEY,
    api_key_id  TEXT NOT NULL,
    csrf_token  TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL
);
CREATE INDEX dashboard_sessions_by_expiry ON dashboard_sessions (expires_at);
