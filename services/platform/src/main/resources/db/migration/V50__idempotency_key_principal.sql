-- An Idempotency-Key belongs to the principal that sent it (the token's role, `client` or
-- `operator`, or a client ID where a token names one): two principals' equal keys are two rows,
-- and neither sees the other's saved answer. Command IDs still derive from the key alone.
-- A row from before this column has no recorded sender; it goes to the lowest role allowed to run
-- its operation (operator-only operations: `operator`; every other: `client`), its likely sender,
-- so a retry of it after the upgrade still replays. The same key sent by the other principal is a
-- new key to it, and runs the same command IDs again, which the command ledger answers as the
-- duplicates they are. The primary key changes: instances of the previous version cannot write
-- keys once this has run (upgrade all instances together).
ALTER TABLE idempotency_keys ADD COLUMN principal VARCHAR(128);
UPDATE idempotency_keys
   SET principal = CASE
       WHEN operation IN ('orders.process', 'refunds.issue', 'jobs.pause', 'jobs.resume',
                          'jobs.trigger', 'jobs.backfill', 'projections.rebuild')
       THEN 'operator' ELSE 'client' END;
ALTER TABLE idempotency_keys ALTER COLUMN principal SET NOT NULL;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (idem_key, principal);
