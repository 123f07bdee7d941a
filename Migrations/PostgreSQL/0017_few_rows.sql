-- transferd schema on PostgreSQL, version 17: the rows of a JSON parameter, which the planner takes for one.
--
-- Statements that write the rows of a batch (the tasks of a group's ends) take them as one JSON array. The planner
-- takes a set function for 100 rows, and on a table too small for statistics (a new database, before autovacuum's
-- first ANALYZE) it hash-joined them with a scan of the whole table rather than seek each row by its key; a prepared
-- statement kept that plan as the table grew (1.2 ms an end with 1,000 tasks). Taken for one row, each row is a seek
-- whatever the table's size.
CREATE FUNCTION few_rows(rows jsonb) RETURNS SETOF jsonb LANGUAGE plpgsql IMMUTABLE STRICT ROWS 1 AS $$
BEGIN
    RETURN QUERY SELECT jsonb_array_elements(rows);
END
$$;
