-- Axon's aggregate identifier is now the business ID prefixed by the aggregate type in lower case
-- (io.slotkeeper.events.StreamIds): 'order:X', 'inventory:X', 'slot:<uuid>'. Business IDs of
-- different types share one value space, and the store, command routing and the aggregate cache
-- key a stream by the identifier alone. Streams stored before are renamed here; payloads, read
-- tables and global positions do not change. The mapping is one-to-one, but a row renamed early can
-- meet a not yet renamed one (order 'X' becomes 'order:X' while order 'order:X' still exists), so
-- the unique keys are checked once, after the rename.
ALTER TABLE domain_event_entry
    DROP CONSTRAINT domain_event_entry_aggregate_identifier_sequence_number_key;
UPDATE domain_event_entry
   SET aggregate_identifier = lower(type) || ':' || aggregate_identifier
 WHERE type IN ('Order', 'Inventory', 'Slot');
ALTER TABLE domain_event_entry
    ADD CONSTRAINT domain_event_entry_aggregate_identifier_sequence_number_key
    UNIQUE (aggregate_identifier, sequence_number);

-- slotkeeper takes no snapshots (the table stays empty); renamed alike so none is left behind.
ALTER TABLE snapshot_event_entry DROP CONSTRAINT snapshot_event_entry_pkey;
UPDATE snapshot_event_entry
   SET aggregate_identifier = lower(type) || ':' || aggregate_identifier
 WHERE type IN ('Order', 'Inventory', 'Slot');
ALTER TABLE snapshot_event_entry ADD PRIMARY KEY (aggregate_identifier, sequence_number);
