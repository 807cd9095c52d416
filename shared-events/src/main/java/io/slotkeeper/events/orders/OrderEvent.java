package io.slotkeeper.events.orders;

import java.util.List;

/** Events of the order aggregate, in the past tense. */
public sealed interface OrderEvent {

  /** The order the event belongs to. */
  String orderId();

  /** An order was placed; amountCents is the sum of its lines. */
  record OrderPlaced(
      String orderId, String customerId, String currency, List<OrderLine> items, long amountCents)
      implements OrderEvent {}

  /** A NEW order was cancelled. */
  record OrderCancelled(String orderId, String reason) implements OrderEvent {}

  /** Processing of the order began. */
  record OrderProcessingStarted(String orderId) implements OrderEvent {}

  /** The order was fulfilled. */
  record OrderCompleted(String orderId) implements OrderEvent {}

  /** The order could not be fulfilled. */
  record OrderFailed(String orderId, String reason) implements OrderEvent {}

  /** A refund was requested; its amount is held against the order's refundable balance. */
  record RefundRequested(String orderId, String refundId, long amountCents, String reason)
      implements OrderEvent {}

  /** A requested refund was paid out. */
  record RefundIssued(String orderId, String refundId, long amountCents) implements OrderEvent {}

  /** A requested refund was turned down; its amount is refundable again. */
  record RefundRejected(String orderId, String refundId, long amountCents, String reason)
      implements OrderEvent {}
}
