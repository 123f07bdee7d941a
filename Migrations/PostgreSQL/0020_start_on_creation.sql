-- transferd schema on PostgreSQL, version 20: tasks started by the statement that creates them.
--
-- An instance with free workers may ask the statement that creates tasks to lease them to itself at once, as a
-- claim would, sparing the claim's two statements. The statement takes the claims' turn only if it is free (it
-- never waits for it): `claim_turn_now()` tries the schema's claim lock for the statement's own transaction and
-- answers how many leases had committed once it held it (read afresh), or NULL when another claim holds the turn.
-- Where that count differs from the statement's own snapshot's, a claim leased meanwhile, and the tasks wait in their
-- queue for the next claim instead; so they do when another task waits, or the session's transfers to the origin
-- would pass its `maximumConnectionsPerHost`. A creation that leases counts its lease (`claim_leases`), so that the
-- next claim, on any instance, reads it.
CREATE FUNCTION claim_turn_now() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    leased bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(7302, hashtext(current_schema())) THEN
        RETURN NULL;
    END IF;
    SELECT count INTO leased FROM claim_leases;
    RETURN leased;
END
$$;
