-- transferd schema on PostgreSQL, version 18: a claim's lease that commits, then lets the next claim in.
--
-- A claim holds its schema's claim lock (a session-level advisory lock) from before it reads the queue until its
-- leases are committed, so that the next claim, on any instance, reads them. It took a transaction of five round
-- trips (`BEGIN`, the lock, the read, the leases, `COMMIT`); without a transaction it is three: the lock, the read,
-- and this procedure, which leases the tasks, commits, and only then lets go of the lock.
CREATE PROCEDURE lease_claimed(claimed bigint[], holder text, expiry text, started text, INOUT leased bigint DEFAULT NULL)
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE tasks SET lease_owner = holder, lease_expires_at = expiry, started_at = COALESCE(started_at, started)
    WHERE id = ANY(claimed);
    GET DIAGNOSTICS leased = ROW_COUNT;
    COMMIT;
    PERFORM pg_advisory_unlock(7302, hashtext(current_schema()));
END
$$;
