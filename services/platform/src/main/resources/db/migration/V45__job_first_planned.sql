-- The point from which a timer first planned each job (exclusive): catch-up never reaches back
-- before it, and every slot after it is expected to have a record in job_runs. Written once by
-- the first instance that plans the job (INSERT ... ON CONFLICT DO NOTHING), never updated.
-- Jobs of a database from before this table get it on their next start: the oldest timer record
-- within the catch-up window of the newest (what "holes" meant before), or the start instant.
CREATE TABLE job_first_planned (
    job           VARCHAR(128) NOT NULL PRIMARY KEY,
    first_planned TIMESTAMPTZ  NOT NULL,
    recorded_at   TIMESTAMPTZ  NOT NULL
);
