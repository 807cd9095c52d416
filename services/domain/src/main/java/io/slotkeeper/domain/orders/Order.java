package io.slotkeeper.domain.orders;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

import io.slotkeeper.domain.command.IllegalTransitionException;
import io.slotkeeper.domain.command.InvalidCommandException;
import io.slotkeeper.events.orders.OrderCommand.CancelOrder;
import io.slotkeeper.events.orders.OrderCommand.CompleteOrder;
import io.slotkeeper.events.orders.OrderCommand.FailOrder;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderCommand.StartOrderProcessing;
import io.slotkeeper.events.orders.OrderEvent.OrderCancelled;
import io.slotkeeper.events.orders.OrderEvent.OrderCompleted;
import io.slotkeeper.events.orders.OrderEvent.OrderFailed;
import io.slotkeeper.events.orders.OrderEvent.OrderPlaced;
import io.slotkeeper.events.orders.OrderEvent.OrderProcessingStarted;
import io.slotkeeper.events.orders.OrderStatus;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.eventhandling.SequenceNumber;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.modelling.command.AggregateCreationPolicy;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.modelling.command.CreationPolicy;

/**
 * The order state machine. Command handlers validate and apply; event-sourcing handlers only assign
 * state. Illegal transitions name the current state.
 */
public class Order {

  @AggregateIdentifier private String orderId;
  private OrderStatus status;
  private long amountCents;
  private long version;

  protected Order() {
    // for Axon
  }

  @CommandHandler
  @CreationPolicy(AggregateCreationPolicy.ALWAYS)
  OrderSnapshot handle(PlaceOrder cmd) {
    OrderRules.validate(cmd);
    apply(
        new OrderPlaced(
            cmd.orderId(), cmd.customerId(), cmd.currency(), cmd.items(), OrderRules.amount(cmd)));
    return snapshot();
  }

  @CommandHandler
  OrderSnapshot handle(CancelOrder cmd) {
    requireTransition(OrderStatus.CANCELLED, "cancel");
    apply(new OrderCancelled(orderId, cmd.reason()));
    return snapshot();
  }

  @CommandHandler
  OrderSnapshot handle(StartOrderProcessing cmd) {
    requireTransition(OrderStatus.PROCESSING, "start processing");
    apply(new OrderProcessingStarted(orderId));
    return snapshot();
  }

  @CommandHandler
  OrderSnapshot handle(CompleteOrder cmd) {
    requireTransition(OrderStatus.COMPLETED, "complete");
    apply(new OrderCompleted(orderId));
    return snapshot();
  }

  @CommandHandler
  OrderSnapshot handle(FailOrder cmd) {
    if (cmd.reason() == null || cmd.reason().isBlank()) {
      throw new InvalidCommandException("a failed order needs a reason");
    }
    requireTransition(OrderStatus.FAILED, "fail");
    apply(new OrderFailed(orderId, cmd.reason()));
    return snapshot();
  }

  private void requireTransition(OrderStatus next, String verb) {
    if (!status.canMoveTo(next)) {
      throw new IllegalTransitionException(
          orderId, status.name(), "cannot " + verb + " order " + orderId + ": it is " + status);
    }
  }

  private OrderSnapshot snapshot() {
    return new OrderSnapshot(orderId, status, amountCents, version);
  }

  @EventSourcingHandler
  void on(OrderPlaced e, @SequenceNumber long seq) {
    orderId = e.orderId();
    amountCents = e.amountCents();
    status = OrderStatus.NEW;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(OrderCancelled e, @SequenceNumber long seq) {
    status = OrderStatus.CANCELLED;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(OrderProcessingStarted e, @SequenceNumber long seq) {
    status = OrderStatus.PROCESSING;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(OrderCompleted e, @SequenceNumber long seq) {
    status = OrderStatus.COMPLETED;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(OrderFailed e, @SequenceNumber long seq) {
    status = OrderStatus.FAILED;
    version = seq + 1;
  }
}
