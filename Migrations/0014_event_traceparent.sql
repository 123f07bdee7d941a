-- transferd schema, version 14: the W3C traceparent of the request that caused an event, passed on to its webhook
-- delivery.
ALTER TABLE events ADD COLUMN traceparent TEXT;
