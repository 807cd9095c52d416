package io.slotkeeper.events.inventory;

import java.time.Instant;

/**
 * Events of the inventory aggregate, in the past tense. Each carries the SKU's resulting on-hand
 * and reserved quantities, so a projection can write the level without recomputing it.
 */
public sealed interface InventoryEvent {

  /** The SKU the event belongs to. */
  String sku();

  /** On-hand after the event. */
  long onHand();

  /** Reserved after the event. */
  long reserved();

  /** Stock arrived. */
  record StockReceived(String sku, int qty, String reason, long onHand, long reserved)
      implements InventoryEvent {}

  /** Stock was set aside for an order. */
  record StockReserved(String sku, String orderId, int qty, long onHand, long reserved)
      implements InventoryEvent {}

  /** An order's reservation went back to available stock. */
  record ReservationReleased(String sku, String orderId, int qty, long onHand, long reserved)
      implements InventoryEvent {}

  /** An order's reservation shipped: it left on-hand and reserved. */
  record ReservationCommitted(String sku, String orderId, int qty, long onHand, long reserved)
      implements InventoryEvent {}

  /** A count set on-hand; delta is the change it made (may be zero or negative). */
  record StockCounted(String sku, Instant asOf, long delta, long onHand, long reserved)
      implements InventoryEvent {}
}
