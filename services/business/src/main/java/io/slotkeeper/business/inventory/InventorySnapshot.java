package io.slotkeeper.business.inventory;

/**
 * A SKU's stock right after a command: what command callers get back. {@code noop} is true when the
 * command was valid but changed nothing (a stale count, a release of a reservation that is not
 * active); {@code note} then says why.
 */
public record InventorySnapshot(
    String sku,
    long onHand,
    long reserved,
    long available,
    long version,
    boolean noop,
    String note) {}
