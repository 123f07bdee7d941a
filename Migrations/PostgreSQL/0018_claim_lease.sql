-- transferd schema on PostgreSQL, version 18: a claim's turn taken by its read, and a lease that commits, then lets
-- the next claim in.
--
-- A claim holds its schema's claim lock (a session-level advisory lock) from its read of the queue until its leases
-- are committed, so that the next claim, on any instance, reads them. It took a transaction of five round trips
-- (`BEGIN`, the lock, the read, the leases, `COMMIT`); without a transaction it is two:
-- - the read, which takes the lock with `claim_turn()`. The read's snapshot may predate the lock, so the function
--   also answers how many leases had committed once the lock was granted (read afresh, as a volatile function's
--   statements are), and the read compares it with the count its own snapshot holds: where they differ, a claim
--   leased meanwhile and the read is made again;
-- - `lease_claimed`, which leases the tasks still queued and unleased (a suspend or a cancel may have come since the
--   read, which held no row), answers their ids, counts the lease, commits, and only then lets go of the lock.
CREATE TABLE claim_leases (count BIGINT NOT NULL);
INSERT INTO claim_leases VALUES (0);

CREATE FUNCTION claim_turn() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    leased bigint;
BEGIN
    PERFORM pg_advisory_lock(7302, hashtext(current_schema()));
    SELECT count INTO leased FROM claim_leases;
    RETURN leased;
END
$$;

CREATE PROCEDURE lease_claimed(claimed bigint[], holder text, expiry text, started text, INOUT leased text DEFAULT NULL)
LANGUAGE plpgsql AS $$
BEGIN
    WITH taken AS (
        UPDATE tasks SET lease_owner = holder, lease_expires_at = expiry, started_at = COALESCE(started_at, started)
        WHERE id = ANY(claimed) AND state = 'running' AND lease_owner IS NULL
        RETURNING id
    )
    SELECT COALESCE(string_agg(CAST(id AS text), ','), '') INTO leased FROM taken;
    UPDATE claim_leases SET count = count + 1;
    COMMIT;
    PERFORM pg_advisory_unlock(7302, hashtext(current_schema()));
END
$$;
