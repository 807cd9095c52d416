-- The example Redis Streams consumer (io.slotkeeper.stream.StreamConsumerExample): the event IDs
-- each consumer group has applied, written in the same transaction as the effect, so a redelivered
-- or reclaimed entry is recognised and applied once.
CREATE TABLE stream_consumer_processed (
    consumer_group VARCHAR(200) NOT NULL,
    event_id       VARCHAR(255) NOT NULL,
    position       BIGINT       NOT NULL,
    processed_at   TIMESTAMPTZ  NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_group, event_id)
);

-- The example's effect: one row per applied event, deliberately without a unique key, so that a
-- double application would show as a duplicate row.
CREATE TABLE stream_consumer_example_effects (
    id             BIGSERIAL    PRIMARY KEY,
    consumer_group VARCHAR(200) NOT NULL,
    consumer       VARCHAR(200) NOT NULL,
    event_id       VARCHAR(255) NOT NULL,
    position       BIGINT       NOT NULL,
    event_type     VARCHAR(255) NOT NULL
);
