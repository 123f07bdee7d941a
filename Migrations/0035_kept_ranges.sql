-- transferd schema, version 35: the byte ranges past partial_bytes that a download from several sources (its URL and
-- its mirrors, issue 67) made durable, as JSON [[lower, upper], …]; NULL when there are none. A later attempt fetches
-- only what lies between them.
ALTER TABLE tasks ADD COLUMN kept_ranges TEXT;
