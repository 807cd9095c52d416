-- One row per applied command, written in the same transaction as the command's events.
-- Its primary key is what makes a command ID take effect at most once.
CREATE TABLE command_ledger (
    command_id     VARCHAR(64)  NOT NULL PRIMARY KEY,
    command_type   VARCHAR(128) NOT NULL,
    aggregate_id   VARCHAR(255) NOT NULL,
    payload_sha256 CHAR(64)     NOT NULL,
    result_type    VARCHAR(255),
    result_json    JSONB,
    applied_at     TIMESTAMPTZ  NOT NULL DEFAULT now()
);
CREATE INDEX command_ledger_aggregate ON command_ledger (aggregate_id);
