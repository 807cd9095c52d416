-- The upstream stock feed, the integration point of the inventory-sync job: an upstream system
-- (a warehouse system, a counting app) upserts its latest physical count per SKU here, e.g.
--   INSERT INTO inventory_feed (sku, on_hand, as_of) VALUES ('SKU-1', 40, '2026-01-01T08:00Z')
--   ON CONFLICT (sku) DO UPDATE SET on_hand = EXCLUDED.on_hand, as_of = EXCLUDED.as_of,
--   updated_at = now();
-- The job turns every row into a CountStock command; a count not newer than the last applied one
-- is ignored by the inventory aggregate, so re-reading the same rows changes nothing.
CREATE TABLE inventory_feed (
    sku        VARCHAR(255) NOT NULL PRIMARY KEY,
    on_hand    BIGINT       NOT NULL CHECK (on_hand >= 0),
    as_of      TIMESTAMPTZ  NOT NULL,
    updated_at TIMESTAMPTZ  NOT NULL DEFAULT now()
);
