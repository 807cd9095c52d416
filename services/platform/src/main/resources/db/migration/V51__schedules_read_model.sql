-- The schedules read table, projected from the Schedule aggregate's events (one row per name).
-- version is the aggregate's (its number of events) and guards the row: an event applies only
-- over an older version, so a replay over existing rows changes nothing. change_seq orders the
-- rows' changes for the catalogs that poll them (each instance reads the rows changed since the
-- last change it saw); deleted schedules keep their row (state DELETED) so a poll sees the delete.
CREATE SEQUENCE schedules_change_seq;

CREATE TABLE schedules (
    name         VARCHAR(128) NOT NULL PRIMARY KEY,
    definition   JSONB        NOT NULL,
    version      BIGINT       NOT NULL,
    state        VARCHAR(16)  NOT NULL CHECK (state IN ('ACTIVE', 'PAUSED', 'DELETED')),
    managed_by   VARCHAR(8)   NOT NULL CHECK (managed_by IN ('API', 'FILE')),
    source       TEXT,
    effective_at TIMESTAMPTZ  NOT NULL,
    created_at   TIMESTAMPTZ  NOT NULL,
    updated_at   TIMESTAMPTZ  NOT NULL,
    change_seq   BIGINT       NOT NULL DEFAULT nextval('schedules_change_seq'),
    projected_at TIMESTAMPTZ  NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX schedules_change_seq_idx ON schedules (change_seq);
CREATE INDEX schedules_state_name_idx ON schedules (state, name);
CREATE INDEX schedules_projected_at_idx ON schedules (projected_at);
