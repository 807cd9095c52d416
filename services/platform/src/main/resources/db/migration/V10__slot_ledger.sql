-- Highest fencing token seen per job, raised in the transaction of every fire: a fire with a
-- lower token (a former lease holder) is refused. It also seeds Redis' counter after a restart.
CREATE TABLE job_fences (
    job           VARCHAR(128) NOT NULL PRIMARY KEY,
    highest_token BIGINT       NOT NULL,
    updated_at    TIMESTAMPTZ  NOT NULL
);

-- Read model of the slot ledger: one row per slot.
CREATE TABLE job_runs (
    slot_id             VARCHAR(64)  NOT NULL PRIMARY KEY,
    job                 VARCHAR(128) NOT NULL,
    nominal             TIMESTAMPTZ  NOT NULL,
    status              VARCHAR(16)  NOT NULL,
    instance_id         VARCHAR(255),
    fencing_token       BIGINT,
    attempts            INTEGER      NOT NULL DEFAULT 0,
    backfill            BOOLEAN      NOT NULL DEFAULT FALSE,
    fired_at            TIMESTAMPTZ,
    lag_ms              BIGINT,
    completed_at        TIMESTAMPTZ,
    duration_ms         BIGINT,
    counts              JSONB,
    error               TEXT,
    duplicates_rejected INTEGER      NOT NULL DEFAULT 0,
    updated_at          TIMESTAMPTZ  NOT NULL,
    last_position       BIGINT       NOT NULL
);
CREATE UNIQUE INDEX job_runs_job_nominal ON job_runs (job, nominal);
CREATE INDEX job_runs_status ON job_runs (job, status, updated_at);
