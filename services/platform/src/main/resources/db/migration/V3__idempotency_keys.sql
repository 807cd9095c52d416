-- Idempotency-Key records of HTTP and gRPC requests (draft-ietf-httpapi-idempotency-key-header).
CREATE TABLE idempotency_keys (
    idem_key        VARCHAR(255) NOT NULL PRIMARY KEY,
    operation       VARCHAR(128) NOT NULL,
    fingerprint     VARCHAR(64)  NOT NULL,
    state           VARCHAR(16)  NOT NULL CHECK (state IN ('IN_FLIGHT', 'COMPLETED')),
    locked_until    TIMESTAMPTZ,
    response_status INTEGER,
    response_headers JSONB,
    response_body   TEXT,
    created_at      TIMESTAMPTZ  NOT NULL DEFAULT now(),
    expires_at      TIMESTAMPTZ  NOT NULL
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
