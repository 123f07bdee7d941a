-- transferd schema, version 34: a bandwidth schedule per tenant (issue 67), which the tenant's transfers share, where
-- the operator set one (`transferd tenants set --bandwidth`; NULL: none, the service's limits alone).
ALTER TABLE tenants ADD COLUMN bandwidth_schedule TEXT;
