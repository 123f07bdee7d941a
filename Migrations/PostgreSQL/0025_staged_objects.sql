-- transferd schema on PostgreSQL, version 25: staged objects (see the SQLite migration of the same name).
-- Where a staged file's bytes are in the content store (NULL: the data directory; JSON: the object each append made,
-- then the one object of the whole file once it is complete).
ALTER TABLE files ADD COLUMN objects TEXT;
