-- Refunds of orders, written by the refunds projection with its token in one transaction.
CREATE TABLE refunds (
    refund_id     VARCHAR(255) NOT NULL PRIMARY KEY,
    order_id      VARCHAR(255) NOT NULL,
    amount_cents  BIGINT       NOT NULL,
    reason        TEXT,
    status        VARCHAR(16)  NOT NULL,
    requested_at  TIMESTAMPTZ  NOT NULL,
    issued_at     TIMESTAMPTZ,
    rejected_at   TIMESTAMPTZ,
    updated_at    TIMESTAMPTZ  NOT NULL,
    -- Global position of the last event applied: the projection's own guard against replays.
    last_position BIGINT       NOT NULL
);
CREATE INDEX refunds_order ON refunds (order_id);
