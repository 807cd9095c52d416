-- Read model of orders, written by the orders projection with its token in one transaction.
CREATE TABLE orders (
    order_id     VARCHAR(255) NOT NULL PRIMARY KEY,
    customer_id  VARCHAR(255) NOT NULL,
    amount_cents BIGINT       NOT NULL,
    currency     CHAR(3)      NOT NULL,
    items        JSONB        NOT NULL,
    status       VARCHAR(16)  NOT NULL,
    status_reason TEXT,
    version      BIGINT       NOT NULL,
    -- Global position of the last event applied: the projection's own guard against replays.
    last_position BIGINT      NOT NULL,
    created_at   TIMESTAMPTZ  NOT NULL,
    updated_at   TIMESTAMPTZ  NOT NULL
);
CREATE INDEX orders_status ON orders (status, updated_at);
