-- transferd schema, version 29: a quota of fetch schedules per tenant, where the operator sets it apart from the
-- service's default (NULL: the default, --max-fetches-per-tenant).
ALTER TABLE tenants ADD COLUMN max_fetches INTEGER;
