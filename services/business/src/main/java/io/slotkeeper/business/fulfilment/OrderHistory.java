package io.slotkeeper.business.fulfilment;

import io.slotkeeper.commands.AggregateNotFoundException;
import io.slotkeeper.events.StreamIds;
import io.slotkeeper.events.orders.OrderEvent.OrderCancelled;
import io.slotkeeper.events.orders.OrderEvent.OrderCompleted;
import io.slotkeeper.events.orders.OrderEvent.OrderFailed;
import io.slotkeeper.events.orders.OrderEvent.OrderPlaced;
import io.slotkeeper.events.orders.OrderEvent.OrderProcessingStarted;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.events.orders.OrderStatus;
import java.util.List;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventsourcing.eventstore.DomainEventStream;
import org.axonframework.eventsourcing.eventstore.EventStore;

/**
 * An order's lines and status folded from its events in the store. The flow reads this rather than
 * the orders read table, which may lag behind the events the flow itself just appended.
 */
record OrderHistory(String orderId, OrderStatus status, String reason, List<OrderLine> lines) {

  static OrderHistory load(EventStore store, String orderId) {
    OrderHistory h = null;
    DomainEventStream events = store.readEvents(StreamIds.order(orderId));
    while (events.hasNext()) {
      DomainEventMessage<?> message = events.next();
      h = h == null ? placed(message.getPayload()) : h.next(message.getPayload());
    }
    if (h == null) {
      throw new AggregateNotFoundException("Order", orderId);
    }
    return h;
  }

  private static OrderHistory placed(Object first) {
    OrderPlaced p = (OrderPlaced) first;
    return new OrderHistory(p.orderId(), OrderStatus.NEW, null, p.items());
  }

  /** The history after one more event; refund events do not change the status. */
  private OrderHistory next(Object e) {
    if (e instanceof OrderProcessingStarted) {
      return with(OrderStatus.PROCESSING, null);
    } else if (e instanceof OrderCompleted) {
      return with(OrderStatus.COMPLETED, null);
    } else if (e instanceof OrderFailed f) {
      return with(OrderStatus.FAILED, f.reason());
    } else if (e instanceof OrderCancelled c) {
      return with(OrderStatus.CANCELLED, c.reason());
    }
    return this;
  }

  private OrderHistory with(OrderStatus next, String why) {
    return new OrderHistory(orderId, next, why, lines);
  }

  FulfilmentResult result() {
    return new FulfilmentResult(orderId, status, reason);
  }
}
