-- slotkeeper-receiver's tables (PostgreSQL). Schema.create runs this file; a team with its own
-- migration tool copies it into a migration instead. Idempotent.

-- The highest fencing token seen per schedule: a delivery with a lower one is refused (409).
CREATE TABLE IF NOT EXISTS receiver_fences (
  schedule      text   PRIMARY KEY,
  highest_token bigint NOT NULL
);

-- One row per Idempotency-Key, written in the transaction of the team's effect, with the answer
-- that a repeat of the key gets. status is null only inside the transaction that claims the key.
CREATE TABLE IF NOT EXISTS receiver_deliveries (
  idem_key   text        PRIMARY KEY,
  schedule   text        NOT NULL,
  slot       timestamptz NOT NULL,
  status     integer,
  body       text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Old keys are deleted by age (slotkeeper retries a slot for minutes, not days).
CREATE INDEX IF NOT EXISTS receiver_deliveries_created_at ON receiver_deliveries (created_at);
