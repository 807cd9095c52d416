-- Reports of the daily-report job: one row per slot, so a slot run twice (a retry, a takeover,
-- two instances) yields one report; the primary key decides which run's numbers are kept.
CREATE TABLE reports (
    slot_id      VARCHAR(64)  NOT NULL PRIMARY KEY,
    job          VARCHAR(128) NOT NULL,
    nominal      TIMESTAMPTZ  NOT NULL,
    period_start TIMESTAMPTZ  NOT NULL,
    period_end   TIMESTAMPTZ  NOT NULL,
    body         JSONB        NOT NULL,
    created_at   TIMESTAMPTZ  NOT NULL DEFAULT now()
);
CREATE INDEX reports_job_nominal ON reports (job, nominal);
