-- transferd schema on PostgreSQL, version 19: a claim leases its tasks only as it read them, and answers what each
-- leased row is now.
--
-- A claim reads each task's row with its revision (`xmin`, which every write of a row changes) and leases only the
-- rows still at that revision: a task changed since the read (suspended, cancelled, its priority or its limit
-- patched) is left for the next claim. The procedure answers each leased task's revision once leased, so that the
-- instance knows the row as it stands (the row it read, with its lease) and can end the transfer in one statement
-- that writes only while the row is still that (`SQLTaskEnding`).
--
-- `lease_claimed` of migration 18 stays for instances of the version before during a rolling upgrade.
CREATE PROCEDURE lease_read(claimed bigint[], revisions text[], holder text, expiry text, started text, INOUT leased text DEFAULT NULL)
LANGUAGE plpgsql AS $$
BEGIN
    WITH read AS (SELECT * FROM unnest(claimed, revisions) AS r(id, revision)),
    taken AS (
        UPDATE tasks AS t SET lease_owner = holder, lease_expires_at = expiry, started_at = COALESCE(started_at, started)
        FROM read
        WHERE t.id = read.id AND t.state = 'running' AND t.lease_owner IS NULL
          AND (read.revision IS NULL OR CAST(t.xmin AS text) = read.revision)
        RETURNING t.id, CAST(t.xmin AS text) AS revision
    )
    SELECT COALESCE(string_agg(CAST(id AS text) || ':' || revision, ','), '') INTO leased FROM taken;
    UPDATE claim_leases SET count = count + 1;
    COMMIT;
    PERFORM pg_advisory_unlock(7302, hashtext(current_schema()));
END
$$;
