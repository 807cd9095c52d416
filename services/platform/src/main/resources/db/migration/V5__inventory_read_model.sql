-- Stock level per SKU, written by the inventory projection with its token in one transaction.
CREATE TABLE inventory (
    sku           VARCHAR(255) NOT NULL PRIMARY KEY,
    on_hand       BIGINT       NOT NULL,
    reserved      BIGINT       NOT NULL,
    available     BIGINT       NOT NULL,
    version       BIGINT       NOT NULL,
    -- Global position of the last event applied: the projection's own guard against replays.
    last_position BIGINT       NOT NULL,
    updated_at    TIMESTAMPTZ  NOT NULL
);

-- Every stock change once: the key is the event's global position, so a change cannot be logged twice.
CREATE TABLE inventory_log (
    position       BIGINT       NOT NULL PRIMARY KEY,
    sku            VARCHAR(255) NOT NULL,
    delta_on_hand  BIGINT       NOT NULL,
    delta_reserved BIGINT       NOT NULL,
    reason         TEXT,
    order_id       VARCHAR(255),
    -- Scheduler slot that caused the change; nothing sets it yet (NULL).
    slot           VARCHAR(255),
    command_id     VARCHAR(255),
    created_at     TIMESTAMPTZ  NOT NULL
);
CREATE INDEX inventory_log_sku ON inventory_log (sku, position);
