package io.slotkeeper.events.orders;

import io.slotkeeper.events.Command;
import io.slotkeeper.events.StreamIds;
import java.util.List;

/** Commands to the order aggregate. */
public sealed interface OrderCommand extends Command {

  /** The order the command is for. */
  String orderId();

  @Override
  default String aggregateId() {
    return orderId();
  }

  @Override
  default String streamId() {
    return StreamIds.order(orderId());
  }

  /** Place a new order in state NEW. */
  record PlaceOrder(
      String commandId, String orderId, String customerId, String currency, List<OrderLine> items)
      implements OrderCommand {}

  /** Cancel an order that has not started processing. */
  record CancelOrder(String commandId, String orderId, String reason) implements OrderCommand {}

  /** Move a NEW order to PROCESSING. */
  record StartOrderProcessing(String commandId, String orderId) implements OrderCommand {}

  /** Move a PROCESSING order to COMPLETED. */
  record CompleteOrder(String commandId, String orderId) implements OrderCommand {}

  /** Move a PROCESSING order to FAILED. */
  record FailOrder(String commandId, String orderId, String reason) implements OrderCommand {}

  /**
   * Ask to pay back part of a COMPLETED order; refundId names the refund (see DeterministicIds).
   */
  record RequestRefund(
      String commandId, String orderId, String refundId, long amountCents, String reason)
      implements OrderCommand {}

  /** Pay out a REQUESTED refund. */
  record IssueRefund(String commandId, String orderId, String refundId) implements OrderCommand {}

  /** Turn down a REQUESTED refund; its amount becomes refundable again. */
  record RejectRefund(String commandId, String orderId, String refundId, String reason)
      implements OrderCommand {}
}
