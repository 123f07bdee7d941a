-- transferd schema, version 22: the queued tasks a claim may take, found by one index seek.
--
-- A scheduler woken by a transfer's end (a worker free) asks whether any queued task is due and unleased before it
-- takes the claim's turn; most such wakes find none, and the question is two seeks of this index.
CREATE INDEX tasks_claimable ON tasks (next_attempt_at) WHERE state = 'running' AND lease_owner IS NULL;
