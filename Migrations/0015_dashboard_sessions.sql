-- Signed-in dashboard sessions (/ui/): the cookie's token is never stored, only its SHA-256.
CREATE TABLE dashboard_sessions (
    token_hash  TEXT PRIMARY KEY,    -- hex SHA-256 of the cookie's token
    api_key_id  TEXT NOT NULL,       -- the key it was signed in with: it grants exactly what the key grants
    csrf_token  TEXT NOT NULL,       -- sent back by every form that changes state
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL
);
CREATE INDEX dashboard_sessions_by_expiry ON dashboard_sessions (expires_at);
