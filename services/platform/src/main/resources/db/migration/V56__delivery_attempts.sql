-- Every attempt of an HTTP target's delivery, written by the instance that sent it, so the runs
-- answer and the console show each one (the slot ledger keeps only the last error). One row per
-- (slot, attempt, token, instance): a retried, re-fired or taken-over attempt adds its own row.
-- outcome: DELIVERED, RETRY_STATUS (408, 429, 5xx), TIMEOUT, CONNECTION_ERROR, REFUSED (other
-- 4xx), STALE (409: a newer lease holder exists), BLOCKED (SSRF guard), NO_SECRET.
CREATE TABLE delivery_attempts (
    slot_id        VARCHAR(64)  NOT NULL,
    attempt        INT          NOT NULL,
    fencing_token  BIGINT       NOT NULL,
    instance_id    VARCHAR(128) NOT NULL,
    schedule       VARCHAR(128) NOT NULL,
    nominal        TIMESTAMPTZ  NOT NULL,
    idem_key       VARCHAR(64)  NOT NULL,
    url            TEXT         NOT NULL,
    outcome        VARCHAR(16)  NOT NULL,
    status         INT,
    latency_ms     BIGINT       NOT NULL,
    error          TEXT,
    response_head  TEXT,
    retry_after_ms BIGINT,
    sent_at        TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (slot_id, attempt, fencing_token, instance_id)
);

CREATE INDEX delivery_attempts_schedule_idx ON delivery_attempts (schedule, nominal);
CREATE INDEX delivery_attempts_sent_at_idx ON delivery_attempts (sent_at);
