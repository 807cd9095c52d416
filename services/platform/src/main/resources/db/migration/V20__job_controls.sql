-- Operator switches per job (pause/resume), read by every instance's timer.
CREATE TABLE job_controls (
    job        VARCHAR(128) NOT NULL PRIMARY KEY,
    paused     BOOLEAN      NOT NULL,
    updated_at TIMESTAMPTZ  NOT NULL
);
