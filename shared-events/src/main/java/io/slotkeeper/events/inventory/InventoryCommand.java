package io.slotkeeper.events.inventory;

import io.slotkeeper.events.Command;
import io.slotkeeper.events.StreamIds;
import java.time.Instant;

/** Commands to the inventory aggregate of one SKU (its business ID is the SKU). */
public sealed interface InventoryCommand extends Command {

  /** The SKU the command is for. */
  String sku();

  @Override
  default String aggregateId() {
    return sku();
  }

  @Override
  default String streamId() {
    return StreamIds.inventory(sku());
  }

  /** Add qty (> 0) to on-hand; creates the SKU if it is unknown. */
  record ReceiveStock(String commandId, String sku, int qty, String reason)
      implements InventoryCommand {}

  /** Set qty (> 0) aside for an order; at most one reservation per (order, SKU). */
  record ReserveStock(String commandId, String sku, String orderId, int qty)
      implements InventoryCommand {}

  /** Give an order's reservation back to available stock. */
  record ReleaseReservation(String commandId, String sku, String orderId)
      implements InventoryCommand {}

  /** Ship an order's reservation: on-hand and reserved both drop by its qty. */
  record CommitReservation(String commandId, String sku, String orderId)
      implements InventoryCommand {}

  /**
   * Set on-hand from a physical count taken at {@code asOf}; creates the SKU if it is unknown. A
   * count not newer than the last applied one is ignored.
   */
  record CountStock(String commandId, String sku, int onHand, Instant asOf)
      implements InventoryCommand {}
}
