-- transferd schema, version 3: the digest a client expects of a download.

ALTER TABLE tasks ADD COLUMN checksum TEXT; -- JSON: Checksum, or NULL when none was given
